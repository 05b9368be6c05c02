"""shell_exec: one allowlisted program, run without a shell, on files inside
the allowed directories. Off unless settings.yaml says `tools.shell_exec.enabled: true`.

    tools:
      shell_exec:
        enabled: true
        whitelist: ["ls", "cat", "git status"]   # programs (with leading arguments) that may run
        allowed_dirs: ["."]                      # where file arguments may point
        timeout: 30                              # the call's deadline in seconds
        max_output_chars: 4000

Each program Riverse knows (those of the default whitelist, and find and
sleep) takes only the options listed for it in PROGRAMS below; any other
option is refused, naming the program and the option. Every argument that
names a file (an operand, or the value of an option that takes a path,
attached, separate or after `=`) must lie inside `allowed_dirs` and not be
protected (see _paths.py). A program added to the whitelist that Riverse has
no option list for takes no options beyond those written in its whitelist
entry (`"sort -r"`), and its operands are checked as paths.

git status, log and diff are given pathspecs that leave out the protected
paths and secret files, so that their contents never show in a diff.

What remains: the program opens its files by name after the check, so a
symlink swapped in between can redirect it (file_read and the other file
tools are not open to this; a sandbox is the fix for shell_exec).
"""

import os
import re
import shlex
import signal
import subprocess
import tempfile

from agent.tools import BaseTool, ToolManifest, ToolResult
from agent.tools._paths import Scope, hard_link_refusal, is_inside, is_regular, tool_settings


DEFAULT_WHITELIST = [
    "ls", "cat", "head", "tail", "wc", "grep", "date", "pwd",
    "git status", "git log", "git diff", "git branch",
]
DEFAULT_TIMEOUT = 30
DEFAULT_MAX_OUTPUT_CHARS = 4000
# No shell runs the command, so these would be plain arguments; refusing them
# says so instead of silently doing something else than the caller expects.
SHELL_SYNTAX = (";", "|", "&", "`", "$", ">", "<", "\n")
PR_SET_PDEATHSIG = 1

# What an option takes.
FLAG = "flag"          # nothing
VALUE = "value"        # a value that is not a file name
PATH = "path"          # a file name, checked as one
OPTIONAL = "optional"  # a value only when attached (`-Iseconds`, `--color=never`)


def options(kind: str, *names: str) -> dict:
    return {name: kind for name in names}


class Program:
    """The options one program may take, and what its operands are.

    `operands` is PATH (each is checked as a file), VALUE (none is), or a
    function of (options given, operands) that returns a refusal or None.
    `words`: options are whole words after one dash (find's `-name`).
    `numeric`: `-5` is a count (head, tail, git log).
    `first_operand_is_value`: grep's pattern, unless -e or -f gives it.
    """

    def __init__(self, allowed: dict, operands=PATH, words=False, numeric=False, first_operand_is_value=False):
        self.allowed = allowed
        self.operands = operands
        self.words = words
        self.numeric = numeric
        self.first_operand_is_value = first_operand_is_value


def date_operands(_given: set, operands: list):
    # An operand that is not a +FORMAT sets the clock.
    for operand in operands:
        if not operand.startswith("+"):
            return f"date: operand {operand!r} is not allowed (only +FORMAT; date never sets the clock here)"
    return None


def branch_operands(given: set, operands: list):
    # Without --list, a name creates a branch.
    if operands and not given & {"--list", "-l"}:
        return "git branch: only lists branches; a branch name is allowed only with --list"
    return None


def no_operands(name: str):
    def check(_given: set, operands: list):
        return f"{name}: takes no operands" if operands else None

    return check


