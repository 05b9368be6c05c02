"""Asks for an address as a nested object, which MCP's elicitation can't ask."""

from agent.tools import BaseTool, ToolManifest, ToolResult

SCHEMA = {
    "type": "object",
    "properties": {"address": {"type": "object", "properties": {"city": {"type": "string"}}}},
}


class AsksForAnAddress(BaseTool):
    def manifest(self):
        return ToolManifest(name="asks_for_an_address", description="Asks where", parameters={})

    def execute(self, params):
        return ToolResult(True, self.ask("Where do you live?", schema=SCHEMA).action)
