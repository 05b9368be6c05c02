"""shell_exec: one allowlisted program, run without a shell, on files inside
the allowed directories. Off unless settings.yaml says `tools.shell_exec.enabled: true`.

    tools:
      shell_exec:
        enabled: true
        whitelist: ["ls", "cat", "git status"]   # programs (with leading arguments) that may run
        allowed_dirs: ["."]                      # where file arguments may point
        timeout: 30                              # the call's deadline in seconds
        max_output_chars: 4000
"""

import os
import shlex
import signal
import subprocess
import tempfile

from agent.tools import BaseTool, ToolManifest, ToolResult
from agent.tools._paths import PROJECT_DIR, contain, tool_settings


DEFAULT_WHITELIST = [
    "ls", "cat", "head", "tail", "wc", "grep", "date", "pwd",
    "git status", "git log", "git diff", "git branch",
]
DEFAULT_TIMEOUT = 30
DEFAULT_MAX_OUTPUT_CHARS = 4000
# No shell runs the command, so these would be plain arguments; refusing them
# says so instead of silently doing something else than the caller expects.
SHELL_SYNTAX = (";", "|", "&", "`", "$", ">", "<", "\n")
# Options that make an allowlisted program write, delete or run other programs.
FORBIDDEN_OPTIONS = {
    "find": {"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"},
    "git": {"-c", "--exec-path", "--output", "--ext-diff", "--upload-pack"},
}


class ShellExecTool(BaseTool):
    def __init__(self, config: dict):
        self.config = config
        self.settings = tool_settings(config, "shell_exec")

    def manifest(self) -> ToolManifest:
        allowed = ", ".join(self.whitelist())
        return ToolManifest(
            name="shell_exec",
            description=f"Run one read-only command (no pipes or redirection). Allowed: {allowed}",
            parameters={"command": "The command to run, e.g. git status"},
            examples=["Run git status", "List files in the current directory", "Count the lines of README.md"],
            parameter_types={"command": "string"},
        )

    def is_available(self) -> bool:
        return self.settings.get("enabled", False) is True

    def whitelist(self) -> list[str]:
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
        prefix = next((entry.split() for entry in self.whitelist() if argv[: len(entry.split())] == entry.split()), None)
        if not prefix:
            return None, f"refused: {argv[0]!r} is not allowed; allowed: {', '.join(self.whitelist())}"
        forbidden = FORBIDDEN_OPTIONS.get(os.path.basename(argv[0]), set())
        for arg in argv[len(prefix):]:
            if arg.split("=", 1)[0] in forbidden:
                return None, f"refused: {arg.split('=', 1)[0]} is not allowed with {argv[0]}"
            for path in path_candidates(arg):
                _, refusal = contain(path, self.settings)
                if refusal:
                    return None, f"refused: {refusal}"
        return argv, None

    def run(self, argv: list[str]) -> ToolResult:
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
                process = subprocess.Popen(
                    argv, cwd=PROJECT_DIR, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                    start_new_session=True,
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


def read_capped(file, limit: int):
    file.seek(0)
    text = file.read(limit * 4 + 4).decode("utf-8", "replace")
    return text[:limit].strip(), len(text) > limit


def path_candidates(arg: str) -> list[str]:
    """The parts of an argument that may name a file: a bare word that has a
    slash, starts with `~` or `.`, or exists; an option's value after `=`;
    a short option's attached value with a slash."""
    if arg.startswith("--"):
        return [arg.split("=", 1)[1]] if "=" in arg and arg.split("=", 1)[1] else []
    if arg.startswith("-"):
        attached = arg[2:]
        return [attached] if "/" in attached else []
    if "/" in arg or arg.startswith(("~", ".")) or os.path.lexists(os.path.join(PROJECT_DIR, arg)):
        return [arg]
    return []
