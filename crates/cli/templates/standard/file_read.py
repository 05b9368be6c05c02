"""file_read: the text of a file inside the allowed directories."""

import os

from agent.tools import BaseTool, ToolManifest, ToolResult
from agent.tools._paths import NotFound, Refused, Scope, hard_link_refusal, is_regular, open_path, tool_settings


DEFAULT_MAX_FILE_SIZE = 1_048_576
DEFAULT_MAX_CHARS = 4000


class FileReadTool(BaseTool):
    def __init__(self, config: dict):
        self.config = config
        self.settings = tool_settings(config, "file_read")

    def manifest(self) -> ToolManifest:
        return ToolManifest(
            name="file_read",
            description="Read a local text file (.txt/.py/.yaml/.json/.md etc.) inside the project",
            parameters={"path": "File path (absolute or relative to the project)"},
            examples=["Show the contents of README.md", "What's in src/main.py", "Read notes/todo.txt"],
            parameter_types={"path": "string"},
        )

    def is_available(self) -> bool:
        return self.settings.get("enabled", True)

    def execute(self, params: dict) -> ToolResult:
        path = str(params.get("path") or "").strip()
        if not path:
            return ToolResult(success=False, data="", error="missing path")
        scope = Scope(self.config, "file_read")
        try:
            # O_NONBLOCK: a FIFO put in the file's place opens at once, and
            # is then refused as not a regular file.
            opened = open_path(scope, path, os.O_RDONLY | os.O_NONBLOCK)
        except Refused as refusal:
            return ToolResult(success=False, data="", error=str(refusal))
        except NotFound:
            return ToolResult(success=False, data="", error=f"file not found: {path}")
        with os.fdopen(opened.fd, "rb") as file:
            return self.read(scope, path, opened, file)

    def read(self, scope: Scope, path: str, opened, file) -> ToolResult:
        if not is_regular(opened.info):
            return ToolResult(success=False, data="", error=f"not a regular file: {path}")
        refusal = hard_link_refusal(scope, path, opened.info, writing=False)
        if refusal:
            return ToolResult(success=False, data="", error=refusal)
        limit = self.settings.get("max_file_size", DEFAULT_MAX_FILE_SIZE)
        size = opened.info.st_size
        if size > limit:
            return ToolResult(success=False, data="", error=f"file too large: {size} bytes (limit {limit})")
        content = file.read(limit + 1).decode("utf-8", "replace")
        max_chars = self.settings.get("max_chars", DEFAULT_MAX_CHARS)
        note = ""
        if len(content) > max_chars:
            content = content[:max_chars]
            note = f"\n\n[content truncated: showing the first {max_chars} characters]"
        return ToolResult(success=True, data=f"=== {scope.shown(opened.real)} ===\n{content}{note}")