GIT_COLOR = {**options(FLAG, "--no-color"), **options(OPTIONAL, "--color")}
PROGRAMS = {
    "ls": Program({
        **options(FLAG, *(f"-{c}" for c in "aAlhrtS1dFisCxXpngoGUvcuBQN"), "--all", "--almost-all",
                  "--human-readable", "--reverse", "--directory", "--classify", "--inode", "--size",
                  "--numeric-uid-gid", "--no-group", "--literal", "--quote-name"),
        **options(VALUE, "-I", "-w", "--ignore", "--hide", "--sort", "--time-style", "--width", "--format"),
        **options(OPTIONAL, "--color", "--indicator-style"),
    }),
    "cat": Program(options(FLAG, *(f"-{c}" for c in "nbAETsvet"), "--number", "--number-nonblank",
                           "--show-all", "--show-ends", "--show-tabs", "--squeeze-blank", "--show-nonprinting")),
    "head": Program({
        **options(FLAG, "-q", "-v", "-z", "--quiet", "--silent", "--verbose", "--zero-terminated"),
        **options(VALUE, "-n", "-c", "--lines", "--bytes"),
    }, numeric=True),
    "tail": Program({
        **options(FLAG, "-q", "-v", "-z", "-f", "-F", "--quiet", "--silent", "--verbose", "--retry",
                  "--zero-terminated"),
        **options(VALUE, "-n", "-c", "-s", "--lines", "--bytes", "--sleep-interval", "--max-unchanged-stats"),
        **options(OPTIONAL, "--follow"),
    }, numeric=True),
    "wc": Program(options(FLAG, "-l", "-w", "-c", "-m", "-L", "--lines", "--words", "--bytes", "--chars",
                          "--max-line-length")),
    "grep": Program({
        **options(FLAG, *(f"-{c}" for c in "ivnclLwxhHoqsEFGPzaIUTZ"), "--ignore-case", "--invert-match",
                  "--line-number", "--count", "--files-with-matches", "--files-without-match", "--word-regexp",
                  "--line-regexp", "--no-filename", "--with-filename", "--only-matching", "--quiet", "--silent",
                  "--no-messages", "--extended-regexp", "--fixed-strings", "--basic-regexp", "--perl-regexp",
                  "--text", "--null", "--initial-tab", "--byte-offset", "-b"),
        **options(VALUE, "-e", "-m", "-A", "-B", "-C", "--regexp", "--max-count", "--after-context",
                  "--before-context", "--context", "--label"),
        **options(PATH, "-f", "--file"),
        **options(OPTIONAL, "--color", "--colour"),
    }, first_operand_is_value=True),
    "date": Program({
        **options(FLAG, "-u", "-R", "--utc", "--universal", "--rfc-email", "--debug"),
        **options(VALUE, "-d", "--date", "--rfc-3339"),
        **options(PATH, "-r", "--reference"),
        **options(OPTIONAL, "-I", "--iso-8601"),
    }, operands=date_operands),
    "pwd": Program(options(FLAG, "-L", "-P", "--logical", "--physical"), operands=no_operands("pwd")),
    "sleep": Program({}, operands=VALUE),
    "find": Program({
        **options(FLAG, "-print", "-print0", "-empty", "-ls", "-not", "!", "(", ")", "-a", "-o", "-and",
                  "-or", "-true", "-false", "-prune", "-depth", "-xdev", "-mount", "-daystart", "-P"),
        **options(VALUE, "-name", "-iname", "-type", "-maxdepth", "-mindepth", "-path", "-ipath", "-wholename",
                  "-iwholename", "-regex", "-iregex", "-size", "-mtime", "-mmin", "-atime", "-amin", "-ctime",
                  "-cmin", "-user", "-group", "-perm", "-links", "-printf", "-uid", "-gid", "-regextype"),
        **options(PATH, "-newer", "-anewer", "-cnewer", "-samefile"),
    }, words=True),
    "git status": Program({
        **options(FLAG, "-s", "-b", "-v", "--short", "--branch", "--long", "--verbose", "--show-stash",
                  "--ahead-behind", "--no-ahead-behind", "--renames", "--no-renames", "-z"),
        **options(OPTIONAL, "--porcelain", "--ignored", "--untracked-files", "-u", "--column"),
        **GIT_COLOR,
    }),
    "git log": Program({
        **options(FLAG, "-p", "-u", "--patch", "--oneline", "--stat", "--shortstat", "--numstat", "--name-only",
                  "--name-status", "--graph", "--all", "--reverse", "--merges", "--no-merges", "--first-parent",
                  "--abbrev-commit", "--no-patch", "-s", "--source", "--no-ext-diff", "--no-textconv",
                  "--summary", "-i", "--regexp-ignore-case", "--all-match", "--topo-order", "--date-order"),
        **options(VALUE, "-n", "--max-count", "--skip", "--since", "--until", "--after", "--before", "--author",
                  "--committer", "--grep", "--date"),
        # git reads these values only when attached (`--tags=pat`): a
        # separate next argument is git's own, and is checked as such.
        **options(OPTIONAL, "--pretty", "--decorate", "--format", "--abbrev", "--branches", "--tags"),
        **GIT_COLOR,
    }, numeric=True),
    "git diff": Program({
        **options(FLAG, "-p", "-u", "--patch", "--stat", "--shortstat", "--numstat", "--name-only",
                  "--name-status", "--cached", "--staged", "-w", "-b", "--ignore-all-space",
                  "--ignore-space-change", "--no-ext-diff", "--no-textconv", "--summary", "-R", "--minimal",
                  "--histogram", "--patience", "--quiet", "--exit-code", "--no-renames", "-M"),
        **options(VALUE, "--diff-filter"),
        **options(OPTIONAL, "--word-diff", "-U", "--unified", "--abbrev"),
        **GIT_COLOR,
    }),
    "git branch": Program({
        **options(FLAG, "-a", "-r", "-v", "-l", "--all", "--remotes", "--verbose", "--list", "--show-current",
                  "--ignore-case", "--omit-empty"),
        **options(VALUE, "--contains", "--no-contains", "--merged", "--no-merged", "--sort", "--format",
                  "--points-at"),
        **options(OPTIONAL, "--column"),
        **GIT_COLOR,
    }, operands=branch_operands),
}
# Programs whose subcommands are programs of their own: one without an
# option list is refused rather than run with operands only.
SUBCOMMANDS = {"git"}
# git subcommands that get pathspecs leaving out what is protected.
GIT_READS_FILES = {"git status", "git log", "git diff"}


