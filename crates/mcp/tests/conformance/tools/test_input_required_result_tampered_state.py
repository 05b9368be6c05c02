"""The input-required-result-tampered-state scenario's tool: asks for a
confirmation; a requestState the server did not give is refused."""

from agent.tools import BaseTool, ToolManifest, ToolResult

SCHEMA = {"title": "confirm", "type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


class InputRequiredTamperedState(BaseTool):
    def manifest(self):
        return ToolManifest(name="test_input_required_result_tampered_state", description="Asks for a confirmation", parameters={})

    def execute(self, params):
        answer = self.ask("Please confirm", schema=SCHEMA)
        return ToolResult(True, f"confirmed={answer.content.get('ok')}")
