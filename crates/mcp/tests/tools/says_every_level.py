"""Logs one line at each level, least severe first; each line is its level's name."""

from agent.tools import BaseTool, ToolManifest, ToolResult

LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


class SaysEveryLevel(BaseTool):
    def manifest(self):
        return ToolManifest(name="says_every_level", description="Logs at every level", parameters={})

    def execute(self, params):
        for level in LEVELS:
            self.log(level, level)
        return ToolResult(True, "said")
