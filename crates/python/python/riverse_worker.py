"""Riverse's Python worker: imports drop-in tools and serves them over MCP on stdio.

The host imports this file from a copy in its cache, so Python keeps its bytecode
(or runs it with `python -c` where there is no cache), and speaks newline-delimited
JSON-RPC 2.0 to it (`initialize`, `riverse/discovery` for the fate of every file,
`riverse/call` for a tool's `ToolResult`, once and flat; a worker forked after
discovery is given every tool's file and class in `initialize` and instantiates
each tool at its first call). It is also a standalone
MCP server (`tools/list`, `tools/call`):

    python riverse_worker.py TOOLS_DIR [CONFIG_JSON_FILE]

While a tool runs, what it says and asks (`self.log`, `self.progress`, `self.ask`,
`self.sample`) goes to the host as `notifications/riverse/log` and `.../progress`
and as `riverse/host/ask` and `riverse/host/sample` requests.

It provides `agent.tools` (BaseTool, ToolManifest, ToolResult, Image, Audio,
Resource, Answer) to the tool files,
so they import it as they would in any Riverse project. Standard library only.
"""

from __future__ import annotations

import sys

# Run with `python -c`, the project directory ("") comes first on sys.path: a
# `json.py` or `requests.py` there would replace the modules this worker and
# its tools import. Tools and the LLM can write there, so it stays off the
# path: tools import the project's code as `agent.tools.*` and `agent.*` (see
# `install_shim`). Issue 41, finding 3.
if sys.path[:1] == [""]:
    del sys.path[0]

import _thread
import abc
import dataclasses
import errno
import importlib
import json
import os
import signal
import types

WORKER_PROTOCOL_VERSION = "riverse-worker/3"
MCP_PROTOCOL_VERSION = "2025-06-18"
# `parameter_types` names and their JSON Schema types; a union (`int|float`) or
# another name is documentation and passes values through unconverted.
SCHEMA_TYPES = {
    "str": "string", "string": "string", "text": "string",
    "int": "integer", "integer": "integer",
    "float": "number", "number": "number",
    "bool": "boolean", "boolean": "boolean",
    "list": "array", "array": "array",
    "dict": "object", "object": "object",
}
# What a type name is trimmed of, as Rust's `str::trim` (Unicode White_Space):
# `str.strip()` would also strip \x1c-\x1f.
TYPE_NAME_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000" + "".join(
    map(chr, range(0x2000, 0x200B))
)
# Starts a stderr line naming whose output follows; the host reads and drops it.
# The host's key follows it (see `Server.initialize`).
LABEL_MARKER = b"\0riverse-label:"
# The protocol descriptors are moved this high, where a tool writing to "fd 4"
# by mistake does not reach them (it still can on purpose: tools are trusted).
PROTOCOL_FD_FLOOR = 900
# The most of a traceback sent with a failed call.
MAX_TRACEBACK_CHARS = 16 * 1024


# ---------------------------------------------------------------------------
# The tool author's contract: `agent.tools`.


@dataclasses.dataclass
class ToolManifest:
    name: str
    description: str
    parameters: dict[str, str]
    examples: list[str] = dataclasses.field(default_factory=list)
    parameter_types: dict[str, str] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class ToolResult:
    success: bool
    data: str
    error: str = ""
    content: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Image:
    data: bytes
    mime_type: str = "image/png"


@dataclasses.dataclass
class Audio:
    data: bytes
    mime_type: str = "audio/wav"


@dataclasses.dataclass
class Resource:
    uri: str
    text: str | None = None
    blob: bytes | None = None
    mime_type: str | None = None


@dataclasses.dataclass
class Answer:
    """What the person did with `self.ask`: `action` is "accept", "decline"
    or "cancel" (nobody answered); `content` holds the fields accepted."""

    action: str
    content: dict = dataclasses.field(default_factory=dict)

    @property
    def accepted(self) -> bool:
        return self.action == "accept"


LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


class BaseTool(abc.ABC):
    """A drop-in tool: subclass it in a file of the tools directory."""

    def __init__(self, config: dict):
        self.config = config

    @abc.abstractmethod
    def manifest(self) -> ToolManifest:
        """What the LLM is told about this tool."""

    @abc.abstractmethod
    def execute(self, params: dict) -> ToolResult:
        """Runs the tool."""

    def is_available(self) -> bool:
        return True

    # What a tool says and asks while it runs; each works in every front end.

    def log(self, message, level: str = "info") -> None:
        """A line shown under the tool's name as it runs; returns at once."""
        level = str(level).lower()
        level = "warning" if level == "warn" else level
        if level not in LOG_LEVELS:
            raise ValueError(f"log level {level!r} is none of {', '.join(LOG_LEVELS)}")
        CALLS.log(str(message), level)

    def progress(self, progress, total=None, message=None) -> None:
        """How far the call has got (`total` when known); returns at once."""
        CALLS.progress(progress, total, message)

    def ask(self, message, fields: dict | None = None, schema: dict | None = None) -> Answer:
        """Asks the person behind the front end. `fields` is {name: description}
        (strings); `schema`, a JSON Schema object, says more. Nobody to ask is
        a cancel, never an exception."""
        return CALLS.ask(str(message), question_schema(fields, schema))

    def sample(self, prompt, max_tokens: int | None = None, system: str | None = None) -> str:
        """A completion from the client's LLM, or Riverse's own. Raises
        RuntimeError with the reason when neither can answer."""
        return CALLS.sample(str(prompt), max_tokens, system)


class ToolRegistry:
    """Riverse's `ToolRegistry` as a tool sees it: the host's registry, so a
    call made here runs like any other (its deadline, its isolation, every
    tool source). Built inside `execute`, not at import or in `__init__`:
    the host's registry exists only once discovery is over."""

    def __init__(self, config: dict, enabled=True, **_ignored):
        self.config = config
        self._tools: dict[str, HostTool] = {}
        if enabled is False:
            return
        for listed in ask_host(HOST_TOOLS_LIST, {}).get("tools", []):
            manifest = ToolManifest(
                name=listed["name"],
                description=listed.get("description", ""),
                parameters=listed.get("parameters") or {},
                examples=listed.get("examples") or [],
                parameter_types=listed.get("parameter_types") or {},
            )
            self._tools[manifest.name] = HostTool(self, manifest)

    @staticmethod
    def list_registered_tool_names() -> list[str]:
        """The tool modules, as Riverse's tools.yaml lists them."""
        tools_dir = SERVER.discovery.tools_dir if SERVER and SERVER.discovery else ""
        return [name[:-3] for name in tool_files(tools_dir)]

    def list_available(self) -> list[ToolManifest]:
        return [tool.manifest() for tool in self._tools.values()]

    def get_tool(self, name: str):
        return self._tools.get(name)

    def execute(self, name: str, params: dict) -> ToolResult:
        result = ask_host(HOST_TOOLS_CALL, {"name": name, "arguments": dict(params or {})})
        return ToolResult(
            success=result.get("success") is True,
            data=str(result.get("data", "")),
            error=str(result.get("error", "")),
        )


class HostTool(BaseTool):
    """A tool of the host's registry, as `ToolRegistry.get_tool` returns it."""

    def __init__(self, registry: ToolRegistry, manifest: ToolManifest):
        self.config = registry.config
        self._registry = registry
        self._manifest = manifest

    def manifest(self) -> ToolManifest:
        return self._manifest

    def execute(self, params: dict) -> ToolResult:
        return self._registry.execute(self._manifest.name, params)


for _cls in (ToolManifest, ToolResult, BaseTool, ToolRegistry, Image, Audio, Resource, Answer):
    _cls.__module__ = "agent.tools"


