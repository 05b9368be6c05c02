"""One call: the tool run, and what it returned checked against the
contract; every failure an outcome that says what to write instead."""

from __future__ import annotations

import sys

from .contract import ToolResult
from .discovery import InstantiationFailed
from .errors import describe, format_traceback, locate, method_line, relative, tool_file
from .outcome import LIMITS, ContentError, encode_content, outcome, structured_problem


def call_tool(discovery, name: str, arguments: dict, rules=None) -> dict:
    """One call on a `Discovery` or `LazyTools`, in the sandbox whose
    `rules` are given, if any."""
    tool = None
    if rules is not None:
        rules.begin_call()
    try:
        tool = discovery.tool(name)
        if tool is None:
            return outcome(False, "", f'unknown tool "{name}"')
        result, returned_at = run_execute(tool, arguments)
    except InstantiationFailed as failed:
        return raised(str(failed), failed.__cause__, discovery.tools_dir)
    except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt too
        # Before the traceback is formatted: that opens source files, which
        # the sandbox's audit hook would take for the open that failed.
        breach = rules.breach(exc) if rules is not None else None
        failed = raised(f"execute() raised {describe(exc)}", exc, discovery.tools_dir)
        if rules is not None:
            failed["error"] = rules.explain(failed["error"], name, breach)
        file = tool_file(tool, discovery.tools_dir) if tool is not None else None
        from .import_hints import missing_module_hint  # on a failure only

        hint = missing_module_hint(exc, discovery.tools_dir, file)
        if hint:
            failed["error"] += "\n" + hint
        return failed
    finally:
        sys.stdout.flush()
    try:
        return returned(result, tool, returned_at, discovery.tools_dir, name, rules)
    finally:
        # The frame `execute` ran in links back to this one: held here as
        # this frame ends, the two would make a cycle that only the garbage
        # collector frees, a collection every few dozen calls.
        returned_at = None


def returned(result, tool, returned_at, tools_dir: str, name: str, rules) -> dict:
    """The outcome of a call whose `execute` returned `result`."""
    if type(result) is ToolResult and not result.content and result.structured is None:
        # Nearly every call: a plain ToolResult of text, whose fields are
        # plain attributes, read once.
        success, data, error = result.success, result.data, result.error
        if type(success) is bool and type(data) is str and type(error) is str:
            if rules is not None:
                data, error = rules.explain_result(success, data, error, name)
            return outcome(success, data, error)
    if not isinstance(result, ToolResult):
        kind = "None" if result is None else type(result).__name__
        at = return_place(tool, returned_at, tools_dir)
        return outcome(False, "", f"execute() returned {kind}, expected ToolResult{at}\n{result_fix(None, result)}")
    # Each field is read once: a property may answer differently every time.
    field = "success"
    try:
        success = result.success
        field = "data"
        data = result.data
        field = "error"
        error = result.error
        field = "structured"
        structured = getattr(result, "structured", None)
    except BaseException as exc:  # noqa: BLE001 - a property may raise anything
        return outcome(False, "", f"execute() returned a ToolResult whose {field} raised {describe(exc)}")
    try:
        blocks, left_out = encode_content(getattr(result, "content", None), LIMITS.max_content_bytes)
    except ContentError as exc:
        return outcome(False, "", f"execute() returned a ToolResult whose {exc}")
    problem = structured_problem(structured, LIMITS.max_output_bytes) if structured is not None else None
    if problem:
        at = return_place(tool, returned_at, tools_dir)
        return outcome(False, "", f"execute() returned a ToolResult whose {problem}{at}")
    if type(success) is bool and isinstance(data, str) and isinstance(error, str):
        # A str subclass (bs4's NavigableString) as the characters it holds:
        # `str()` would call the subclass's own `__str__`.
        data, error = str.__str__(data), str.__str__(error)
        if rules is not None:
            data, error = rules.explain_result(success, data, error, name)
        return outcome(success, data, error, content=blocks, left_out=left_out, structured=structured)
    for field, value, kind in (("success", success, bool), ("data", data, str), ("error", error, str)):
        if not isinstance(value, kind):
            break
    at = return_place(tool, returned_at, tools_dir)
    return outcome(
        False,
        "",
        f"execute() returned a ToolResult whose {field} is {type(value).__name__}, "
        f"expected {kind.__name__}{at}\n{result_fix(field, value)}",
    )


