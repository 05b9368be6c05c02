"""The conformance suite's tools-call-with-logging: three lines as it works."""

import time

from agent.tools import BaseTool, ToolManifest, ToolResult


class ToolWithLogging(BaseTool):
    def manifest(self):
        return ToolManifest(name="test_tool_with_logging", description="Logs three lines as it runs", parameters={})

    def execute(self, params):
        self.log("Tool execution started")
        time.sleep(0.05)
        self.log("Tool processing data")
        time.sleep(0.05)
        self.log("Tool execution completed")
        return ToolResult(True, "Logging test completed")
