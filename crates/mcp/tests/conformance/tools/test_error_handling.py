"""The conformance suite's tools-call-error: always fails."""

from agent.tools import BaseTool, ToolManifest, ToolResult


class ErrorHandling(BaseTool):
    def manifest(self):
        return ToolManifest(name="test_error_handling", description="Always fails", parameters={})

    def execute(self, params):
        return ToolResult(False, "", "This tool intentionally returns an error for testing")
