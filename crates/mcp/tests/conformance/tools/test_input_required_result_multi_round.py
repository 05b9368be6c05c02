"""The input-required-result-multi-round scenario's tool: two questions, one
after the other, each its own round."""

from agent.tools import BaseTool, ToolManifest, ToolResult


def schema(key, field):
    return {"title": key, "type": "object", "properties": {field: {"type": "string"}}, "required": [field]}


class InputRequiredMultiRound(BaseTool):
    def manifest(self):
        return ToolManifest(name="test_input_required_result_multi_round", description="Asks twice", parameters={})

    def execute(self, params):
        name = self.ask("Step 1: What is your name?", schema=schema("step1", "name")).content.get("name")
        color = self.ask("Step 2: What is your favorite color?", schema=schema("step2", "color")).content.get("color")
        return ToolResult(True, f"{name} likes {color}")
