"""The tasks scenarios' `protocol_error_job`: its interpreter dies after a
second, which a task reports as `failed`."""

import os
import time

from agent.tools import BaseTool, ToolManifest


class ProtocolErrorJob(BaseTool):
    def manifest(self):
        return ToolManifest(name="protocol_error_job", description="Crashes its interpreter", parameters={})

    def execute(self, params):
        time.sleep(1)
        os._exit(3)
