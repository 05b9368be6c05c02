"""The tasks scenarios' `greet`: quick, so it is never a task."""

from agent.tools import BaseTool, ToolManifest, ToolResult


class Greet(BaseTool):
    def manifest(self):
        return ToolManifest(name="greet", description="Greets someone", parameters={"name": "Who to greet"})

    def execute(self, params):
        return ToolResult(True, f"Hello, {params['name']}!")
