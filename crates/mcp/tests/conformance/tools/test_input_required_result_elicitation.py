"""The input-required-result scenarios' elicitation tool: asks for a name
under the key `user_name`, the schema's title."""

from agent.tools import BaseTool, ToolManifest, ToolResult

SCHEMA = {"title": "user_name", "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


class InputRequiredElicitation(BaseTool):
    def manifest(self):
        return ToolManifest(name="test_input_required_result_elicitation", description="Asks for a name", parameters={})

    def execute(self, params):
        answer = self.ask("What is your name?", schema=SCHEMA)
        return ToolResult(True, f"Hello, {answer.content.get('name', 'nobody')}!")
