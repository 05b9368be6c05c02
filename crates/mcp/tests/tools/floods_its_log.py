"""Logs 100 000 lines, then finishes."""

from agent.tools import BaseTool, ToolManifest, ToolResult


class FloodsItsLog(BaseTool):
    def manifest(self):
        return ToolManifest(name="floods_its_log", description="Logs 100 000 lines", parameters={})

    def execute(self, params):
        for line in range(100_000):
            self.log(f"line {line}")
        return ToolResult(True, "flooded")