def install_shim(tools_dir: str) -> None:
    """Makes `agent.tools` importable, with its package path on the tools
    directory so `agent.tools._helper` and sibling tool files resolve there.
    In Riverse's layout (`agent/tools/`) the `agent` package is the folder
    that holds the tools directory, so `agent.config`, `agent.utils` and any
    other package kept there import as they do in Riverse."""
    installed = sys.modules.get("agent.tools")
    if installed is not None and getattr(installed, "__path__", None) == [tools_dir]:
        return  # a forked worker: the fork server installed it and imported the tools
    agent = types.ModuleType("agent")
    parent = os.path.dirname(tools_dir)
    in_layout = os.path.basename(tools_dir) == "tools" and os.path.isdir(parent)
    agent.__path__ = [parent] if in_layout else []
    tools = types.ModuleType("agent.tools", "Riverse drop-in tools")
    tools.__path__ = [tools_dir]
    tools.__package__ = "agent.tools"
    tools.BaseTool = BaseTool
    tools.ToolManifest = ToolManifest
    tools.ToolResult = ToolResult
    tools.ToolRegistry = ToolRegistry
    tools.Image = Image
    tools.Audio = Audio
    tools.Resource = Resource
    tools.Answer = Answer
    tools.__all__ = ["BaseTool", "ToolManifest", "ToolResult", "ToolRegistry", "Image", "Audio", "Resource", "Answer"]
    agent.tools = tools
    sys.modules["agent"] = agent
    sys.modules["agent.tools"] = tools


# ---------------------------------------------------------------------------
# Errors, located in the tool files.


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
    try:
        rel = os.path.relpath(os.path.abspath(path), tools_dir)
    except ValueError:
        return None
    return None if rel.startswith("..") else rel


def error_info(message: str, exc: BaseException | None, tools_dir: str, file: str | None = None):
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
    if type(exc) is SyntaxError:
        return str(exc.msg)
    if isinstance(exc, SyntaxError):
        return f"{type(exc).__name__}: {exc.msg}"
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# ---------------------------------------------------------------------------
# Discovery.


class Discovery:
    """Imports every tool file once and keeps the tools that may be called."""

    def __init__(self, tools_dir: str, config: dict, skip: list[str], announce):
        self.tools_dir = os.path.abspath(tools_dir)
        self.config = config if isinstance(config, dict) else {}
        self.tools: dict[str, BaseTool] = {}
        self.manifests: dict[str, dict] = {}
        self.files = []
        install_shim(self.tools_dir)
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
            return import_failure(file, module_name, exc, self.tools_dir)
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


def import_failure(file: str, module_name: str, exc: BaseException, tools_dir: str) -> dict:
    sys.modules.pop(module_name, None)
    breach = SANDBOX.breach(exc) if SANDBOX is not None else None
    kind = "syntax error" if isinstance(exc, SyntaxError) else "import failed"
    message = f"{kind}: {describe(exc)}"
    if breach:
        message = f"{breach[0]} ({message})"
    error = error_info(message, exc, tools_dir, file)
    # The settings line that allows the breach: the file's tools are not
    # known yet, so it widens the sandbox that imported it.
    hint = SANDBOX.allowing(None, [breach]) if breach else missing_module_hint(exc, tools_dir, file)
    if hint:
        error["hint"] = hint
    return {"file": file, "fate": "failed", "error": error, "classes": []}


# Import names whose package on PyPI is named otherwise. Only a hint for the
# author: nothing is ever installed that a tool file did not declare.
DISTRIBUTIONS = {
    "attr": "attrs",
    "Bio": "biopython",
    "bs4": "beautifulsoup4",
    "cairo": "pycairo",
    "Crypto": "pycryptodome",
    "cv2": "opencv-python",
    "dateutil": "python-dateutil",
    "discord": "discord.py",
    "dns": "dnspython",
    "docx": "python-docx",
    "dotenv": "python-dotenv",
    "faiss": "faiss-cpu",
    "fitz": "PyMuPDF",
    "gi": "PyGObject",
    "git": "GitPython",
    "googleapiclient": "google-api-python-client",
    "jose": "python-jose",
    "jwt": "PyJWT",
    "magic": "python-magic",
    "MySQLdb": "mysqlclient",
    "nacl": "PyNaCl",
    "OpenSSL": "pyOpenSSL",
    "PIL": "pillow",
    "pkg_resources": "setuptools",
    "pptx": "python-pptx",
    "serial": "pyserial",
    "skimage": "scikit-image",
    "sklearn": "scikit-learn",
    "slugify": "python-slugify",
    "socks": "PySocks",
    "speech_recognition": "SpeechRecognition",
    "telegram": "python-telegram-bot",
    "usb": "pyusb",
    "websocket": "websocket-client",
    "win32api": "pywin32",
    "yaml": "PyYAML",
    "zmq": "pyzmq",
}


# Top-level names that many unrelated packages share: no one package to name.
NAMESPACES = {"google", "azure", "zope", "jaraco", "backports", "ruamel"}


def missing_module_hint(exc: BaseException, tools_dir: str, file: str | None) -> str | None:
    """What to write in `file` for Riverse to install the module `exc` found
    missing: the package that most likely provides it, as a PEP 723 block."""
    if not isinstance(exc, ModuleNotFoundError) or not exc.name or not file:
        return None
    top = exc.name.split(".")[0]
    local = os.path.exists(os.path.join(tools_dir, top)) or os.path.exists(os.path.join(tools_dir, top + ".py"))
    if top in ("agent", "") or local or top in NAMESPACES or top in getattr(sys, "stdlib_module_names", ()):
        return None
    moved = project_module_hint(top, tools_dir)
    if moved:
        return moved
    import re  # on a failure only: every worker start would pay for it at the top

    package = DISTRIBUTIONS.get(top, top)
    if top in DISTRIBUTIONS:
        where = f"'{top}' is most likely in the package {package}"
    else:
        where = f"no installed package provides '{top}' (on PyPI its package is most often named so too)"
    source = read_text(os.path.join(tools_dir, file))
    has_block = re.search(r"(?m)^# /// script\s*$", source) is not None
    # The package named as a requirement: quoted, then its end or a specifier.
    named = re.compile(r"""(?mi)["']""" + re.escape(package) + r"""\s*(?:["'\[<>=!~;@]|$)""")
    if has_block and named.search(source):
        return f"{file} declares {package}: Riverse installs it when python.dependencies is auto (riverse sync)"
    requirements = read_text(os.path.join(tools_dir, "requirements.txt"))
    listed = re.compile(r"(?mi)^\s*" + re.escape(package) + r"\s*(?:[\[<>=!~;@#]|$)")
    if listed.search(requirements):
        return f"requirements.txt asks for {package}: Riverse installs it when python.dependencies is auto (riverse sync)"
    if has_block:
        return f'{where}: add "{package}" to the dependencies of the `# /// script` block in {file}, and Riverse installs it'
    return (
        f"{where}: declare it at the top of {file}, and Riverse installs it:\n"
        f'# /// script\n# dependencies = ["{package}"]\n# ///'
    )


def project_module_hint(top: str, tools_dir: str) -> str | None:
    """Where to move a module of the project directory that a tool imports:
    the project directory is not on sys.path (see the top of this file)."""
    try:
        project = os.getcwd()
    except OSError:
        return None
    if os.path.isfile(os.path.join(project, top + ".py")):
        kept, moved = f"{top}.py", f"_{top}.py"
    elif os.path.isdir(os.path.join(project, top)):
        kept, moved = f"{top}/", f"_{top}/"
    else:
        return None
    shown = relative(tools_dir, project) or tools_dir
    return (
        f"{kept} is in the project directory, which is not on the tools' import path (tools and the LLM "
        f"can write there): move it to {os.path.join(shown, moved)} and import it as agent.tools._{top}"
    )


def read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as text:
            return text.read()
    except OSError:
        return ""


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


def preload(tools_dir: str, skip: list[str], announce) -> str | None:
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
            IMPORT_FAILURES[file] = import_failure(file, module_name, exc, tools_dir)
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


