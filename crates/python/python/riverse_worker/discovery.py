"""Discovery: every tool file imported once, and the tools it defines
instantiated and checked; or, in a forked worker, each tool instantiated at
its first call from the classes its fork server found."""

from __future__ import annotations

import importlib
import os
import sys

from .bytecode import keep_tool_bytecode
from .contract import BaseTool
from .errors import ToolError, describe, error_info, method_line
from .manifest import manifest_dict
from .shim import install_shim


class Discovery:
    """Imports every tool file once and keeps the tools that may be called;
    `rules`, the sandbox's, say which of them an import broke."""

    def __init__(self, tools_dir: str, config: dict, skip: list[str], announce, rules=None):
        self.tools_dir = os.path.abspath(tools_dir)
        self.rules = rules
        self.config = config if isinstance(config, dict) else {}
        self.tools: dict[str, BaseTool] = {}
        self.manifests: dict[str, dict] = {}
        self.files = []
        install_shim(self.tools_dir)
        keep_tool_bytecode(self.tools_dir, rules is not None)
        for file in tool_files(self.tools_dir):
            if file in skip:
                self.files.append({"file": file, "fate": "skipped", "classes": []})
                continue
            announce(file)
            self.files.append(self.load_file(file))

    def tool(self, name: str) -> BaseTool | None:
        return self.tools.get(name)

    def load_file(self, file: str) -> dict:
        module_name = "agent.tools." + file[:-3]
        failed = IMPORT_FAILURES.get(file)
        if failed is not None:
            return failed  # the fork server's import failed: no second try
        try:
            module = importlib.import_module(module_name)
        except BaseException as exc:  # noqa: BLE001 - a tool file may raise anything
            return import_failure(file, module_name, exc, self.tools_dir, self.rules)
        defined = DEFINED_CLASSES.get(file)
        if defined is None:
            defined = defined_tool_classes(module, module_name)
        concrete = [cls for cls in defined if not getattr(cls, "__abstractmethods__", None)]
        if defined and not concrete:
            missing = ", ".join(sorted(defined[-1].__abstractmethods__))
            message = f"no tool: class {defined[-1].__name__} is abstract; it lacks {missing}"
            error = {"message": message, "file": file, "line": None}
            return {"file": file, "fate": "failed", "error": error, "classes": []}
        classes = [self.load_class(cls, file) for cls in concrete]
        return {"file": file, "fate": "imported", "classes": classes}

    def load_class(self, cls: type, file: str) -> dict:
        entry = {"class": cls.__name__, "manifest": None, "available": False, "error": None}
        stage = "__init__()"
        try:
            tool = cls(self.config)
            stage = "manifest()"
            manifest = manifest_dict(tool.manifest())
            entry["manifest"] = manifest
            stage = "is_available()"
            # Truthiness, as a plain `if tool.is_available():` would judge it:
            # returning an API key or None is common and works elsewhere.
            available = bool(tool.is_available())
        except BaseException as exc:  # noqa: BLE001
            what = f"{cls.__name__}.{stage}"
            message = f"{what} {exc}" if isinstance(exc, ToolError) else f"{what} raised {describe(exc)}"
            entry["error"] = error_info(message, exc, self.tools_dir, file)
            if isinstance(exc, ToolError) and entry["error"]["line"] is None:
                # The contract was broken by what the method returned: point
                # at the method, since no line of the tool file raised.
                entry["error"]["line"] = method_line(getattr(cls, stage[:-2], None), self.tools_dir)
            return entry
        name = manifest["name"]
        settings = tool_settings(self.config, name)
        entry["available"] = available and settings.get("enabled", True) is not False
        if entry["available"] and name not in self.tools:
            self.tools[name] = tool
            self.manifests[name] = manifest
        return entry


def import_failure(file: str, module_name: str, exc: BaseException, tools_dir: str, rules) -> dict:
    sys.modules.pop(module_name, None)
    breach = rules.breach(exc) if rules is not None else None
    kind = "syntax error" if isinstance(exc, SyntaxError) else "import failed"
    message = f"{kind}: {describe(exc)}"
    if breach:
        message = f"{breach[0]} ({message})"
    error = error_info(message, exc, tools_dir, file)
    # The settings line that allows the breach: the file's tools are not
    # known yet, so it widens the sandbox that imported it.
    if breach:
        hint = rules.allowing(None, [breach])
    else:
        from .import_hints import missing_module_hint  # on a failure only

        hint = missing_module_hint(exc, tools_dir, file)
    if hint:
        error["hint"] = hint
    return {"file": file, "fate": "failed", "error": error, "classes": []}


