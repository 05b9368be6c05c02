"""The input-required-result-capability-check scenario's tool: asks a
question and samples; a client is sent only what it declared it answers."""

from agent.tools import BaseTool, ToolManifest, ToolResult


class InputRequiredCapabilities(BaseTool):
    def manifest(self):
        return ToolManifest(name="test_input_required_result_capabilities", description="Asks and samples", parameters={})

    def execute(self, params):
        answer = self.ask("What is your name?", {"name": "Your name"})
        try:
            completion = self.sample("Say hello", max_tokens=50)
        except RuntimeError as error:
            completion = f"(no sample: {error})"
        return ToolResult(True, f"name: {answer.content.get('name')}; sample: {completion}")
