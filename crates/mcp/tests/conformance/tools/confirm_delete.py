"""The tasks scenarios' `confirm_delete`: works a second (so it becomes a
task), then asks for a confirmation."""

import time

from agent.tools import BaseTool, ToolManifest, ToolResult

SCHEMA = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}


class ConfirmDelete(BaseTool):
    def manifest(self):
        return ToolManifest(name="confirm_delete", description="Deletes a file once confirmed", parameters={"filename": "The file"})

    def execute(self, params):
        time.sleep(1)
        answer = self.ask(f"Delete {params['filename']}?", schema=SCHEMA)
        if answer.action == "accept" and answer.content.get("confirm"):
            return ToolResult(True, f"deleted {params['filename']}")
        return ToolResult(True, f"kept {params['filename']}")