def method_line(method, tools_dir: str) -> int | None:
    code = getattr(method, "__code__", None)
    if code is None or relative(code.co_filename, tools_dir) is None:
        return None
    return code.co_firstlineno


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


def manifest_dict(manifest) -> dict:
    if not isinstance(manifest, ToolManifest):
        raise ToolError(f"returned {type(manifest).__name__}, expected ToolManifest")

    def check(field, value, kind, of=None):
        if not isinstance(value, kind) or (of and not all(isinstance(v, of) for v in value)):
            what = kind.__name__ + (f" of {of.__name__}" if of else "")
            raise ToolError(f"returned a ToolManifest whose {field} is not a {what}: {value!r}")

    check("name", manifest.name, str)
    check("description", manifest.description, str)
    check("parameters", manifest.parameters, dict)
    check("parameters' keys", list(manifest.parameters), list, str)
    check("parameters' descriptions", list(manifest.parameters.values()), list, str)
    check("examples", manifest.examples, list, str)
    check("parameter_types", manifest.parameter_types, dict)
    check("parameter_types' keys", list(manifest.parameter_types), list, str)
    for key, kind in manifest.parameter_types.items():
        if not isinstance(kind, str):
            raise ToolError(
                f"returned a ToolManifest whose parameter_types[{key!r}] is {kind!r}, "
                f"expected a type name such as int, float, bool, string or a union like int|string"
            )
    # Every field was checked above: copying the containers is all a deep
    # copy (`dataclasses.asdict`, several times slower) would do.
    return {
        "name": manifest.name,
        "description": manifest.description,
        "parameters": dict(manifest.parameters),
        "examples": list(manifest.examples),
        "parameter_types": dict(manifest.parameter_types),
    }


# ---------------------------------------------------------------------------
# Calls.


def call_tool(discovery, name: str, arguments: dict) -> dict:
    """One call on a `Discovery` or `LazyTools`."""
    tool = None
    if SANDBOX is not None:
        SANDBOX.begin_call()
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
        breach = SANDBOX.breach(exc) if SANDBOX is not None else None
        failed = raised(f"execute() raised {describe(exc)}", exc, discovery.tools_dir)
        if SANDBOX is not None:
            failed["error"] = SANDBOX.explain(failed["error"], name, breach)
        file = tool_file(tool, discovery.tools_dir) if tool is not None else None
        hint = missing_module_hint(exc, discovery.tools_dir, file)
        if hint:
            failed["error"] += "\n" + hint
        return failed
    finally:
        sys.stdout.flush()
    if not isinstance(result, ToolResult):
        returned = "None" if result is None else type(result).__name__
        at = return_place(tool, returned_at, discovery.tools_dir)
        return outcome(False, "", f"execute() returned {returned}, expected ToolResult{at}\n{result_fix(None, result)}")
    # Each field is read once: a property may answer differently every time.
    field = "success"
    try:
        success = result.success
        field = "data"
        data = result.data
        field = "error"
        error = result.error
    except BaseException as exc:  # noqa: BLE001 - a property may raise anything
        return outcome(False, "", f"execute() returned a ToolResult whose {field} raised {describe(exc)}")
    try:
        blocks, left_out = encode_content(getattr(result, "content", None))
    except ContentError as exc:
        return outcome(False, "", f"execute() returned a ToolResult whose {exc}")
    if type(success) is bool and isinstance(data, str) and isinstance(error, str):
        # A str subclass (bs4's NavigableString) as the characters it holds:
        # `str()` would call the subclass's own `__str__`.
        data, error = str.__str__(data), str.__str__(error)
        if SANDBOX is not None:
            data, error = SANDBOX.explain_result(success, data, error, name)
        return outcome(success, data, error, content=blocks, left_out=left_out)
    for field, value, kind in (("success", success, bool), ("data", data, str), ("error", error, str)):
        if not isinstance(value, kind):
            at = return_place(tool, returned_at, discovery.tools_dir)
            return outcome(
                False,
                "",
                f"execute() returned a ToolResult whose {field} is {type(value).__name__}, "
                f"expected {kind.__name__}{at}\n{result_fix(field, value)}",
            )


def run_execute(tool, arguments) -> tuple[object, tuple[str, int | None] | None]:
    """`tool.execute(arguments)`, and where the frame it ran in ended: the
    file and the line of the `return` (or of the last statement run, when
    it fell off its end), for an error about the result to point at.

    A profile function that removes itself at the first Python frame costs
    the call one event, where tracing all of it would slow every tool down."""
    frames = []
    previous = sys.getprofile()

    def first_frame(frame, event, _arg):
        if event == "call":
            frames.append(frame)
            sys.setprofile(previous)

    sys.setprofile(first_frame)
    try:
        result = tool.execute(arguments)
    finally:
        sys.setprofile(previous)
    # Read now and dropped: a frame kept would keep the call's locals alive.
    where = (frames[0].f_code.co_filename, frames[0].f_lineno) if frames else None
    return result, where


def return_place(tool, returned_at, tools_dir: str) -> str:
    """` (file:line)` of the `return` that ended `execute`, or of its `def`
    when that frame is not in a tool file (a decorator's, a C method)."""
    if returned_at is not None:
        where = relative(returned_at[0], tools_dir)
        if where and returned_at[1]:
            return f" ({where}:{returned_at[1]})"
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


# ---------------------------------------------------------------------------
# The sandbox: which of its rules a call broke.


