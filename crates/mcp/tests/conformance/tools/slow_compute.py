"""The tasks scenarios' `slow_compute`: sleeps `seconds`, then answers; a
call still running after half a second is a task."""

import time

from agent.tools import BaseTool, ToolManifest, ToolResult


class SlowCompute(BaseTool):
    def manifest(self):
        return ToolManifest(
            name="slow_compute",
            description="Sleeps, then answers",
            parameters={"seconds": "How long to sleep", "label": "A name for the run"},
            parameter_types={"seconds": "float", "label": "str"},
        )

    def execute(self, params):
        time.sleep(float(params["seconds"]))
        return ToolResult(True, f"computed {params['label']}")
