"""The conformance suite's tools-call-elicitation: asks for a name and an email."""

import json

from agent.tools import BaseTool, ToolManifest, ToolResult

SCHEMA = {
    "type": "object",
    "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"},
    },
    "required": ["username", "email"],
}


class Elicitation(BaseTool):
    def manifest(self):
        return ToolManifest(name="test_elicitation", description="Asks the user", parameters={"message": "The message to show the user"})

    def execute(self, params):
        answer = self.ask(params["message"], schema=SCHEMA)
        return ToolResult(True, f"User response: action={answer.action}, content={json.dumps(answer.content)}")