class SandboxRules:
    """The sandbox this worker runs in, as the host describes it in
    RIVERSE_SANDBOX. The kernel enforces it; this only says which rule a
    refused call broke, and the settings line that would allow it. An audit
    hook remembers, per thread, the last file opened and the last address
    connected to, which a PermissionError does not carry (whether the open
    was a write, the port); and, for the whole call, each open or connection
    its rules foresee the kernel refusing, which a tool that catches the
    PermissionError and returns its text no longer shows (issue 49)."""

    WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
    # Words of a refusal in a tool's own error text.
    REFUSED = ("Permission denied", "Operation not permitted", "Resource temporarily unavailable")
    # Refusals kept per call: a tool that retries in a loop names each once.
    MOST_REFUSALS = 8

    def __init__(self, policy: dict):
        self.label = policy.get("label", "the sandbox")
        self.project = str(policy.get("project") or os.getcwd())
        self.read = [str(path) for path in policy.get("read") or []]
        self.write = [str(path) for path in policy.get("write") or []]
        self.always_read = [str(path) for path in policy.get("always_read") or []]
        self.always_write = [str(path) for path in policy.get("always_write") or []]
        self.network = policy.get("network", True)
        self.memory_mb = policy.get("memory_mb")
        self.processes = policy.get("processes")
        self.file_size_mb = policy.get("file_size_mb")
        # The Landlock ABI the sandbox is made with (see `enter_own_signal_domain`).
        self.landlock_abi = policy.get("landlock_abi") or 0
        self.seen = _thread._local()
        # What the kernel is foreseen to refuse since the call began: (the
        # rule broken, the key that allows it, what the key needs).
        self.refusals: list[tuple] = []

    @classmethod
    def from_environment(cls):
        text = os.environ.pop("RIVERSE_SANDBOX", None)
        if not text:
            return None
        try:
            rules = cls(json.loads(text))
        except (ValueError, TypeError, AttributeError):
            return None
        sys.addaudithook(rules.audit)
        return rules

    def audit(self, event: str, args) -> None:
        if event == "open":
            self.seen.opened = args
            foreseen = self.foresee_open
        elif event in ("socket.connect", "socket.bind"):
            self.seen.socket = (event, args[1] if len(args) > 1 else None)
            foreseen = self.foresee_socket
        else:
            return
        if len(self.refusals) >= self.MOST_REFUSALS:
            return
        try:
            refusal = foreseen(event, args)
        except Exception:  # noqa: BLE001 - an audit hook's exception would fail the open
            return
        if refusal is not None and refusal not in self.refusals:
            self.refusals.append(refusal)

    def begin_call(self) -> None:
        self.refusals = []

    def foresee_open(self, event: str, args) -> tuple | None:
        """The rule an open breaks, judged before the kernel does."""
        path, mode, flags = args
        if path is None or isinstance(path, int):
            return None
        shown = os.fsdecode(path)
        if "__pycache__" in shown:
            return None  # the interpreter's bytecode cache, whose refusal it ignores
        writing = any(c in mode for c in "wax+") if isinstance(mode, str) else bool(flags & self.WRITE_FLAGS)
        roots = self.write + self.always_write
        if not writing:
            roots = roots + self.read + self.always_read
        absolute = os.path.abspath(shown)
        if self.beneath(absolute, roots):
            return None
        real = os.path.realpath(absolute)
        if self.beneath(real, roots):
            return None
        return self.path_refusal(real, shown, writing)

    def foresee_socket(self, event: str, args) -> tuple | None:
        """The rule a TCP connect or bind breaks (Landlock leaves UDP and
        Unix sockets alone)."""
        sock = args[0]
        socket = sys.modules.get("socket")
        if socket is None or sock.type != socket.SOCK_STREAM:
            return None
        if sock.family not in (socket.AF_INET, getattr(socket, "AF_INET6", None)):
            return None
        return self.socket_refusal(event, args[1])

    @staticmethod
    def beneath(path: str, roots) -> bool:
        return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)

    def wrote(self, filename) -> bool | None:
        """Whether the last open of `filename` was for writing; None when
        it was not seen."""
        opened = getattr(self.seen, "opened", None)
        if not opened or os.fspath(opened[0]) != os.fspath(filename):
            return None
        mode, flags = opened[1], opened[2]
        if isinstance(mode, str):
            return any(c in mode for c in "wax+")
        return bool(flags & self.WRITE_FLAGS)

    def explain(self, text: str, tool: str | None, breach: tuple | None = None, guess: bool = True) -> str:
        """`text`, a call's error, with the rule it broke and the settings
        line that allows it: `breach` when the exception said so, else what
        the call was foreseen to be refused when the text reads like a
        refusal. `guess` adds a line saying the sandbox may be why when
        nothing was foreseen (a program the tool ran says so in its own
        words)."""
        if breach is not None:
            refusals = [breach]
            text = f"{breach[0]} ({text})"
        elif not any(words in text for words in self.REFUSED):
            # A tool that caught a refused connection and failed in its own
            # words ("can't reach the service") failed for it all the same.
            # A refused open is often a library's probe (~/.netrc), so it is
            # named only when the text reads like a refusal.
            refusals = [refusal for refusal in self.refusals if refusal[1] == "network"]
            if not (guess and refusals):
                return text
            text = "\n".join([text] + [refusal[0] for refusal in refusals])
        elif self.refusals:
            refusals = self.refusals
            text = "\n".join([text] + [refusal[0] for refusal in refusals])
        elif guess:
            return f"{text}\n{self.guess(tool)}"
        else:
            return text
        line = self.allowing(tool, refusals)
        return f"{text}\n{line}" if line else text

    def explain_result(self, success: bool, data: str, error: str, tool: str) -> tuple[str, str]:
        """A returned result's data and error, explained: the error of a
        failure, or the data of a success that reports a refusal the call
        was foreseen to meet."""
        if success:
            return self.explain(data, tool, guess=False), error
        return data, self.explain(error, tool)

    def guess(self, tool: str | None) -> str:
        label = self.label
        own = f"tools.{tool}.sandbox"
        widen = f"; {own} widens them for this tool alone" if tool and own != label else ""
        return f"(the tool runs in {label}, which may have refused it: {label}.read, .write and .network say what it may reach{widen})"

    def allowing(self, tool: str | None, refusals) -> str | None:
        """The settings line that allows what `refusals` were refused, for
        `tool`: a key of its own sandbox, or a sandbox of its own that
        takes the rest from the shared one; None when no key would."""
        needed: dict[str, list] = {}
        for _, key, value in refusals:
            if key is not None and value not in needed.setdefault(key, []):
                needed[key].append(value)
        values = {key: self.widened(key, wanted) for key, wanted in needed.items() if wanted}
        if not values:
            return None
        own = f"tools.{tool}.sandbox"
        if tool is None or own == self.label:
            settings = " and ".join(f"{self.label}.{key}: {value}" for key, value in values.items())
            return f"to allow it, set {settings}"
        keys = ", ".join(f"{key}: {value}" for key, value in values.items())
        return f"to allow it, set {own}: {{{keys}}} (a sandbox of the tool's own; its other keys come from {self.label})"

    def widened(self, key: str, wanted: list) -> str:
        """The value of `key` that allows `wanted` beside what it allows now,
        as settings.yaml spells it."""
        if key == "network":
            if True in wanted:
                return "true"
            ports = [] if self.network is False else list(self.network)
            return "[" + ", ".join(str(port) for port in ports + [p for p in wanted if p not in ports]) + "]"
        if key in ("read", "write"):
            paths = [self.shown(path) for path in getattr(self, key)]
            paths += [path for path in map(self.shown, wanted) if path not in paths]
            return "[" + ", ".join(json.dumps(path) for path in paths) + "]"
        return str(max(wanted))

    def shown(self, path: str) -> str:
        """A path as settings.yaml would give it: relative to the project
        when beneath it."""
        if path == self.project:
            return "."
        if self.beneath(path, [self.project]):
            return os.path.relpath(path, self.project)
        return path

    def path_refusal(self, path: str, shown: str, writing: bool) -> tuple:
        named = path if path == shown else f"{path} ({shown})"
        if writing:
            # A file that does not exist yet is made in its directory.
            needed = path if os.path.lexists(path) else os.path.dirname(path)
            return (f"sandbox: writing {named} is outside {self.label}.write", "write", needed)
        return (f"sandbox: reading {named} is outside {self.label}.read", "read", path)

    def socket_refusal(self, event: str, address) -> tuple | None:
        if self.network is True or not isinstance(address, tuple) or len(address) < 2:
            return None
        label = self.label
        if event == "socket.bind":
            message = f"sandbox: listening on port {address[1]} is outside {label}.network (no listening socket is allowed)"
            return (message, "network", True)
        allowed = "no port" if self.network is False else "ports " + ", ".join(map(str, self.network))
        if self.network is not False and address[1] in self.network:
            return None
        return (f"sandbox: connecting to port {address[1]} is outside {label}.network ({allowed})", "network", address[1])

    def socket_breach(self) -> tuple | None:
        """The network rule a refused socket operation broke: the last
        connect or bind this thread made (a listen follows its bind)."""
        event, address = getattr(self.seen, "socket", (None, None))
        return self.socket_refusal(event, address)

    def breach(self, exc: BaseException) -> tuple | None:
        """The rule `exc` says was broken (the message the call's error
        begins with, the key that allows it, what the key needs); None for
        an error of the tool's own."""
        label = self.label
        if isinstance(exc, MemoryError) and self.memory_mb:
            return (f"sandbox: memory past {label}.memory_mb ({self.memory_mb} MB)", "memory_mb", 2 * self.memory_mb)
        if not isinstance(exc, OSError):
            return None
        if exc.errno == errno.EAGAIN and self.processes and isinstance(exc, BlockingIOError):
            return (f"sandbox: a new process past {label}.processes ({self.processes})", "processes", 2 * self.processes)
        if exc.errno == errno.EFBIG and self.file_size_mb:
            message = f"sandbox: a file written past {label}.file_size_mb ({self.file_size_mb} MB)"
            return (message, "file_size_mb", 2 * self.file_size_mb)
        if exc.errno not in (errno.EACCES, errno.EPERM, errno.EXDEV):
            return None
        if exc.filename is None:
            return self.socket_breach()
        shown = os.fspath(exc.filename)
        path = os.path.realpath(shown)
        named = path if path == shown else f"{path} ({shown})"
        if self.beneath(path, self.write):
            return None
        if exc.errno == errno.EXDEV or exc.filename2 is not None:
            return (f"sandbox: linking or moving {named} is outside {label}.write", "write", os.path.dirname(path))
        readable = self.beneath(path, self.read) or self.beneath(path, self.always_read)
        wrote = self.wrote(exc.filename)
        if wrote or (readable and wrote is None):
            return self.path_refusal(path, shown, True)
        if readable:
            # Refused though readable where the name leads from here: it was
            # opened relative to another directory (`dir_fd`), which is not.
            return (f"sandbox: reading {shown!r} in a directory outside {label}.read", None, None)
        return self.path_refusal(path, shown, False)