class Refusal(Exception):
    pass


class ShellExecTool(BaseTool):
    def __init__(self, config: dict):
        self.config = config
        self.settings = tool_settings(config, "shell_exec")

    def manifest(self) -> ToolManifest:
        allowed = ", ".join(self.whitelist())
        return ToolManifest(
            name="shell_exec",
            description=(
                "Run one allowlisted program on files inside the project (no shell: no pipes or "
                f"redirection; only the options Riverse allows for each program). Allowed: {allowed}"
            ),
            parameters={"command": "The command to run, e.g. git status"},
            examples=["Run git status", "List files in the current directory", "Count the lines of README.md"],
            parameter_types={"command": "string"},
        )

    def is_available(self) -> bool:
        return self.settings.get("enabled", False) is True

    def whitelist(self) -> list:
        listed = self.settings.get("whitelist")
        return [str(entry) for entry in listed] if isinstance(listed, list) else DEFAULT_WHITELIST

    def execute(self, params: dict) -> ToolResult:
        command = str(params.get("command") or "").strip()
        if not command:
            return ToolResult(success=False, data="", error="missing command")
        argv, refusal = self.check(command)
        if refusal:
            return ToolResult(success=False, data="", error=refusal)
        return self.run(argv)

    def check(self, command: str):
        """(argv, None) for a command that may run, else (None, why not)."""
        used = [token for token in SHELL_SYNTAX if token in command]
        if used:
            return None, f"refused: {' '.join(used)!r} — commands run without a shell, one program at a time"
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            return None, f"refused: can't split the command: {exc}"
        if not argv:
            return None, "missing command"
        prefix = next((entry.split() for entry in self.whitelist() if argv[: len(entry.split())] == entry.split()), None)
        if not prefix:
            return None, f"refused: {argv[0]!r} is not allowed; allowed: {', '.join(self.whitelist())}"
        scope = Scope(self.config, "shell_exec")
        try:
            return Checked(scope, argv, prefix).argv(), None
        except Refusal as refusal:
            return None, f"refused: {refusal}"

    def run(self, argv: list) -> ToolResult:
        # `timeout` is also the deadline Riverse gives this call: stop the
        # program a little before it, so it is killed with all it started
        # and the caller learns why, rather than losing the whole worker.
        deadline = float(self.settings.get("timeout", DEFAULT_TIMEOUT))
        timeout = round(max(0.1, deadline - min(1.0, deadline / 10)), 2)
        limit = int(self.settings.get("max_output_chars", DEFAULT_MAX_OUTPUT_CHARS))
        # Output goes to files, not pipes: a program that prints without end
        # costs disk up to the deadline, never this process's memory.
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            try:
                # A session of its own, so that the deadline kills all it
                # started; and killed with its worker, so that nothing it
                # runs outlives Riverse when Riverse is killed outright.
                process = subprocess.Popen(
                    argv, cwd=Scope(self.config, "shell_exec").project, stdin=subprocess.DEVNULL,
                    stdout=out, stderr=err, start_new_session=True, preexec_fn=die_with_parent(),
                )
            except OSError as exc:
                return ToolResult(success=False, data="", error=f"can't run {argv[0]}: {exc.strerror}")
            try:
                code = process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                return ToolResult(success=False, data="", error=f"{argv[0]} timed out after {timeout:g}s; it was killed")
            finally:
                try:
                    os.killpg(process.pid, signal.SIGKILL)  # anything it left behind
                except OSError:
                    pass
            stdout, stdout_cut = read_capped(out, limit)
            stderr, _ = read_capped(err, 500)
        if stdout_cut:
            stdout += f"\n[output truncated at {limit} characters]"
        if code != 0:
            return ToolResult(success=False, data=stdout, error=f"{argv[0]} exited with status {code}: {stderr}".strip())
        return ToolResult(success=True, data=stdout)


