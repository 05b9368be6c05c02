"""The input-required-result-basic-sampling scenario's tool: one sample of
the client's LLM."""

from agent.tools import BaseTool, ToolManifest, ToolResult


class InputRequiredSampling(BaseTool):
    def manifest(self):
        return ToolManifest(name="test_input_required_result_sampling", description="Asks the client's LLM", parameters={})

    def execute(self, params):
        try:
            completion = self.sample("What is the capital of France?", max_tokens=100)
        except RuntimeError as error:
            return ToolResult(False, "", f"sampling failed: {error}")
        return ToolResult(True, f"LLM response: {completion}")
