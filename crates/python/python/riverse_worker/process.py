"""The worker as a process: the protocol on private descriptors, out of
reach of what a tool reads and prints; its name for `ps`; and its lifetime,
tied to the host's: when the host is gone, the worker ends and takes with it
what its tools started, wherever that went (its process group, a daemon that
left the group, a sandboxed worker's signal domain)."""

from __future__ import annotations

import os
import signal
import sys

# The protocol descriptors are moved this high, where a tool writing to "fd 4"
# by mistake does not reach them (it still can on purpose: tools are trusted).
PROTOCOL_FD_FLOOR = 900
# The first argument after the code of a worker the host started: its
# command line reads `python -c … riverse-worker [POOL] PROJECT` in `ps`.
PROCESS_LABEL = "riverse-worker"
# PR_SET_NAME, from <linux/prctl.h>: the name `ps -o comm` and `top` show.
PR_SET_NAME = 15
# PR_SET_CHILD_SUBREAPER, from <linux/prctl.h>.
PR_SET_CHILD_SUBREAPER = 36
# The most rounds `kill_adopted_children` makes: each round kills one
# generation of what the tool left, so only a tree this deep, or a process
# stuck in the kernel this long, is left for the kernel to end.
KILL_ROUNDS = 100
# Landlock's system calls (the same numbers on every architecture but alpha),
# LANDLOCK_SCOPE_SIGNAL from <linux/landlock.h>, PR_SET_NO_NEW_PRIVS from
# <linux/prctl.h>.
LANDLOCK_CREATE_RULESET = 444
LANDLOCK_RESTRICT_SELF = 446
LANDLOCK_SCOPE_SIGNAL = 1 << 1
PR_SET_NO_NEW_PRIVS = 38

# Whether this process is a child subreaper (see `become_subreaper`).
subreaper = False
# The process that made a Landlock domain of its own that scopes signals
# (see `enter_own_signal_domain`): a worker forked from a fork server is in
# its fork server's until it makes its own.
signal_domain_of: int | None = None


def take_protocol_streams():
    """Moves the protocol to private, high, close-on-exec descriptors and points
    fd 0 at /dev/null and fd 1 at stderr, so nothing a tool reads or prints can
    touch the protocol."""
    proto_in = os.fdopen(high_dup(0), "rb")
    proto_out = os.fdopen(high_dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdout.reconfigure(line_buffering=True)
    return proto_in, proto_out


def high_dup(fd: int) -> int:
    """A close-on-exec copy of `fd` at PROTOCOL_FD_FLOOR or above, or wherever
    the descriptor limit allows."""
    import fcntl

    try:
        return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, PROTOCOL_FD_FLOOR)
    except OSError:
        return os.dup(fd)  # the limit is lower: any free one, still close-on-exec


