"""file_read: the text of a file inside the allowed directories."""

import os

from agent.tools import BaseTool, ToolManifest, ToolResult
from agent.tools._paths import contain, shown, tool_settings


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
            examples=["Read settings.yaml", "Show the contents of README.md", "What's in src/main.py"],
            parameter_types={"path": "string"},
        )

    def is_available(self) -> bool:
        return self.settings.get("enabled", True)

    def execute(self, params: dict) -> ToolResult:
        path = str(params.get("path") or "").strip()
        if not path:
            return ToolResult(success=False, data="", error="missing path")
        resolved, refusal = contain(path, self.settings)
        if refusal:
            return ToolResult(success=False, data="", error=refusal)
        if not os.path.isfile(resolved):
            return ToolResult(success=False, data="", error=f"file not found: {path}")
        limit = self.settings.get("max_file_size", DEFAULT_MAX_FILE_SIZE)
        size = os.path.getsize(resolved)
        if size > limit:
            return ToolResult(success=False, data="", error=f"file too large: {size} bytes (limit {limit})")
        with open(resolved, encoding="utf-8", errors="replace") as file:
            content = file.read()
        max_chars = self.settings.get("max_chars", DEFAULT_MAX_CHARS)
        note = ""
        if len(content) > max_chars:
            content = content[:max_chars]
            note = f"\n\n[content truncated: showing the first {max_chars} characters]"
        return ToolResult(success=True, data=f"=== {shown(resolved)} ===\n{content}{note}")
