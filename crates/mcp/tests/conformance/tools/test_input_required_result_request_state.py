"""The input-required-result-request-state scenario's tool: asks for a
confirmation; the call it goes on with is the one its requestState names."""

from agent.tools import BaseTool, ToolManifest, ToolResult

SCHEMA = {"title": "confirm", "type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


class InputRequiredRequestState(BaseTool):
    def manifest(self):
        return ToolManifest(name="test_input_required_result_request_state", description="Asks for a confirmation", parameters={})

    def execute(self, params):
        answer = self.ask("Please confirm", schema=SCHEMA)
        return ToolResult(True, f"state-ok: confirmed={answer.content.get('ok')}")
