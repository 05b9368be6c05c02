# The packages this tool imports, if any, as PEP 723 declares them: Riverse
# installs them into the project's tool environment (.riverse/venv) before
# the tools load, e.g. dependencies = ["requests>=2.31"].
# /// script
# dependencies = []
# ///
"""__NAME__: describe in one line what this tool does."""

from agent.tools import BaseTool, ToolManifest, ToolResult


class __CLASS__(BaseTool):
    def __init__(self, config: dict):
        # The whole settings.yaml as a dict: read this tool's own section,
        # `tools: {__NAME__: {...}}`, for keys, limits and defaults.
        self.settings = config.get("tools", {}).get("__NAME__", {}) or {}

    def manifest(self) -> ToolManifest:
        return ToolManifest(
            name="__NAME__",
            # What the LLM reads to decide when to call this tool: say what it
            # does and when it helps, in one sentence.
            description="Repeat a text a given number of times",
            # Each parameter and what the LLM should put in it.
            parameters={
                "text": "The text to repeat",
                "times": "How many times, e.g. 2 (default 1)",
            },
            # Parameters that are not strings: "int", "float" or "bool".
            # Riverse converts values to these types before execute() runs.
            parameter_types={"times": "int"},
            # Two or three messages that should lead here, in every language
            # your users write. `riverse eval` checks that they do.
            examples=["Repeat 'hello' three times", "Say 'hip hip' twice"],
        )

    def execute(self, params: dict) -> ToolResult:
        text = str(params.get("text", "")).strip()
        if not text:
            # A failure the LLM can explain to the user.
            return ToolResult(success=False, data="", error="missing text")
        times = params.get("times", 1)
        if not 1 <= times <= 100:
            return ToolResult(success=False, data="", error=f"times must be 1 to 100, got {times}")
        # `data` is what the LLM reads.
        return ToolResult(success=True, data=" ".join([text] * times))

    def is_available(self) -> bool:
        # Hide the tool when what it needs is missing (a key, a program).
        return self.settings.get("enabled", True)
