"""The tool author's contract, which the tool files import as `agent.tools`
(see `shim`): BaseTool and what it returns and gets."""

from __future__ import annotations

import abc
import dataclasses

from . import host_channel


@dataclasses.dataclass
class ToolManifest:
    name: str
    description: str
    # {name: description}: each a string unless `parameter_types` says otherwise.
    parameters: dict[str, str] = dataclasses.field(default_factory=dict)
    examples: list[str] = dataclasses.field(default_factory=list)
    parameter_types: dict[str, str] = dataclasses.field(default_factory=dict)
    # A JSON Schema (2020-12) of the arguments, kept whole: it replaces what
    # `parameters` and `parameter_types` would build, for a tool that needs
    # more than they can say ($defs, enums, nested objects, `required`).
    input_schema: dict | None = None
    # A JSON Schema of `ToolResult.structured`, which it is checked against.
    output_schema: dict | None = None
    # MCP's tool annotations, under MCP's names: `title` (text) and the hints
    # `readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`
    # (True or False). Served in `tools/list` and shown to hooks.
    annotations: dict | None = None


@dataclasses.dataclass
class ToolResult:
    success: bool
    data: str
    error: str = ""
    content: list = dataclasses.field(default_factory=list)
    # A JSON object beside `data` (MCP's structured content), checked against
    # the manifest's `output_schema`.
    structured: dict | None = None


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
        host_channel.CALLS.log(str(message), level)

    def progress(self, progress, total=None, message=None) -> None:
        """How far the call has got (`total` when known); returns at once."""
        host_channel.CALLS.progress(progress, total, message)

    def ask(self, message, fields: dict | None = None, schema: dict | None = None) -> Answer:
        """Asks the person behind the front end. `fields` is {name: description}
        (strings); `schema`, a JSON Schema object, says more. Nobody to ask is
        a cancel, never an exception."""
        action, content = host_channel.CALLS.ask(str(message), question_schema(fields, schema))
        return Answer(action, content)

    def secret(self, name: str) -> str:
        """The value of a secret the settings give this tool
        (`tools.<name>.secrets`); raises LookupError naming the secret when
        they don't. Whatever the tool returns, logs or raises has the value
        replaced by [secret:NAME] before anyone sees it."""
        from . import secrets

        return secrets.secret(name)

    def sample(self, prompt, max_tokens: int | None = None, system: str | None = None) -> str:
        """A completion from the client's LLM, or Riverse's own. Raises
        RuntimeError with the reason when neither can answer."""
        return host_channel.CALLS.sample(str(prompt), max_tokens, system)


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


for _cls in (ToolManifest, ToolResult, BaseTool, Image, Audio, Resource, Answer):
    _cls.__module__ = "agent.tools"
