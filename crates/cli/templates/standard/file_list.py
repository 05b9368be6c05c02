"""file_list: the immediate contents of a directory inside the allowed directories."""

import os
import stat

from agent.tools import BaseTool, ToolManifest, ToolResult
from agent.tools._paths import NotFound, Refused, Scope, open_path, tool_settings, visible_entries


class FileListTool(BaseTool):
    def __init__(self, config: dict):
        self.config = config
        self.settings = tool_settings(config, "file_list")

    def manifest(self) -> ToolManifest:
        return ToolManifest(
            name="file_list",
            description=(
                "List the immediate contents of a directory (one level deep, non-recursive). "
                "Returns subdirectories (with trailing /), files with their sizes in bytes and "
                "symlinks (with @), followed by a summary line: `N directories, M files`."
            ),
            parameters={"path": "Directory path to list (default: the project directory)"},
            examples=["list files in the project root", "what's inside the src/ directory?"],
            parameter_types={"path": "string"},
        )

    def is_available(self) -> bool:
        return self.settings.get("enabled", True)

    def execute(self, params: dict) -> ToolResult:
        path = str(params.get("path") or ".").strip() or "."
        scope = Scope(self.config, "file_list")
        try:
            opened = open_path(scope, path, os.O_RDONLY | os.O_NONBLOCK)
        except Refused as refusal:
            return ToolResult(success=False, data="", error=str(refusal))
        except NotFound:
            return ToolResult(success=False, data="", error=f"not a directory: {path}")
        try:
            if not stat.S_ISDIR(opened.info.st_mode):
                return ToolResult(success=False, data="", error=f"not a directory: {path}")
            dirs, files = self.entries(scope, opened)
        finally:
            os.close(opened.fd)
        lines = [f"=== {scope.shown(opened.real)} ===", *dirs, *files, f"\n{len(dirs)} directories, {len(files)} files"]
        return ToolResult(success=True, data="\n".join(lines))

    @staticmethod
    def entries(scope: Scope, opened):
        """The directory's entries, read through its descriptor; protected
        ones are left out, as if they were not there."""
        dirs, files = [], []
        for entry, _, info in visible_entries(scope, opened.fd, opened.real):
            if stat.S_ISDIR(info.st_mode):
                dirs.append(f"  {entry.name}/")
            elif stat.S_ISLNK(info.st_mode):
                files.append(f"  {entry.name}@")
            else:
                files.append(f"  {entry.name}  ({info.st_size} bytes)")
        return dirs, files
