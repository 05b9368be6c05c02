"""grep: a regular expression searched in files inside the allowed directories."""

import fnmatch
import os
import re

from agent.tools import BaseTool, ToolManifest, ToolResult
from agent.tools._paths import allowed_dirs, contain, is_inside, tool_settings


MAX_LINES = 100


class GrepTool(BaseTool):
    def __init__(self, config: dict):
        self.config = config
        self.settings = tool_settings(config, "grep")

    def manifest(self) -> ToolManifest:
        return ToolManifest(
            name="grep",
            description=(
                "Search for a regex pattern across files. "
                "Returns matching lines in `file:line_number: content` format, at most 100."
            ),
            parameters={
                "pattern": "Regular expression pattern to search for (required)",
                "path": "Directory or file to search in (default: the project directory)",
                "file_glob": "Glob pattern for the files to search (default: * — all files), e.g. '*.py'",
            },
            examples=["find all TODO comments across the project", "search for 'def run' in *.py files under src/"],
            parameter_types={"pattern": "string", "path": "string", "file_glob": "string"},
        )

    def is_available(self) -> bool:
        return self.settings.get("enabled", True)

    def execute(self, params: dict) -> ToolResult:
        pattern = str(params.get("pattern") or "").strip()
        path = str(params.get("path") or ".").strip() or "."
        file_glob = str(params.get("file_glob") or "*").strip() or "*"
        if not pattern:
            return ToolResult(success=False, data="", error="missing pattern")
        try:
            regex = re.compile(pattern)
        except re.error as exc:
            return ToolResult(success=False, data="", error=f"invalid regular expression: {exc}")
        resolved, refusal = contain(path, self.settings)
        if refusal:
            return ToolResult(success=False, data="", error=refusal)
        if not os.path.exists(resolved):
            return ToolResult(success=False, data="", error=f"path not found: {path}")
        roots = allowed_dirs(self.settings)
        matches, truncated = [], False
        for file in self.files(resolved, file_glob):
            # A symlink inside the tree may point anywhere: check every file.
            real = os.path.realpath(file)
            if not any(is_inside(real, root) for root in roots):
                continue
            shown = os.path.relpath(file, resolved) if os.path.isdir(resolved) else path
            try:
                with open(real, encoding="utf-8", errors="replace") as handle:
                    for number, line in enumerate(handle, start=1):
                        if regex.search(line):
                            matches.append(f"{shown}:{number}: {line.rstrip()}")
                            if len(matches) >= MAX_LINES:
                                truncated = True
                                break
            except OSError:
                continue
            if truncated:
                break
        if not matches:
            return ToolResult(success=True, data=f"No matches found for pattern '{pattern}'")
        output = "\n".join(matches)
        if truncated:
            output += f"\n\n[output truncated at {MAX_LINES} lines]"
        return ToolResult(success=True, data=output)

    @staticmethod
    def files(root: str, file_glob: str) -> list[str]:
        if os.path.isfile(root):
            return [root]
        found = []
        for directory, _subdirs, names in os.walk(root):
            found.extend(os.path.join(directory, name) for name in names if fnmatch.fnmatch(name, file_glob))
        return sorted(found)
