"""The conformance suite's tools-call-with-progress: 0, 50 and 100 of 100.

The steps are 100 ms apart: Riverse passes on at most one update every 50 ms
(the last, the completion, always), and a 50 ms pause could arrive as less."""

import time

from agent.tools import BaseTool, ToolManifest, ToolResult


class ToolWithProgress(BaseTool):
    def manifest(self):
        return ToolManifest(name="test_tool_with_progress", description="Reports progress in three steps", parameters={})

    def execute(self, params):
        self.progress(0, 100)
        time.sleep(0.1)
        self.progress(50, 100)
        time.sleep(0.1)
        self.progress(100, 100)
        return ToolResult(True, "Progress test completed")
