"""file_write: writes text to a file inside the allowed directories."""

import os

from agent.tools import BaseTool, ToolManifest, ToolResult
from agent.tools._paths import contain, shown, tool_settings


class FileWriteTool(BaseTool):
    def __init__(self, config: dict):
        self.config = config
        self.settings = tool_settings(config, "file_write")

    def manifest(self) -> ToolManifest:
        return ToolManifest(
            name="file_write",
            description=(
                "Write text content to a local file inside the project. "
                "Creates the file if it does not exist; overwrites it if it does. "
                "Parent directories are created automatically."
            ),
            parameters={
                "path": "File path to write (absolute or relative to the project)",
                "content": "Text content to write to the file (UTF-8)",
            },
            examples=["save the summary to notes/summary.md", "create config file at config/app.yaml"],
            parameter_types={"path": "string", "content": "string"},
        )

    def is_available(self) -> bool:
        return self.settings.get("enabled", True)

    def execute(self, params: dict) -> ToolResult:
        path = str(params.get("path") or "").strip()
        content = params.get("content")
        content = "" if content is None else str(content)
        if not path:
            return ToolResult(success=False, data="", error="missing path")
        resolved, refusal = contain(path, self.settings)
        if refusal:
            return ToolResult(success=False, data="", error=refusal)
        if os.path.isdir(resolved):
            return ToolResult(success=False, data="", error=f"is a directory: {path}")
        os.makedirs(os.path.dirname(resolved), exist_ok=True)
        # The path is resolved: a symlink put in its place since would be
        # refused here rather than followed.
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(resolved, flags, 0o644)
        except OSError as exc:
            return ToolResult(success=False, data="", error=f"can't write {path}: {exc.strerror}")
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(content)
        return ToolResult(success=True, data=f"Written {len(content)} characters to {shown(resolved)}")
