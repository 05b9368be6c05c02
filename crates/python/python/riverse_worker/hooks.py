"""Hooks: the `agent.hooks` module the hook files import, and a hook
worker's discovery, which serves each `Hook` subclass as a tool named
`FILE:CLASS` whose call takes `{"phase", "call", "result"}` and answers with
the hook's decision as JSON in `data`."""

from __future__ import annotations

import importlib
import json
import os
import sys
import types

from .contract import ToolResult
from .discovery import import_failure, tool_files
from .errors import describe, error_info, locate
from .outcome import outcome


class Hook:
    """A hook: subclass it in a file of `agent/hooks/` and define
    `before_call`, `after_call` or both. `self.config` is the settings."""

    def __init__(self, config=None):
        self.config = config if isinstance(config, dict) else {}

    def before_call(self, call):
        """None to go on, `Deny(reason)`, `Ask(reason)` or `Rewrite(params)`."""
        return None

    def after_call(self, call, result):
        """None to keep `result`, or the `ToolResult` to give instead."""
        return None


class Deny:
    """Refuse the call; the LLM reads `reason`."""

    def __init__(self, reason: str):
        self.reason = str(reason)


class Ask:
    """Ask the person behind the front end first, showing `reason`, the way
    `approval: ask` does."""

    def __init__(self, reason: str):
        self.reason = str(reason)


class Rewrite:
    """Run the call with `params` instead: checked again against the tool's
    parameters."""

    def __init__(self, params: dict):
        self.params = params


class Call:
    """A call as hooks see it."""

    def __init__(self, shown: dict):
        self.tool = shown.get("tool")
        self.source = shown.get("source")
        self.params = shown.get("params") or {}
        self.front_end = shown.get("front_end")
        self.conversation = shown.get("conversation")
        self.annotations = shown.get("annotations")

    def __repr__(self) -> str:
        return f"Call(tool={self.tool!r}, source={self.source!r}, params={self.params!r})"


EXPORTED = ("Hook", "Deny", "Ask", "Rewrite", "Call", "ToolResult")


def install_hooks_shim(hooks_dir: str) -> None:
    """Makes `agent.hooks` importable, its package path on the hooks
    directory, beside `agent.tools` (for `ToolResult` and helpers there)."""
    from .shim import install_shim

    install_shim(os.path.join(os.path.dirname(hooks_dir), "tools"))
    agent = sys.modules["agent"]
    hooks = types.ModuleType("agent.hooks", "Riverse hooks")
    hooks.__path__ = [hooks_dir]
    hooks.__package__ = "agent.hooks"
    for name in EXPORTED:
        setattr(hooks, name, globals()[name])
    hooks.__all__ = list(EXPORTED)
    agent.hooks = hooks
    sys.modules["agent.hooks"] = hooks


class HookDiscovery:
    """Imports every hook file once, in file-name order, and serves each of
    its `Hook` subclasses as a tool (see `HookTool`)."""

    def __init__(self, hooks_dir: str, config: dict, skip: list[str], announce, rules=None):
        self.tools_dir = os.path.abspath(hooks_dir)
        self.config = config if isinstance(config, dict) else {}
        self.tools: dict[str, HookTool] = {}
        self.manifests: dict[str, dict] = {}
        self.files = []
        install_hooks_shim(self.tools_dir)
        for file in tool_files(self.tools_dir):
            if file in skip:
                self.files.append({"file": file, "fate": "skipped", "classes": []})
                continue
            announce(file)
            self.files.append(self.load_file(file, rules))

    def tool(self, name: str):
        return self.tools.get(name)

    def call(self, name: str, arguments: dict) -> dict:
        """One hook's phase, as a call's outcome. A hook's answer is always
        a decision (its failures among them), so none of a tool call's
        checks of what `execute` returned is needed."""
        tool = self.tools.get(name)
        if tool is None:
            return outcome(False, "", f'unknown hook "{name}"')
        return outcome(True, tool.answer(arguments), "")

    def load_file(self, file: str, rules) -> dict:
        module_name = "agent.hooks." + file[:-3]
        try:
            module = importlib.import_module(module_name)
        except BaseException as exc:  # noqa: BLE001 - a hook file may raise anything
            return import_failure(file, module_name, exc, self.tools_dir, rules)
        defined = [
            obj
            for obj in list(vars(module).values())
            if isinstance(obj, type) and issubclass(obj, Hook) and obj is not Hook and obj.__module__ == module_name
        ]
        return {"file": file, "fate": "imported", "classes": [self.load_class(cls, file) for cls in defined]}

    def load_class(self, cls: type, file: str) -> dict:
        name = f"{file}:{cls.__name__}"
        entry = {"class": cls.__name__, "manifest": None, "available": False, "error": None}
        try:
            hook = cls(self.config)
        except BaseException as exc:  # noqa: BLE001
            entry["error"] = error_info(f"{cls.__name__}.__init__() raised {describe(exc)}", exc, self.tools_dir, file)
            return entry
        entry["manifest"] = {
            "name": name,
            "description": (cls.__doc__ or "").strip(),
            "before": cls.before_call is not Hook.before_call,
            "after": cls.after_call is not Hook.after_call,
        }
        entry["available"] = True
        self.tools[name] = HookTool(hook, self.tools_dir)
        self.manifests[name] = entry["manifest"]
        return entry