# Set at start when the worker runs in a sandbox.
SANDBOX: SandboxRules | None = None


def tool_file(tool, tools_dir: str) -> str | None:
    """The tool file that defines `tool`'s class, relative to `tools_dir`."""
    module = sys.modules.get(type(tool).__module__)
    path = getattr(module, "__file__", None)
    return relative(path, tools_dir) if path else None


def raised(message: str, exc: BaseException, tools_dir: str) -> dict:
    """The outcome of a call whose tool raised `exc`: `message`, with where in
    the tool files it was raised, and the traceback."""
    where, line = locate(exc, tools_dir)
    at = f" ({where}:{line})" if where else ""
    return outcome(False, "", message + at, format_traceback(exc))


# Set from the host's `maxOutputBytes`: `data` and `error` are cut to it.
max_output_bytes: int | None = None


def outcome(success: bool, data: str, error: str, trace: str | None = None, content=(), left_out=()) -> dict:
    """A call's outcome as `riverse/call` answers it: the `ToolResult` once,
    with the sizes of what was cut and the traceback of a tool that raised."""
    result = {"success": success}
    result["data"], data_bytes = cut(data)
    if left_out:
        result["data"] = "\n".join(([result["data"]] if result["data"] else []) + list(left_out))
    if content:
        result["content"] = list(content)
    result["error"], error_bytes = cut(error)
    if data_bytes is not None:
        result["dataBytes"] = data_bytes
    if error_bytes is not None:
        result["errorBytes"] = error_bytes
    if trace:
        result["traceback"] = trace[-MAX_TRACEBACK_CHARS:]
    return result


# Set from the host's `maxContentBytes`: content blocks past it are left out.
max_content_bytes = 16 * 1024 * 1024


class ContentError(Exception):
    """A `ToolResult.content` that is not a list of Image, Audio and Resource."""


def encode_content(content) -> tuple[list[dict], list[str]]:
    """`ToolResult.content` as the host reads it (binary data in base64), and
    a line for each block left out because the blocks before it filled the
    budget of `max_content_bytes`."""
    if content is None:
        return [], []
    if not isinstance(content, (list, tuple)):
        raise ContentError(f"content is {type(content).__name__}, expected a list")
    blocks, left_out, used = [], [], 0

    def binary(value, where: str, field: str) -> bytes:
        if isinstance(value, (bytes, bytearray, memoryview)):
            return bytes(value)
        raise ContentError(f"{where} has {field} of type {type(value).__name__}, expected bytes")

    def optional_text(value, where: str, field: str):
        if value is None or isinstance(value, str):
            return value
        raise ContentError(f"{where} has {field} of type {type(value).__name__}, expected str")

    for index, item in enumerate(content):
        where = f"content[{index}]"
        if isinstance(item, (Image, Audio)):
            kind = "image" if isinstance(item, Image) else "audio"
            raw = binary(item.data, where, "data")
            mime = optional_text(item.mime_type, where, "mime_type") or ""
            size, block = len(raw), lambda raw=raw, kind=kind, mime=mime: {
                "type": kind, "data": base64_text(raw), "mime_type": mime}
            summary = f"[{kind} {mime}".rstrip() + (f", {human_size(size)}]" if size else "]")
        elif isinstance(item, Resource):
            if not isinstance(item.uri, str):
                raise ContentError(f"{where} has uri of type {type(item.uri).__name__}, expected str")
            text = optional_text(item.text, where, "text")
            blob = None if item.blob is None else binary(item.blob, where, "blob")
            mime = optional_text(item.mime_type, where, "mime_type")
            size = (len(blob) if blob is not None else 0) + (len(text.encode("utf-8", "surrogatepass")) if text else 0)

            def block(uri=item.uri, text=text, blob=blob, mime=mime):
                encoded = {"type": "resource", "uri": uri}
                if text is not None:
                    encoded["text"] = text
                if blob is not None:
                    encoded["blob"] = base64_text(blob)
                if mime is not None:
                    encoded["mime_type"] = mime
                return encoded

            summary = f"[resource {item.uri}" + (f" {mime}" if mime else "")
            summary += f", {human_size(size)}]" if size else "]"
        else:
            raise ContentError(f"{where} is {type(item).__name__}, expected Image, Audio or Resource")
        if used + size > max_content_bytes:
            left_out.append(f"{summary} left out: a result carries at most {human_size(max_content_bytes)} of content")
            continue
        used += size
        blocks.append(block())
    return blocks, left_out


def base64_text(raw: bytes) -> str:
    import base64

    return base64.b64encode(raw).decode("ascii")


def human_size(size: int) -> str:
    """`512 B`, `12.3 KB`, `2.0 MB`: as riverse-tool's `human_size`."""
    if size < 1000:
        return f"{size} B"
    value, units = size / 1000, ["KB", "MB", "GB"]
    while value >= 1000 and len(units) > 1:
        value /= 1000
        units.pop(0)
    return f"{value:.1f} {units[0]}"


def mcp_content(block: dict) -> dict:
    """A content block as MCP writes it."""
    if block["type"] in ("image", "audio"):
        return {"type": block["type"], "data": block["data"], "mimeType": block["mime_type"]}
    resource = {"uri": block["uri"]}
    for key, mcp_key in (("text", "text"), ("blob", "blob"), ("mime_type", "mimeType")):
        if key in block:
            resource[mcp_key] = block[key]
    if "text" not in resource and "blob" not in resource:
        resource["text"] = ""
    return {"type": "resource", "resource": resource}


def mcp_call_result(result: dict) -> dict:
    """An outcome as an MCP client reads `tools/call`'s answer: the text and
    the content blocks, and the whole `ToolResult` as structured content."""
    text = result["data"] if result["success"] else result["error"]
    blocks = [mcp_content(block) for block in result.get("content", ())]
    texts = [{"type": "text", "text": text}] if text or not blocks else []
    return {
        "content": texts + blocks,
        "isError": not result["success"],
        "structuredContent": {key: value for key, value in result.items() if key != "content"},
    }


def schema_type(declared: str):
    """A type name, a list of them for a union, or None when one is unknown
    (as `DeclaredType::schema_type` in riverse-tool)."""
    names = []
    for member in declared.split("|"):
        name = SCHEMA_TYPES.get(member.strip(TYPE_NAME_SPACE).lower())
        if name is None:
            return None
        if name not in names:
            names.append(name)
    return names[0] if len(names) == 1 else names


def cut(text: str) -> tuple[str, int | None]:
    """`text` cut to `max_output_bytes` UTF-8 bytes at a character boundary,
    and its size before when it was cut, so the host can say so."""
    if max_output_bytes is None or len(text) <= max_output_bytes // 4:
        return text, None
    if text.isascii():  # one byte a character: no copy needed to measure
        if len(text) <= max_output_bytes:
            return text, None
        return text[:max_output_bytes], len(text)
    encoded = text.encode("utf-8", "surrogatepass")
    if len(encoded) <= max_output_bytes:
        return text, None
    start = encoded[:max_output_bytes].decode("utf-8", "ignore")
    return start, len(encoded)


