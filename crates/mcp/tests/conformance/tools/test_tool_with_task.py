"""The tasks-mrtr-composition scenario's tool: asks for a name at once (an
`input_required` result), then works two seconds (a task)."""

import time

from agent.tools import BaseTool, ToolManifest, ToolResult

SCHEMA = {"title": "user_name", "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


class ToolWithTask(BaseTool):
    def manifest(self):
        return ToolManifest(name="test_tool_with_task", description="Asks, then works in the background", parameters={})

    def execute(self, params):
        answer = self.ask("What is your name?", schema=SCHEMA)
        time.sleep(2)
        return ToolResult(True, f"Hello, {answer.content.get('name', 'nobody')}!")