class Checked:
    """One command parsed against its program's option list; `argv()` is
    what runs, or Refusal says why it may not."""

    def __init__(self, scope: Scope, argv: list, prefix: list):
        self.scope = scope
        self.full = argv
        self.key, self.program = program_for(argv, prefix)
        self.start = len(self.key.split()) if self.program else len(prefix)
        self.given = set()
        self.options = []    # the arguments that are options, with their values
        self.operands = []
        # Operands written after `--`: paths, whether or not they exist now.
        self.after_dashes = []
        self.parse(argv[self.start:], prefix)

    def parse(self, args: list, prefix: list) -> None:
        index, after_dashes = 0, False
        while index < len(args):
            arg = args[index]
            index += 1
            if not after_dashes and self.program and self.program.words and arg in ("!", "(", ")"):
                self.options.append(arg)
                continue
            if after_dashes or not arg.startswith("-") or arg == "-":
                self.operands.append(arg)
                if after_dashes:
                    self.after_dashes.append(arg)
                continue
            if arg == "--":
                after_dashes = True
                continue
            if self.program is None:
                raise Refusal(
                    f"{self.key}: option {arg} is not allowed; shell_exec has no option list for {self.key}, "
                    f"so it takes only the options written in its whitelist entry (e.g. \"{' '.join(prefix)} -r\")"
                )
            taken = self.option(arg, args[index] if index < len(args) else None)
            index += taken
            self.options.extend(args[index - taken - 1: index])
        self.check_operands()

    def option(self, arg: str, following):
        """Checks one option argument; how many following arguments it took."""
        program, name = self.program, self.key
        if program.numeric and re.fullmatch(r"-\d+", arg):
            return 0
        if arg.startswith("--") or program.words:
            option, equals, value = arg.partition("=")
            kind = self.kind(option)
            self.given.add(option)
            if kind == FLAG:
                if equals:
                    raise Refusal(f"{name}: option {option} takes no value")
                return 0
            if kind == OPTIONAL:
                return self.value(option, kind, value) if equals else 0
            if equals:
                self.value(option, kind, value)
                return 0
            self.value(option, kind, following, separate=True)
            return 1
        for position, letter in enumerate(arg[1:], start=1):
            option = f"-{letter}"
            kind = self.kind(option)
            self.given.add(option)
            rest = arg[position + 1:]
            if kind == FLAG:
                continue
            if kind == OPTIONAL:
                if rest:
                    self.value(option, kind, rest)
                return 0
            if rest:
                self.value(option, kind, rest)
                return 0
            self.value(option, kind, following, separate=True)
            return 1
        return 0

    def kind(self, option: str) -> str:
        kind = self.program.allowed.get(option)
        if kind is None:
            raise Refusal(f"{self.key}: option {option} is not allowed")
        return kind

    def value(self, option: str, kind: str, value, separate=False) -> int:
        if value is None:
            raise Refusal(f"{self.key}: option {option} needs a value")
        if separate and value.startswith("-") and value != "-":
            # Whether the program takes it as this option's value or as an
            # option of its own depends on the program: give it attached.
            raise Refusal(f"{self.key}: option {option}'s value {value!r} looks like an option; write {option}=VALUE")
        if kind == PATH:
            self.path(value)
        return 0

    def check_operands(self) -> None:
        operands = list(self.operands)
        program = self.program
        if program and program.first_operand_is_value and operands and not self.given & {"-e", "--regexp", "-f", "--file"}:
            operands = operands[1:]
        rule = program.operands if program else PATH
        if callable(rule):
            refusal = rule(self.given, operands)
            if refusal:
                raise Refusal(refusal)
        elif rule == PATH:
            for operand in operands:
                if self.key in SUBCOMMANDS | GIT_READS_FILES and ":" in operand:
                    raise Refusal(f"{self.key}: {operand!r}: a revision:path or pathspec magic is not allowed")
                self.path(operand)

    def path(self, value: str) -> None:
        real = self.scope.resolve(value)
        try:
            info = os.stat(real)
        except OSError:
            info = None
        refusal = self.scope.refusal(value, real, info)
        if refusal is None and info is not None and is_regular(info):
            # A second link may be the same file as one outside (as for file_read).
            refusal = hard_link_refusal(self.scope, value, info, writing=False)
        if refusal:
            raise Refusal(refusal)

    def argv(self) -> list:
        if self.key not in GIT_READS_FILES:
            return self.full
        return git_argv(self.scope, self.full[: self.start], self.options, self.operands, self.after_dashes)


