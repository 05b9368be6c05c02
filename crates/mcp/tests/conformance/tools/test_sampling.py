"""The conformance suite's tools-call-sampling: asks an LLM for the prompt."""

from agent.tools import BaseTool, ToolManifest, ToolResult


class Sampling(BaseTool):
    def manifest(self):
        return ToolManifest(name="test_sampling", description="Asks the LLM", parameters={"prompt": "The prompt to send to the LLM"})

    def execute(self, params):
        try:
            completion = self.sample(params["prompt"], max_tokens=100)
        except RuntimeError as error:
            return ToolResult(False, "", f"sampling failed: {error}")
        return ToolResult(True, f"LLM response: {completion}")
