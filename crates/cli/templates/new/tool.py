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
        # The whole settings.yaml as a dict; this tool's own section,
        # `tools: {__NAME__: {...}}`, holds its keys, limits and defaults.
        self.config = config
        self.settings = config.get("tools", {}).get("__NAME__", {}) or {}

    def manifest(self) -> ToolManifest:
        return ToolManifest(
            name="__NAME__",
            # What the LLM reads to decide when to call this tool: say what it
            # does and when it helps, in one sentence, e.g.
            # "Get the current weather of a city".
            description="Placeholder from riverse new, not written yet: never call it",
            # Each parameter and what the LLM should put in it, e.g.
            # {"city": "City name, e.g. Tokyo, London", "days": "How many days, e.g. 3"}.
            parameters={},
            # Parameters that are not strings: "int", "float" or "bool", e.g.
            # {"days": "int"}. Riverse converts values to these types before
            # execute() runs.
            parameter_types={},
            # Two or three messages that should lead here, in every language
            # your users write, e.g. ["What's the weather in Tokyo?"].
            # `riverse eval` checks that they do.
            examples=[],
        )

    def execute(self, params: dict) -> ToolResult:
        # `params` holds what the LLM chose, converted to the declared types.
        # Return ToolResult(success=True, data=...): `data` is what the LLM
        # reads. A failure the LLM can explain to the user is
        # ToolResult(success=False, data="", error="missing city").
        return ToolResult(success=False, data="", error="not written yet: edit __PATH__")

    def is_available(self) -> bool:
        # Hide the tool when what it needs is missing (a key, a program).
        return self.settings.get("enabled", True)