def name_process(name: str) -> None:
    """Names this process as `ps -o comm` and `top` show it (Linux; 15
    bytes at most). A forked worker can change no more than this: its
    command line stays its fork server's."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        ctypes.CDLL(None).prctl(PR_SET_NAME, name.encode()[:15], 0, 0, 0)
    except (AttributeError, OSError):
        pass  # unnamed: `ps` still shows the label in the command line


def end_with_the_host():
    """When the host is gone, the worker ends and takes its process group (a
    tool's children) with it: Linux sends SIGTERM when the host dies (the host
    asks for it at spawn), and the protocol stream's end says so anywhere.
    A worker that is a child subreaper first kills every descendant that left
    its group (see `become_subreaper`). None for a process that is not the
    leader of a group of its own (a standalone server): it is left alone."""
    if os.getpgrp() != os.getpid():
        return None

    def end(*_args):
        if subreaper:
            kill_adopted_children()
        os.killpg(os.getpgrp(), signal.SIGKILL)

    signal.signal(signal.SIGTERM, end)
    return end


def become_subreaper(on: bool = True) -> None:
    """Makes this worker a child subreaper (Linux): a tool's descendant whose
    parent ends, a daemon that forked twice and left the worker's group with
    setsid, is re-parented to the worker instead of to init or the host, so
    the worker can still kill it when the host is killed outright and no
    host is left to sweep it. Elsewhere (or if refused) nothing changes."""
    global subreaper
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) == 0:
            subreaper = on
    except (AttributeError, OSError):
        pass  # no prctl here: the host's own sweep still covers a live host


def in_own_signal_domain() -> bool:
    return signal_domain_of == os.getpid()


def kill_adopted_children() -> None:
    """Kills this process's children, whatever their group, round after
    round: the children of a killed one are re-parented here (a subreaper)
    and are killed in the next round. Only direct children are signalled,
    never reaped here, so no pid can be another process's by the time it is
    signalled. A worker in a signal domain of its own (a sandboxed one,
    which can't read /proc) kills its whole domain instead."""
    import time

    if in_own_signal_domain():
        # Only this worker's descendants are in its domain (or in domains
        # nested in it), wherever they were re-parented, and Landlock lets
        # kill(-1) reach nothing else. One is enough: a fork it interrupts
        # is undone by the kernel, and the forking process is killed.
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass  # none left to signal
        return
    me = os.getpid()
    for _ in range(KILL_ROUNDS):
        children = live_children(me)
        if not children:
            return
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass  # already gone
        time.sleep(0.005)  # let the killed ones die and their children move here


def live_children(parent: int) -> list[int]:
    """The pids of `parent`'s children that have not ended, from /proc."""
    children = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return children
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as file:
                stat = file.read()
        except OSError:
            continue  # it ended meanwhile
        # The command name in parentheses may hold spaces and parentheses.
        fields = stat[stat.rfind(b")") + 1 :].split()
        ended = fields[:1] in ([b"Z"], [b"X"])  # a zombie, or on its way out
        if len(fields) > 1 and not ended and fields[1] == str(parent).encode():
            children.append(int(entry))
    return children


def enter_own_signal_domain(landlock_abi: int) -> None:
    """Has a sandboxed worker enter a Landlock domain of its own, nested in its
    sandbox's, that restricts nothing but signals (Landlock ABI 6, Linux 6.12):
    from then on every process it or its tools start is in that domain, or
    in one nested in it, whatever its parent, group or session, and a signal
    sent from the worker reaches no process outside it. So `kill(-1)` reaches
    exactly what the worker started, which is how a sandboxed worker, which
    can't read /proc, finds what to kill when the host is gone (see
    `kill_adopted_children`). Each worker makes its own, once, even one
    forked from a fork server in a domain shared with its siblings; until
    one is made, and wherever it can't be, `kill(-1)` is never sent.
    `landlock_abi` is the one the sandbox was made with (below 6, or
    RIVERSE_LANDLOCK_ABI capping it, there is no scope)."""
    global signal_domain_of
    if in_own_signal_domain() or landlock_abi < 6 or not sys.platform.startswith("linux"):
        return
    import ctypes

    class RulesetAttr(ctypes.Structure):
        _fields_ = [
            ("handled_access_fs", ctypes.c_uint64),
            ("handled_access_net", ctypes.c_uint64),
            ("scoped", ctypes.c_uint64),
        ]

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        attr = RulesetAttr(0, 0, LANDLOCK_SCOPE_SIGNAL)
        size = ctypes.c_size_t(ctypes.sizeof(attr))
        ruleset = libc.syscall(LANDLOCK_CREATE_RULESET, ctypes.byref(attr), size, ctypes.c_uint32(0))
        if ruleset < 0:
            return
        try:
            # Landlock requires it; the sandbox has set it already.
            if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
                return
            if libc.syscall(LANDLOCK_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)) == 0:
                signal_domain_of = os.getpid()
        finally:
            os.close(ruleset)
    except (AttributeError, OSError):
        pass  # no syscall() here: the host's own sweep still covers a live host


def watch_the_host(host_pid: int, end) -> None:
    """A forked worker's parent is the fork server, so no signal comes when the
    host dies, and a tool that never returns never reads the protocol stream's
    end: a thread waits for the host's exit and ends the worker's group."""
    import select
    import threading

    try:
        host = os.pidfd_open(host_pid)
    except ProcessLookupError:
        end()  # the host is already gone
        return
    except (AttributeError, OSError):
        return  # no pidfd here (not Linux 5.3+): the stream's end still tells

    def wait():
        select.select([host], [], [])
        end()

    threading.Thread(target=wait, name="riverse-host-watch", daemon=True).start()
