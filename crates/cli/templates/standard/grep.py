"""grep: a regular expression searched in files inside the allowed directories.

The search runs in a child process with a time budget (`search_timeout`,
default 10 s, always under the call's deadline): a pattern that backtracks
without end (`(a+)+$`) or a slow file system costs that budget, and the call
then fails saying so, rather than holding a worker until the deadline.
Symlinks inside the tree are not followed (as `grep -r`), and only regular
files are read: a FIFO, socket or device is skipped.

    tools:
      grep: {allowed_dirs: ["."], search_timeout: 10}
"""

import fnmatch
import json
import os
import re
import select
import signal
import stat
import time

from agent.tools import BaseTool, ToolManifest, ToolResult
from agent.tools._paths import (
    NotFound, Refused, Scope, hard_link_refusal, open_path, tool_settings, visible_entries,
)


MAX_LINES = 100
DEFAULT_SEARCH_TIMEOUT = 10.0
# Lines longer than this (in bytes) are searched in their first part only.
MAX_LINE_CHARS = 10_000
PR_SET_PDEATHSIG = 1


class GrepTool(BaseTool):
    def __init__(self, config: dict):
        self.config = config
        self.settings = tool_settings(config, "grep")

    def manifest(self) -> ToolManifest:
        return ToolManifest(
            name="grep",
            description=(
                "Search for a regex pattern across files. "
                "Returns matching lines in `file:line_number: content` format, at most 100."
            ),
            parameters={
                "pattern": "Regular expression pattern to search for (required)",
                "path": "Directory or file to search in (default: the project directory)",
                "file_glob": "Glob pattern for the files to search (default: * — all files), e.g. '*.py'",
            },
            examples=["find all TODO comments across the project", "search for 'def run' in *.py files under src/"],
            parameter_types={"pattern": "string", "path": "string", "file_glob": "string"},
        )

    def is_available(self) -> bool:
        return self.settings.get("enabled", True)

    def execute(self, params: dict) -> ToolResult:
        pattern = str(params.get("pattern") or "").strip()
        path = str(params.get("path") or ".").strip() or "."
        file_glob = str(params.get("file_glob") or "*").strip() or "*"
        if not pattern:
            return ToolResult(success=False, data="", error="missing pattern")
        try:
            regex = re.compile(pattern)
        except re.error as exc:
            return ToolResult(success=False, data="", error=f"invalid regular expression: {exc}")
        scope = Scope(self.config, "grep")
        try:
            opened = open_path(scope, path, os.O_RDONLY | os.O_NONBLOCK)
        except Refused as refusal:
            return ToolResult(success=False, data="", error=str(refusal))
        except NotFound:
            return ToolResult(success=False, data="", error=f"path not found: {path}")
        try:
            outcome = self.search_with_budget(scope, opened, path, regex, file_glob)
        finally:
            os.close(opened.fd)
        if "error" in outcome:
            return ToolResult(success=False, data="", error=outcome["error"])
        matches = outcome["matches"]
        if not matches:
            return ToolResult(success=True, data=f"No matches found for pattern '{pattern}'")
        output = "\n".join(matches)
        if outcome["truncated"]:
            output += f"\n\n[output truncated at {MAX_LINES} lines]"
        return ToolResult(success=True, data=output)

    def budget(self) -> float:
        deadline = float(self.settings.get("timeout", 30))
        wanted = float(self.settings.get("search_timeout", DEFAULT_SEARCH_TIMEOUT))
        return max(0.1, min(wanted, deadline - min(1.0, deadline / 10)))

    def search_with_budget(self, scope, opened, path, regex, file_glob) -> dict:
        """`search` in a forked child that answers through a pipe, killed at
        the budget: Python's `re` cannot be interrupted from outside."""
        budget = self.budget()
        reader, writer = os.pipe()
        pid = os.fork()
        if pid == 0:
            answer_from_child(writer, lambda: search(scope, opened, path, regex, file_glob))
        os.close(writer)
        try:
            text = read_until(reader, time.monotonic() + budget)
        finally:
            os.close(reader)
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
            os.waitpid(pid, 0)
        if text is None:
            return {"error": f"grep: the search took longer than {budget:g}s and was stopped; "
                             "narrow the path or simplify the pattern (nested repeats such as (a+)+ backtrack without end)"}
        try:
            return json.loads(text)
        except ValueError:
            return {"error": "grep: the search stopped before it finished"}


def answer_from_child(writer: int, work) -> None:
    """In the forked child: do `work`, write its JSON to `writer`, and exit
    without running anything the parent set up (atexit, buffers)."""
    code = 0
    try:
        die_with_parent()
        data = json.dumps(work()).encode()
        while data:
            data = data[os.write(writer, data):]
    except BaseException:  # noqa: BLE001 - nothing may escape a forked child
        code = 1
    os._exit(code)


def die_with_parent() -> None:
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def read_until(reader: int, deadline: float):
    """Everything written to `reader` until its end, or None at `deadline`."""
    chunks = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([reader], [], [], left)
        if not ready:
            return None
        chunk = os.read(reader, 65536)
        if not chunk:
            return b"".join(chunks).decode()
        chunks.append(chunk)


def search(scope, opened, path, regex, file_glob) -> dict:
    matches = []
    if stat.S_ISDIR(opened.info.st_mode):
        for shown, fd in tree_files(scope, opened.fd, opened.real, "", file_glob):
            if search_file(scope, fd, shown, regex, matches):
                break
    elif stat.S_ISREG(opened.info.st_mode) and hard_link_refusal(scope, path, opened.info, writing=False) is None:
        search_file(scope, os.dup(opened.fd), path, regex, matches)
    return {"matches": matches[:MAX_LINES], "truncated": len(matches) > MAX_LINES}


def tree_files(scope, dir_fd: int, real: str, shown: str, file_glob: str):
    """(name shown, open fd) for each regular file under the directory
    `dir_fd`, by name, walked through descriptors; symlinks, protected
    entries and anything but directories and regular files are skipped."""
    for entry, child_real, info in visible_entries(scope, dir_fd, real):
        child_shown = os.path.join(shown, entry.name) if shown else entry.name
        if stat.S_ISDIR(info.st_mode):
            try:
                child = os.open(entry.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
            except OSError:
                continue
            try:
                yield from tree_files(scope, child, child_real, child_shown, file_glob)
            finally:
                os.close(child)
        elif stat.S_ISREG(info.st_mode) and fnmatch.fnmatch(entry.name, file_glob):
            try:
                fd = os.open(entry.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
            except OSError:
                continue
            yield child_shown, fd


def search_file(scope, fd: int, shown: str, regex, matches: list) -> bool:
    """Adds the file's matching lines; True once there are more than enough.
    Checks the opened file again: it may have been swapped since it was listed."""
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or scope.protected_ids.get((info.st_dev, info.st_ino)):
            return False
        if hard_link_refusal(scope, shown, info, writing=False):
            return False
        for number, raw in enumerate(bounded_lines(handle), start=1):
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            if regex.search(line):
                matches.append(f"{shown}:{number}: {line.rstrip()}")
                if len(matches) > MAX_LINES:
                    return True
    return False


def bounded_lines(handle):
    """The file's lines, each cut at MAX_LINE_CHARS bytes: a file that is one
    endless line is read in steps, never held whole."""
    while True:
        line = handle.readline(MAX_LINE_CHARS)
        if not line:
            return
        if len(line) == MAX_LINE_CHARS and not line.endswith(b"\n"):
            rest = line
            while rest and not rest.endswith(b"\n"):
                rest = handle.readline(MAX_LINE_CHARS)
        yield line
