"""Failures, located in the tool files: where an exception happened, in
words, with its traceback."""

from __future__ import annotations

import os
import sys


class ToolError(Exception):
    """A tool broke the contract (a wrong type, a bad manifest)."""


def locate(exc: BaseException, tools_dir: str) -> tuple[str | None, int | None]:
    """The innermost place in the tools directory where `exc` happened."""
    import traceback  # here, not at the top: see format_traceback

    if isinstance(exc, SyntaxError) and exc.filename:
        where = relative(exc.filename, tools_dir)
        if where:
            return where, exc.lineno
    found = (None, None)
    for frame in traceback.extract_tb(exc.__traceback__):
        where = relative(frame.filename, tools_dir)
        if where:
            found = (where, frame.lineno)
    return found


def relative(path: str, tools_dir: str) -> str | None:
    """`path` relative to `tools_dir`; None when it is not beneath it."""
    try:
        rel = os.path.relpath(os.path.abspath(path), tools_dir)
    except ValueError:
        return None
    return None if rel.startswith("..") else rel


def error_info(message: str, exc: BaseException | None, tools_dir: str, file: str | None = None) -> dict:
    """A `WorkerError` as the host reads it: `message`, where in the tool
    files `exc` happened (else `file`), and its traceback."""
    info = {"message": message, "file": file, "line": None}
    if exc is not None:
        where, line = locate(exc, tools_dir)
        if where:
            info["file"], info["line"] = where, line
        info["traceback"] = format_traceback(exc)
    return info


def format_traceback(exc: BaseException) -> str:
    # Imported on the first failure: at the top it would cost every worker
    # start about a millisecond, before any tool runs.
    import traceback

    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


def describe(exc: BaseException) -> str:
    """`exc` in one line: its type and its message."""
    if type(exc) is SyntaxError:
        return str(exc.msg)
    if isinstance(exc, SyntaxError):
        return f"{type(exc).__name__}: {exc.msg}"
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def method_line(method, tools_dir: str) -> int | None:
    """The line of `method`'s `def`, when it is in a tool file."""
    code = getattr(method, "__code__", None)
    if code is None or relative(code.co_filename, tools_dir) is None:
        return None
    return code.co_firstlineno


def tool_file(tool, tools_dir: str) -> str | None:
    """The tool file that defines `tool`'s class, relative to `tools_dir`."""
    module = sys.modules.get(type(tool).__module__)
    path = getattr(module, "__file__", None)
    return relative(path, tools_dir) if path else None