def program_for(argv: list, prefix: list):
    """The option list for `argv` (longest name first: `git log`), else
    (the whitelisted program's name, None)."""
    program = os.path.basename(argv[0])
    if len(argv) > 1 and f"{program} {argv[1]}" in PROGRAMS:
        return f"{program} {argv[1]}", PROGRAMS[f"{program} {argv[1]}"]
    if program in SUBCOMMANDS:
        sub = f"{program} {argv[1]}" if len(argv) > 1 else program
        raise Refusal(f"{sub}: shell_exec has no option list for it")
    if program in PROGRAMS:
        return program, PROGRAMS[program]
    return " ".join(prefix), None


def git_argv(scope: Scope, head: list, options: list, operands: list, given_as_paths: list) -> list:
    """git with every operand that names a file after `--`, and pathspecs
    that leave out the protected paths and secret files: git reads the
    repository itself, where a check of the arguments cannot see. An operand
    the caller put after `--` stays a path (a file since deleted has a log)."""
    revisions = [
        operand
        for operand in operands
        if operand not in given_as_paths and not os.path.lexists(os.path.join(scope.project, operand))
    ]
    paths = [operand for operand in operands if operand not in revisions]
    excluded = []
    for path, _reason in scope.protected:
        if path != scope.project and is_inside(path, scope.project):
            excluded.append(f":(exclude,icase){os.path.relpath(path, scope.project)}")
    excluded += [f":(exclude,icase,glob)**/{glob}" for glob in scope.secret_files]
    excluded += [f":(exclude,icase,glob)**/{glob}/**" for glob in scope.secret_files]
    return [*head, *options, *revisions, "--", *(paths or ["."]), *excluded]


def die_with_parent():
    """A preexec_fn that has the program killed when the worker that
    started it dies (Linux); None where prctl is not there."""
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None

    def preexec() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)

    return preexec


def read_capped(file, limit: int):
    file.seek(0)
    text = file.read(limit * 4 + 4).decode("utf-8", "replace")
    return text[:limit].strip(), len(text) > limit