# `input_schema` and `described` are riverse-tool's functions of the same names,
# which crates/tool/tests/schema_golden.rs holds this code to.


def input_schema(manifest: dict) -> dict:
    types_ = manifest["parameter_types"]

    def typed(key: str) -> dict:
        kind = schema_type(types_.get(key, "string"))
        return {} if kind is None else {"type": kind}

    properties = {key: {**typed(key), "description": text} for key, text in manifest["parameters"].items()}
    for key in types_:
        if key not in properties:
            properties[key] = typed(key)
    return {"type": "object", "properties": properties}


def described(manifest: dict) -> str:
    """The description followed by the examples, one a line."""
    text = manifest["description"]
    if manifest["examples"]:
        text += "\n\nExamples:" + "".join(f"\n- {example}" for example in manifest["examples"])
    return text


def listed_tool(manifest: dict) -> dict:
    return {"name": manifest["name"], "description": described(manifest), "inputSchema": input_schema(manifest)}


# ---------------------------------------------------------------------------
# The protocol.


def json_codec():
    """Compact JSON with non-ASCII text as it is, and its reader, both built
    once. `json.JSONEncoder.encode` builds a new C encoder at every call, half
    the cost of encoding a reply; `json.loads` given bytes guesses their
    encoding first, a third of the cost of reading a request."""
    from json import encoder

    decode = json.JSONDecoder().decode

    def read(line: bytes):
        return decode(line.decode("utf-8", "surrogatepass"))

    if encoder.c_make_encoder is None:  # no C accelerator in this Python
        return json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode, read

    def unserializable(value):
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")

    # No check for circular references (it needs a fresh table per call): a
    # tool's circular arguments to `ToolRegistry` end in a RecursionError.
    # No NaN or Infinity either: they are not JSON, and the host would take
    # the stream for corrupted; a tool sending one gets a ValueError.
    c_encode = encoder.c_make_encoder(
        None, unserializable, encoder.encode_basestring, None, ":", ",", False, False, False
    )
    return (lambda value: "".join(c_encode(value, 0))), read


encode_json, decode_json = json_codec()


