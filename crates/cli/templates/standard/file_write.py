"""file_write: writes text to a file inside the allowed directories."""

import os

from agent.tools import BaseTool, ToolManifest, ToolResult
from agent.tools._paths import NotFound, Refused, Scope, hard_link_refusal, is_regular, open_path, tool_settings


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
        scope = Scope(self.config, "file_write")
        # Not O_TRUNC: the file is emptied only once it is known to be a
        # regular file with one link, inside the scope.
        flags = os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK
        try:
            opened = open_path(scope, path, flags, make_parents=True)
        except Refused as refusal:
            return ToolResult(success=False, data="", error=str(refusal))
        except NotFound:
            return ToolResult(success=False, data="", error=f"can't write {path}: a parent is not a directory")
        except IsADirectoryError:
            return ToolResult(success=False, data="", error=f"is a directory: {path}")
        except OSError as exc:
            return ToolResult(success=False, data="", error=f"can't write {path}: {exc.strerror}")
        with os.fdopen(opened.fd, "wb") as file:
            if not is_regular(opened.info):
                return ToolResult(success=False, data="", error=f"not a regular file: {path}")
            refusal = hard_link_refusal(scope, path, opened.info, writing=True)
            if refusal:
                return ToolResult(success=False, data="", error=refusal)
            file.truncate(0)
            file.write(content.encode("utf-8"))
        return ToolResult(success=True, data=f"Written {len(content)} characters to {scope.shown(opened.real)}")