class HookTool:
    """One hook as a tool of the hook worker: `execute` runs the phase asked
    and answers with the decision, a failure of the hook among them."""

    def __init__(self, hook: Hook, tools_dir: str):
        self.hook = hook
        self.tools_dir = tools_dir

    def execute(self, arguments: dict) -> ToolResult:
        return ToolResult(True, self.answer(arguments))

    def answer(self, arguments: dict) -> str:
        """The decision of the phase asked, as JSON text."""
        phase = arguments.get("phase")
        method = "before_call" if phase == "before" else "after_call"
        call = Call(arguments.get("call") or {})
        try:
            if phase == "before":
                returned = self.hook.before_call(call)
                if returned is None:
                    return GO
                decision = before_decision(returned)
            else:
                shown = arguments.get("result") or {}
                result = ToolResult(
                    bool(shown.get("success")),
                    str(shown.get("data") or ""),
                    str(shown.get("error") or ""),
                    structured=shown.get("structured"),
                )
                returned = self.hook.after_call(call, result)
                if returned is None:
                    return KEEP
                decision = after_decision(returned)
            return json.dumps(decision)
        except BaseException as exc:  # noqa: BLE001 - a hook may raise anything
            where, line = locate(exc, self.tools_dir)
            at = f" ({where}:{line})" if where else ""
            reason = f"{type(self.hook).__name__}.{method}() raised {describe(exc)}{at}"
            return json.dumps({"decision": "error", "reason": reason})


# The answers of nearly every call, written once.
GO = json.dumps({"decision": "go"})
KEEP = json.dumps({"decision": "keep"})


def before_decision(returned) -> dict:
    if returned is None:
        return {"decision": "go"}
    if isinstance(returned, Deny):
        return {"decision": "deny", "reason": returned.reason}
    if isinstance(returned, Ask):
        return {"decision": "ask", "reason": returned.reason}
    if isinstance(returned, Rewrite):
        if not isinstance(returned.params, dict):
            raise TypeError(f"Rewrite(params) takes a dict, not {type(returned.params).__name__}")
        return {"decision": "rewrite", "params": returned.params}
    raise TypeError(f"returned {type(returned).__name__}, expected None, Deny(reason), Ask(reason) or Rewrite(params)")


def after_decision(returned) -> dict:
    if returned is None:
        return {"decision": "keep"}
    if not isinstance(returned, ToolResult):
        raise TypeError(f"returned {type(returned).__name__}, expected None or a ToolResult")
    success, data, error = returned.success, returned.data, returned.error
    if type(success) is not bool or not isinstance(data, str) or not isinstance(error, str):
        raise TypeError("returned a ToolResult whose success is not a bool, or data or error not text")
    result = {"success": success, "data": str.__str__(data), "error": str.__str__(error)}
    if returned.structured is not None:
        result["structured"] = returned.structured
    return {"decision": "replace", "result": result}