def unreadable(line: bytes, exc: BaseException) -> dict:
    """The answer to a line this worker can't decode though it is JSON (CPython
    reads no integer of more than 4300 digits): an error for the request's id,
    so the host fails that one request and the worker serves on. Without an id
    it is a parse error, which the host takes for a corrupted stream."""
    request_id = top_level_id(line)
    if request_id is None:
        return {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": describe(exc)}}
    error = {"code": -32602, "message": f"its arguments can't be read: {describe(exc)}"}
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def top_level_id(line: bytes):
    """The `id` member of the JSON object `line`, found without decoding the
    other members (one of which could not be); None when there is none."""
    import re  # on a failure only, as in `missing_module_hint`

    token = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\],:]|[^\s{}\[\],:"]+')
    depth, key, previous = 0, None, None
    for match in token.finditer(line):
        text = match.group()
        if text in (b"{", b"["):
            depth += 1
        elif text in (b"}", b"]"):
            depth -= 1
        elif depth == 1 and previous == b":" and key == b'"id"':
            try:
                found = json.loads(text)
            except ValueError:
                return None
            return found if isinstance(found, (int, str)) and not isinstance(found, bool) else None
        elif depth == 1 and previous in (b"{", b","):
            key = text
        previous = text
    return None


# A fork server refuses to fork with this code when a tool file started a
# thread at import; the host then starts fresh interpreters instead.
FORK_REFUSED = -32010
# A fork server's notification that a worker it forked has ended.
WORKER_EXITED = "notifications/riverse/exited"
HOST_TOOLS_LIST = "riverse/host/tools/list"
HOST_TOOLS_CALL = "riverse/host/tools/call"
HOST_ASK = "riverse/host/ask"
HOST_SAMPLE = "riverse/host/sample"
LOG_NOTIFICATION = "notifications/riverse/log"
PROGRESS_NOTIFICATION = "notifications/riverse/progress"
# The bounds riverse-tool's `CallContext` keeps; the worker keeps them too, so
# a tool that logs in a loop does not fill the pipe with lines the host drops.
MAX_LOG_LINES = 1000
MAX_MESSAGE_CHARS = 4096
PROGRESS_INTERVAL = 0.05
# The server of this worker, for `ToolRegistry`.
SERVER = None


def ask_host(method: str, params: dict):
    """One request to the host while a tool runs; its result."""
    if SERVER is None:
        raise RuntimeError("ToolRegistry needs the Riverse host")
    return SERVER.ask_host(method, params)


class CallChannel:
    """The running call's way to the host, which `BaseTool.log`, `progress`,
    `ask` and `sample` use. Outside a call (at import, in `__init__`), or
    with no Riverse host (a standalone MCP server), log lines go to stderr,
    progress nowhere, a question is a cancel and a sample an error."""

    def __init__(self):
        self.server = None
        self.logs = 0
        self.dropped = 0
        self.last_progress = None

    def begin(self, server) -> None:
        self.server, self.logs, self.dropped, self.last_progress = server, 0, 0, None

    def end(self) -> None:
        if self.server is not None and self.dropped:
            self.server.notify(LOG_NOTIFICATION, {"dropped": self.dropped})
        self.server = None

    def log(self, message: str, level: str) -> None:
        if self.server is None:
            sys.stderr.write(f"[{level}] {message}\n")
            return
        if self.logs >= MAX_LOG_LINES:
            self.dropped += 1
            return
        self.logs += 1
        self.server.notify(LOG_NOTIFICATION, {"level": level, "message": message[:MAX_MESSAGE_CHARS]})

    def progress(self, progress, total, message) -> None:
        for name, value in (("progress", progress), ("total", total)):
            if value is not None and (type(value) is bool or not isinstance(value, (int, float))):
                raise TypeError(f"progress(): {name} is {type(value).__name__}, expected a number")
        if progress is None:
            raise TypeError("progress(): progress is None, expected a number")
        import math

        for name, value in (("progress", progress), ("total", total)):
            if value is not None and not math.isfinite(value):
                raise ValueError(f"progress(): {name} is {value}, expected a finite number")
        if self.server is None:
            return
        import time

        now = time.monotonic()
        complete = total is not None and progress >= total
        if self.last_progress is not None and now - self.last_progress < PROGRESS_INTERVAL and not complete:
            return
        self.last_progress = now
        update = {"progress": progress}
        if total is not None:
            update["total"] = total
        if message is not None:
            update["message"] = str(message)[:MAX_MESSAGE_CHARS]
        self.server.notify(PROGRESS_NOTIFICATION, update)

    def ask(self, message: str, schema: dict) -> Answer:
        if self.server is None:
            return Answer("cancel")
        try:
            answer = self.server.ask_host(HOST_ASK, {"message": message[:MAX_MESSAGE_CHARS], "schema": schema})
        except HostError:
            return Answer("cancel")
        action = answer.get("action")
        content = answer.get("content")
        if action not in ("accept", "decline", "cancel"):
            action = "cancel"
        return Answer(action, content if isinstance(content, dict) and action == "accept" else {})

    def sample(self, prompt: str, max_tokens, system) -> str:
        if max_tokens is not None and (type(max_tokens) is not int or max_tokens < 1):
            raise ValueError(f"sample(): max_tokens is {max_tokens!r}, expected a positive int")
        if self.server is None:
            raise RuntimeError("sample() needs the Riverse host, while the tool runs")
        request = {"prompt": prompt}
        if max_tokens is not None:
            request["maxTokens"] = max_tokens
        if system is not None:
            request["system"] = str(system)
        try:
            answer = self.server.ask_host(HOST_SAMPLE, request)
        except HostError as exc:
            raise RuntimeError(exc.reason) from None
        return str(answer.get("text", ""))


CALLS = CallChannel()


def question_schema(fields, schema) -> dict:
    """The JSON Schema of `ask`'s answer: `schema` as given, or one string
    property per field, each required."""
    if schema is not None:
        if not isinstance(schema, dict):
            raise TypeError(f"ask(): schema is {type(schema).__name__}, expected a dict")
        return schema
    if fields is None:
        return {"type": "object", "properties": {}}
    if not isinstance(fields, dict):
        raise TypeError(f"ask(): fields is {type(fields).__name__}, expected a dict")
    properties = {str(name): {"type": "string", "description": str(text)} for name, text in fields.items()}
    return {"type": "object", "properties": properties, "required": list(properties)}


class HostError(RuntimeError):
    """The host answered a worker's request with an error."""

    def __init__(self, method: str, reason: str):
        super().__init__(f"the host could not answer {method}: {reason}")
        self.reason = reason


class RpcError(Exception):
    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


class Server:
    def __init__(self, proto_in, proto_out, tools_dir: str, config: dict):
        self.proto_in = proto_in
        self.proto_out = proto_out
        self.default_tools_dir = tools_dir
        self.default_config = config
        self.discovery: Discovery | None = None
        # Whether to mark in stderr whose output follows (see `label`).
        self.labels = False
        self.marker = LABEL_MARKER
        self.current_label: str | None = None
        self.host_requests = 0
        self.asking = _thread.allocate_lock()
        # In a fork server: the socket the host passes a worker's descriptors
        # through, and the file that started a thread at import, if one did.
        self.fork_socket = None
        self.threaded: str | None = None
        # Exits of forked workers not yet reported to the host (see `reap`).
        self.exits: list[dict] = []
        self.sending = False
        global SERVER
        SERVER = self

    def ask_host(self, method: str, params: dict):
        """Sends a request to the host and reads until its answer; the host
        sends nothing else to a worker that is running a tool but
        notifications, which need no answer. Threads of a tool ask one at a
        time: the one asking reads the stream."""
        with self.asking:
            return self.ask_host_alone(method, params)

    def ask_host_alone(self, method: str, params: dict):
        self.host_requests += 1
        request_id = f"worker-{self.host_requests}"
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        for line in self.proto_in:
            try:
                message = decode_json(line)
            except (ValueError, RecursionError) as exc:
                if top_level_id(line) == request_id:
                    raise HostError(method, f"its answer can't be read: {describe(exc)}") from None
                continue
            if isinstance(message, dict) and message.get("id") == request_id and "method" not in message:
                error = message.get("error")
                if error:
                    raise HostError(method, str(error.get("message")))
                return message.get("result") or {}
        raise RuntimeError("the host closed the protocol stream")

    def notify(self, method: str, params: dict) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def send(self, message: dict) -> None:
        line = encode_json(message)
        # A fork server's SIGCHLD handler sends too: while this writes, it
        # only queues what it has to say (see `reap`).
        self.sending = True
        try:
            self.proto_out.write(line.encode("utf-8", "replace") + b"\n")
            self.proto_out.flush()
        finally:
            self.sending = False
        if self.exits:
            self.report_exits()

    def serve(self) -> None:
        for line in self.proto_in:
            try:
                message = decode_json(line)
            except (ValueError, RecursionError) as exc:
                self.send(unreadable(line, exc))
                continue
            if not isinstance(message, dict) or "method" not in message or "id" not in message:
                continue  # notifications and stray responses need no answer
            request_id = message["id"]
            try:
                result = self.dispatch(message["method"], message.get("params") or {})
                self.send({"jsonrpc": "2.0", "id": request_id, "result": result})
            except RpcError as exc:
                self.send({"jsonrpc": "2.0", "id": request_id, "error": {"code": exc.code, "message": str(exc)}})
            except Exception as exc:  # noqa: BLE001 - the worker itself must keep serving
                error = {"code": -32603, "message": describe(exc)}
                self.send({"jsonrpc": "2.0", "id": request_id, "error": error})

    def dispatch(self, method: str, params: dict):
        # The host's calls come first: they are nearly every request.
        if method == "riverse/call" and self.discovery is not None:
            return self.call(params)
        if method == "initialize":
            return self.initialize(params)
        if method == "ping":
            return {}
        if method == "riverse/fork":
            return self.fork_worker()
        if self.discovery is None:
            raise RpcError(-32002, "not initialized")
        if method in ("tools/list", "riverse/discovery") and isinstance(self.discovery, LazyTools):
            self.discover(self.discovery.tools_dir, self.discovery.config, [])
        if method == "tools/list":
            return {"tools": [listed_tool(m) for m in self.discovery.manifests.values()]}
        if method == "tools/call":
            return mcp_call_result(self.call(params))
        if method == "riverse/discovery":
            return {"files": self.discovery.files}
        raise RpcError(-32601, f"method not found: {method}")

    def call(self, params: dict) -> dict:
        """One tool call, its output labelled with the tool's name."""
        name = str(params.get("name"))
        self.label(name)
        if self.labels:  # a Riverse host, which hears what the tool says
            CALLS.begin(self)
        try:
            return call_tool(self.discovery, name, dict(params.get("arguments") or {}))
        finally:
            CALLS.end()

    def initialize(self, params: dict) -> dict:
        capabilities = params.get("capabilities") or {}
        options = (capabilities.get("experimental") or {}).get("riverse") or {}
        if self.discovery is None and self.fork_socket is None:
            global max_output_bytes, max_content_bytes
            self.labels = bool(options)
            if options.get("labelKey"):
                self.marker = LABEL_MARKER + str(options["labelKey"]).encode() + b":"
            if isinstance(options.get("maxOutputBytes"), int):
                max_output_bytes = max(0, options["maxOutputBytes"])
            if isinstance(options.get("maxContentBytes"), int):
                max_content_bytes = max(0, options["maxContentBytes"])
            if isinstance(options.get("forkSocket"), int):
                self.become_fork_server(options)
                return self.initialized(params)
            tools_dir = options.get("toolsDir") or self.default_tools_dir
            config = options.get("config", self.default_config)
            if isinstance(options.get("tools"), dict):
                self.discovery = LazyTools(tools_dir, config, options["tools"])
            else:
                self.discover(tools_dir, config, options.get("skip") or [])
        return self.initialized(params)

    def discover(self, tools_dir: str, config: dict, skip: list[str]) -> None:
        self.discovery = Discovery(tools_dir, config, skip, self.announce)
        self.label("python")

    def initialized(self, params: dict) -> dict:
        return {
            "protocolVersion": params.get("protocolVersion") or MCP_PROTOCOL_VERSION,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "riverse-python", "version": WORKER_PROTOCOL_VERSION},
        }

    def become_fork_server(self, options: dict) -> None:
        """Imports the tool files, instantiating nothing, and from then on
        forks a worker at each `riverse/fork` (see `fork_worker`)."""
        import socket

        self.fork_socket = socket.socket(fileno=high_dup(options["forkSocket"]))
        os.close(options["forkSocket"])
        # Its children are workers, each a subreaper that cleans up after
        # its tools; what a killed worker leaves goes to the host, which
        # sweeps it, rather than here, where nothing would.
        become_subreaper(False)
        name_process("riverse-forksrv")
        # The workers it forks are the fork server's children, not the host's:
        # they watch the host themselves (see `watch_the_host`).
        self.host_pid = os.getppid()
        self.threaded = preload(
            options.get("toolsDir") or self.default_tools_dir,
            options.get("skip") or [],
            self.announce,
        )
        self.label("python")
        # What every forked worker imports to watch the host (see
        # `watch_the_host`): imported once here, the workers share it.
        import select  # noqa: F401
        import threading  # noqa: F401

        # What the imports made is moved out of the collector's sight: a
        # collection in a worker would otherwise write to every object's
        # header and copy every page it shares with this process.
        import gc

        gc.collect()
        gc.freeze()
        signal.signal(signal.SIGCHLD, self.reap)

    def fork_worker(self) -> dict:
        """Receives a worker's stdin, stdout and stderr from the host and forks
        a child that serves on them as a fresh worker would; its pid."""
        import socket

        if self.fork_socket is None:
            raise RpcError(-32601, "method not found: riverse/fork")
        if self.threaded is not None:
            raise RpcError(FORK_REFUSED, f"{self.threaded} started a thread at import")
        _data, fds, _flags, _address = socket.recv_fds(self.fork_socket, 1, 3)
        if len(fds) != 3:
            for fd in fds:
                os.close(fd)
            raise RpcError(-32602, f"riverse/fork needs 3 descriptors, got {len(fds)}")
        for stream in (sys.stdout, sys.stderr):
            stream.flush()  # or the child would print it again
        pid = os.fork()
        if pid == 0:
            try:
                self.serve_as_forked_worker(fds)
            finally:
                os._exit(0)
        for fd in fds:
            os.close(fd)
        try:
            os.setpgid(pid, pid)  # as the child does: whichever runs first
        except OSError:
            pass  # the child got there first, or has already ended
        return {"pid": pid}

    def serve_as_forked_worker(self, fds: list[int]) -> None:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.setpgid(0, 0)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        self.fork_socket.close()
        name_process(PROCESS_LABEL)
        for stream in (self.proto_in, self.proto_out):
            try:
                os.close(stream.fileno())
            except OSError:
                pass
        end = end_with_the_host()
        if end is not None:
            become_subreaper()
            enter_own_signal_domain()
            watch_the_host(self.host_pid, end)
        proto_in, proto_out = take_protocol_streams()
        Server(proto_in, proto_out, self.default_tools_dir, self.default_config).serve()
        if end is not None:
            end()

    def reap(self, *_args) -> None:
        """SIGCHLD: reaps forked workers and tells the host how each ended
        (it is not their parent and cannot wait for them)."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            if os.WIFSIGNALED(status):
                self.exits.append({"pid": pid, "signal": os.WTERMSIG(status)})
            else:
                self.exits.append({"pid": pid, "status": os.waitstatus_to_exitcode(status)})
        if not self.sending:
            self.report_exits()

    def report_exits(self) -> None:
        while self.exits:
            self.send({"jsonrpc": "2.0", "method": WORKER_EXITED, "params": self.exits.pop(0)})

    def announce(self, file: str) -> None:
        self.send({"jsonrpc": "2.0", "method": "notifications/riverse/importing", "params": {"file": file}})
        self.label(file)

    def label(self, name: str) -> None:
        """Tells the Riverse host, in the stderr stream itself, that what follows
        there comes from `name`, so output is attributed in order. Written only
        when it changes; a standalone MCP server writes none."""
        if not self.labels or name == self.current_label:
            return
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass  # a tool closed or broke it; the marker still goes out
        try:
            os.write(2, self.marker + name.encode("utf-8", "replace") + b"\n")
        except OSError:
            return  # stderr is gone: there is no output left to attribute
        self.current_label = name


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


def end_with_the_host():
    """When the host is gone, the worker ends and takes its process group (a
    tool's children) with it: Linux sends SIGTERM when the host dies (the host
    asks for it at spawn), and the protocol stream's end says so anywhere.
    A worker that is a child subreaper first kills every descendant that left
    its group (see `become_subreaper`)."""
    if os.getpgrp() != os.getpid():
        return  # not a group of its own (a standalone server): leave it alone

    def end(*_args):
        if subreaper:
            kill_adopted_children()
        os.killpg(os.getpgrp(), signal.SIGKILL)

    signal.signal(signal.SIGTERM, end)
    return end


# Whether this process is a child subreaper (see `become_subreaper`).
subreaper = False

# PR_SET_CHILD_SUBREAPER, from <linux/prctl.h>.
PR_SET_CHILD_SUBREAPER = 36

# The most rounds `kill_adopted_children` makes: each round kills one
# generation of what the tool left, so only a tree this deep, or a process
# stuck in the kernel this long, is left for the kernel to end.
KILL_ROUNDS = 100


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


def kill_adopted_children() -> None:
    """Kills this process's children, whatever their group, round after
    round: the children of a killed one are re-parented here (a subreaper)
    and are killed in the next round. Only direct children are signalled,
    never reaped here, so no pid can be another process's by the time it is
    signalled. A worker in a signal domain of its own (a sandboxed one,
    which can't read /proc) kills its whole domain instead."""
    import time

    if own_signal_domain:
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


# Whether this worker made a Landlock domain of its own that scopes signals
# (see `enter_own_signal_domain`).
own_signal_domain = False

# Landlock's system calls (the same numbers on every architecture but alpha),
# LANDLOCK_SCOPE_SIGNAL from <linux/landlock.h>, PR_SET_NO_NEW_PRIVS from
# <linux/prctl.h>.
LANDLOCK_CREATE_RULESET = 444
LANDLOCK_RESTRICT_SELF = 446
LANDLOCK_SCOPE_SIGNAL = 1 << 1
PR_SET_NO_NEW_PRIVS = 38


def enter_own_signal_domain() -> None:
    """Has a sandboxed worker enter a Landlock domain of its own, nested in its
    sandbox's, that restricts nothing but signals (Landlock ABI 6, Linux 6.12):
    from then on every process it or its tools start is in that domain, or
    in one nested in it, whatever its parent, group or session, and a signal
    sent from the worker reaches no process outside it. So `kill(-1)` reaches
    exactly what the worker started, which is how a sandboxed worker, which
    can't read /proc, finds what to kill when the host is gone (see
    `kill_adopted_children`). Each worker makes its own, even one forked from
    a fork server in a domain shared with its siblings; until one is made,
    and wherever it can't be, `kill(-1)` is never sent."""
    global own_signal_domain
    own_signal_domain = False
    if SANDBOX is None or SANDBOX.landlock_abi < 6 or not sys.platform.startswith("linux"):
        return  # unsandboxed, /proc is readable; below ABI 6 (or RIVERSE_LANDLOCK_ABI) no scope
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
            own_signal_domain = libc.syscall(LANDLOCK_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)) == 0
        finally:
            os.close(ruleset)
    except (AttributeError, OSError):
        pass  # no syscall() here: the host's own sweep still covers a live host


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