class LazyTools:
    """A forked worker's tools: the fork server imported the files and an
    earlier worker's discovery found which class is which tool, so each tool
    is instantiated at its first call. A worker that instantiated all 200
    tools of a large project at start-up would spend most of its start on it,
    and write to pages it shares with the fork server. Only a forked worker
    is given them: a class is looked up among those its fork server found."""

    def __init__(self, tools_dir: str, config: dict, classes: dict):
        self.tools_dir = os.path.abspath(tools_dir)
        self.config = config if isinstance(config, dict) else {}
        self.classes = classes
        self.tools: dict[str, BaseTool] = {}
        install_shim(self.tools_dir)

    def tool(self, name: str) -> BaseTool | None:
        tool = self.tools.get(name)
        if tool is None:
            cls = self.tool_class(name)
            if cls is None:
                return None
            try:
                tool = cls(self.config)
            except BaseException as exc:  # noqa: BLE001 - a tool may raise anything
                raise InstantiationFailed(f"{cls.__name__}.__init__() raised {describe(exc)}") from exc
            self.tools[name] = tool
        return tool

    def tool_class(self, name: str) -> type | None:
        """The class of tool `name`, among those the fork server found."""
        where = self.classes.get(name)
        if not isinstance(where, dict):
            return None
        defined = DEFINED_CLASSES.get(where.get("file"), [])
        return next((cls for cls in defined if cls.__name__ == where.get("class")), None)


class InstantiationFailed(Exception):
    """A tool's `__init__` raised when a lazy worker first called it; the
    cause is the exception it raised."""


# In a fork server and the workers it forks: each file whose import failed,
# with its report, so a forked worker reports it without importing it again.
IMPORT_FAILURES: dict[str, dict] = {}
# In a fork server and the workers it forks: the tool classes each imported
# file defines. Found once, in the fork server: `issubclass` against an
# abstract class costs more than everything else a worker does per file.
DEFINED_CLASSES: dict[str, list[type]] = {}


def preload(tools_dir: str, skip: list[str], announce, rules) -> str | None:
    """Imports every tool file and instantiates nothing (the fork server's
    part of discovery); the name of the first file after whose import a
    thread was running (a Python thread or a native library's), since
    threads do not survive a fork."""
    tools_dir = os.path.abspath(tools_dir)
    install_shim(tools_dir)
    threaded = None
    for file in tool_files(tools_dir):
        if file in skip:
            continue
        announce(file)
        module_name = "agent.tools." + file[:-3]
        try:
            module = importlib.import_module(module_name)
            DEFINED_CLASSES[file] = defined_tool_classes(module, module_name)
        except BaseException as exc:  # noqa: BLE001 - a tool file may raise anything
            IMPORT_FAILURES[file] = import_failure(file, module_name, exc, tools_dir, rules)
        if threaded is None and thread_count() > 1:
            threaded = file
    return threaded


def thread_count() -> int:
    """The process's threads: the kernel's count, which includes threads a
    native library started at import (a BLAS pool), where the kernel has
    one; else the threads Python knows of."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        threading = sys.modules.get("threading")
        return threading.active_count() if threading is not None else 1


def defined_tool_classes(module, module_name: str) -> list[type]:
    """The BaseTool subclasses `module` defines (not those it imports)."""
    return [
        obj
        for obj in list(vars(module).values())
        if isinstance(obj, type)
        and issubclass(obj, BaseTool)
        and obj is not BaseTool
        and obj.__module__ == module_name
    ]


def tool_files(tools_dir: str) -> list[str]:
    try:
        names = os.listdir(tools_dir)
    except OSError:
        return []
    return sorted(
        name
        for name in names
        if name.endswith(".py")
        and not name.startswith("_")
        and os.path.isfile(os.path.join(tools_dir, name))
    )


def tool_settings(config: dict, name: str) -> dict:
    tools = config.get("tools")
    section = tools.get(name) if isinstance(tools, dict) else None
    return section if isinstance(section, dict) else {}
