"""The tasks scenarios' `failing_job`: fails as a tool after a second."""

import time

from agent.tools import BaseTool, ToolManifest, ToolResult


class FailingJob(BaseTool):
    def manifest(self):
        return ToolManifest(name="failing_job", description="Fails after a second", parameters={})

    def execute(self, params):
        time.sleep(1)
        return ToolResult(False, "", "the job failed, as it always does")