def main(argv: list[str]) -> None:
    tools_dir = argv[0] if argv else os.path.join("agent", "tools")
    config = {}
    if len(argv) > 1:
        with open(argv[1], encoding="utf-8") as file:
            config = json.load(file)
    global SANDBOX
    SANDBOX = SandboxRules.from_environment()
    end = end_with_the_host()
    if end is not None:
        become_subreaper()
        enter_own_signal_domain()
    proto_in, proto_out = take_protocol_streams()
    Server(proto_in, proto_out, tools_dir, config).serve()
    if end is not None:
        end()


# The first argument after the code of a worker the host started: its
# command line reads `python -c … riverse-worker [POOL] PROJECT` in `ps`.
PROCESS_LABEL = "riverse-worker"

# PR_SET_NAME, from <linux/prctl.h>: the name `ps -o comm` and `top` show.
PR_SET_NAME = 15


def boot() -> None:
    """Serves as a worker the host started with the bootstrap in
    `script.rs`, which put this file's directory first on sys.path and
    turned bytecode writing on, to import it: both are undone."""
    del sys.path[0]
    sys.dont_write_bytecode = bool(sys.flags.dont_write_bytecode)
    serve_as_spawned()


def serve_as_spawned() -> None:
    # The label is for `ps`: tools see sys.argv as `python -c` leaves it (a
    # library that parses sys.argv would take the label for its options).
    del sys.argv[1:]
    name_process(PROCESS_LABEL)
    main([])


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


if __name__ == "__main__":
    if sys.argv[1:2] == [PROCESS_LABEL]:
        serve_as_spawned()  # run with `python -c SOURCE`: no cache to import from
    else:
        main(sys.argv[1:])
