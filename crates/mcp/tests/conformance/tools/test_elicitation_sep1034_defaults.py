"""The conformance suite's elicitation-sep1034-defaults: a default for every type."""

import json

from agent.tools import BaseTool, ToolManifest, ToolResult

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {
            "type": "string",
            "description": "User status",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "description": "Verification status", "default": True},
    },
}


class ElicitationDefaults(BaseTool):
    def manifest(self):
        return ToolManifest(name="test_elicitation_sep1034_defaults", description="Asks with defaults", parameters={})

    def execute(self, params):
        answer = self.ask("Please review and update the form fields with defaults", schema=SCHEMA)
        return ToolResult(True, f"Elicitation completed: action={answer.action}, content={json.dumps(answer.content)}")