# The frame `first_frame` saw: set and taken back by `run_execute`, which
# runs one call at a time (a profile function is the thread's own).
FIRST_FRAME: list = []


def first_frame(frame, event, _arg) -> None:
    """A profile function that keeps the first Python frame called and
    removes itself there."""
    if event == "call":
        FIRST_FRAME.append(frame)
        sys.setprofile(None)


def run_execute(tool, arguments):
    """`tool.execute(arguments)`, and the frame it ran in, ended: where its
    `return` was (or the last statement run, when it fell off its end), for
    an error about the result to point at (see `return_place`).

    A profile function that removes itself at the first Python frame costs
    the call one event, where tracing all of it would slow every tool down.
    It is made once, not at every call, and nothing is read from the frame
    unless the result is wrong: in a sandboxed worker each `setprofile` and
    each read of a frame's code is an audit event, which the sandbox's hook
    would see at every call."""
    if sys.getprofile() is not None:
        return run_execute_under(sys.getprofile(), tool, arguments)
    sys.setprofile(first_frame)
    try:
        result = tool.execute(arguments)
    except BaseException:
        FIRST_FRAME.clear()
        raise
    finally:
        # Already removed at the first frame, unless `execute` ran no
        # Python code.
        if sys.getprofile() is first_frame:
            sys.setprofile(None)
    # The frame keeps the call's locals until the call's outcome is made,
    # before its reply is written. It is taken back without a name here:
    # its link back to this frame would make a cycle with it (see
    # `call_tool`).
    return result, (FIRST_FRAME.pop() if FIRST_FRAME else None)


def run_execute_under(previous, tool, arguments):
    """`run_execute` where a profile function is set already (a profiler's,
    a debugger's): it is put back at the first frame."""
    frames = []

    def first(frame, event, _arg):
        if event == "call":
            frames.append(frame)
            sys.setprofile(previous)

    sys.setprofile(first)
    try:
        result = tool.execute(arguments)
    finally:
        if sys.getprofile() is first:
            sys.setprofile(previous)
    return result, (frames.pop() if frames else None)


def return_place(tool, returned_at, tools_dir: str) -> str:
    """` (file:line)` of the `return` that ended `execute`, or of its `def`
    when that frame is not in a tool file (a decorator's, a C method)."""
    if returned_at is not None:
        where = relative(returned_at.f_code.co_filename, tools_dir)
        if where and returned_at.f_lineno:
            return f" ({where}:{returned_at.f_lineno})"
    import inspect  # on a failure only: every worker start would pay for it at the top

    try:
        execute = inspect.unwrap(type(tool).execute)
    except (AttributeError, ValueError):
        return ""
    line = method_line(execute, tools_dir)
    where = relative(execute.__code__.co_filename, tools_dir) if line else None
    return f" ({where}:{line})" if where else ""


def result_fix(field: str | None, value) -> str:
    """What to write instead of a result that breaks the contract: `value`
    returned by `execute` when `field` is None, else a field of its
    ToolResult."""
    if field is None:
        if value is None:
            return 'end execute() with return ToolResult(True, text), or ToolResult(False, "", error) when it failed'
        if isinstance(value, str):
            return "wrap the text: return ToolResult(True, text)"
        if isinstance(value, tuple):
            return "return ToolResult(success, data) rather than a tuple"
        return f"wrap it as text: return ToolResult(True, {as_text(value)})"
    if field == "success":
        return "pass True or False: ToolResult(True, data)"
    if field == "data":
        return f"pass it as text: ToolResult(True, {as_text(value)})"
    return f'pass it as text: ToolResult(False, "", {as_text(value)})'


def as_text(value) -> str:
    """The call that makes text of `value`, applied to `...`."""
    if isinstance(value, (dict, list)):
        return "json.dumps(...)"
    if isinstance(value, (bytes, bytearray)):
        return 'str(..., "utf-8")'
    return "str(...)"


def raised(message: str, exc: BaseException, tools_dir: str) -> dict:
    """The outcome of a call whose tool raised `exc`: `message`, with where in
    the tool files it was raised, and the traceback."""
    where, line = locate(exc, tools_dir)
    at = f" ({where}:{line})" if where else ""
    return outcome(False, "", message + at, format_traceback(exc))
