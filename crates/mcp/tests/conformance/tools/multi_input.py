"""The tasks scenarios' `multi_input`: works a second, then asks two
questions at once, from two threads."""

import threading
import time

from agent.tools import BaseTool, ToolManifest, ToolResult


class MultiInput(BaseTool):
    def manifest(self):
        return ToolManifest(name="multi_input", description="Asks two questions at once", parameters={})

    def execute(self, params):
        time.sleep(1)
        answers = {}

        def ask(key, message):
            schema = {"title": key, "type": "object", "properties": {"name": {"type": "string"}}}
            answers[key] = self.ask(message, schema=schema)

        threads = [threading.Thread(target=ask, args=(key, f"Question {key}")) for key in ("first", "second")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        names = {key: answer.content.get("name") for key, answer in answers.items()}
        return ToolResult(True, f"answered: {names}")
