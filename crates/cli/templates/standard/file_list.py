"""file_list: the immediate contents of a directory inside the allowed directories."""

import os

from agent.tools import BaseTool, ToolManifest, ToolResult
from agent.tools._paths import contain, shown, tool_settings


class FileListTool(BaseTool):
    def __init__(self, config: dict):
        self.config = config
        self.settings = tool_settings(config, "file_list")

    def manifest(self) -> ToolManifest:
        return ToolManifest(
            name="file_list",
            description=(
                "List the immediate contents of a directory (one level deep, non-recursive). "
                "Returns subdirectories (with trailing /) and files with their sizes in bytes, "
                "followed by a summary line: `N directories, M files`."
            ),
            parameters={"path": "Directory path to list (default: the project directory)"},
            examples=["list files in the project root", "what's inside the src/ directory?"],
            parameter_types={"path": "string"},
        )

    def is_available(self) -> bool:
        return self.settings.get("enabled", True)

    def execute(self, params: dict) -> ToolResult:
        path = str(params.get("path") or ".").strip() or "."
        resolved, refusal = contain(path, self.settings)
        if refusal:
            return ToolResult(success=False, data="", error=refusal)
        if not os.path.isdir(resolved):
            return ToolResult(success=False, data="", error=f"not a directory: {path}")
        dirs, files = [], []
        for name in sorted(os.listdir(resolved)):
            full = os.path.join(resolved, name)
            if os.path.isdir(full):
                dirs.append(f"  {name}/")
            else:
                try:
                    files.append(f"  {name}  ({os.path.getsize(full)} bytes)")
                except OSError:
                    files.append(f"  {name}")
        lines = [f"=== {shown(resolved)} ===", *dirs, *files, f"\n{len(dirs)} directories, {len(files)} files"]
        return ToolResult(success=True, data="\n".join(lines))
