/*
 * Which pages of a binary's code a run executes, page by page: loaded with
 * LD_PRELOAD into the process whose executable's path contains $TRACE_EXE,
 * it takes all access away from the executable's code, and each first run
 * of a page then faults here: the page's offset from the load address is
 * appended to $TRACE_OUT (one hexadecimal number a line, in the order first
 * run) and the page is given back. Child processes are not traced (the
 * variable is removed from the environment), except the code a forked child
 * runs before its exec.
 *
 *     cc -shared -fPIC -O2 -o trace.so trace.c
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static unsigned long text_start, text_end, load_base;
static int out_fd = -1;

static void on_fault(int sig, siginfo_t *info, void *context) {
    (void)sig;
    (void)context;
    unsigned long address = (unsigned long)info->si_addr;
    if (address < text_start || address >= text_end) {
        /* A real fault: the default action, when it happens again. */
        signal(SIGSEGV, SIG_DFL);
        return;
    }
    unsigned long page = address & ~4095UL;
    char digits[24], line[24];
    int count = 0, length = 0;
    unsigned long offset = page - load_base;
    do {
        digits[count++] = "0123456789abcdef"[offset & 15];
        offset >>= 4;
    } while (offset);
    while (count) line[length++] = digits[--count];
    line[length++] = '\n';
    if (write(out_fd, line, length) < 0) {
        /* Nothing to be done: the page is still given back. */
    }
    mprotect((void *)page, 4096, PROT_READ | PROT_EXEC);
}

__attribute__((constructor)) static void start(void) {
    const char *wanted = getenv("TRACE_EXE");
    const char *out = getenv("TRACE_OUT");
    char exe[4096];
    ssize_t length = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (length < 0 || !wanted || !out) return;
    exe[length] = 0;
    if (!strstr(exe, wanted)) return;
    unsetenv("LD_PRELOAD");
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps) return;
    char line[8192];
    while (fgets(line, sizeof line, maps)) {
        unsigned long start, end, offset;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s %lx", &start, &end, perms, &offset) != 4) continue;
        if (!strstr(line, exe)) continue;
        if (offset == 0 && !load_base) load_base = start;
        if (perms[2] == 'x') {
            text_start = start;
            text_end = end;
        }
    }
    fclose(maps);
    out_fd = open(out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (out_fd < 0 || !text_start) return;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fault;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGSEGV, &action, 0);
    mprotect((void *)text_start, text_end - text_start, PROT_NONE);
}
