"""The conformance suite's tools-call-simple-text: one text block."""

from agent.tools import BaseTool, ToolManifest, ToolResult


class SimpleText(BaseTool):
    def manifest(self):
        return ToolManifest(name="test_simple_text", description="Returns a simple text response", parameters={})

    def execute(self, params):
        return ToolResult(True, "This is a simple text response for testing.")
