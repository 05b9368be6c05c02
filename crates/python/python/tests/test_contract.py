"""What a tool imports as `agent.tools`."""

import contextlib
import importlib
import io
import os
import sys
import tempfile
import unittest

from riverse_worker.contract import Answer, BaseTool, ToolManifest, ToolResult, question_schema
from riverse_worker.shim import EXPORTED, install_shim


class ContractTest(unittest.TestCase):
    def test_the_new_fields_default_to_none_and_old_calls_still_read(self):
        manifest = ToolManifest("echo", "Echo", {"text": "t"}, ["Echo hi"], {"n": "int"})
        self.assertEqual((manifest.input_schema, manifest.output_schema), (None, None))
        result = ToolResult(True, "hi")
        self.assertEqual((result.error, result.content, result.structured), ("", [], None))

    def test_agent_tools_holds_every_class_tool_files_import(self):
        with tempfile.TemporaryDirectory() as dir:
            tools_dir = os.path.join(dir, "tools")
            os.mkdir(tools_dir)
            with open(os.path.join(tools_dir, "_helper.py"), "w", encoding="utf-8") as file:
                file.write("from agent.tools import *\nNAMES = sorted(dir())\n")
            install_shim(tools_dir)
            tools = sys.modules["agent.tools"]
            self.assertNotIn("ToolRegistry", vars(tools))  # imported at its first use
            helper = importlib.import_module("agent.tools._helper")
            self.assertTrue(set(EXPORTED) <= set(helper.NAMES))
            self.assertIs(helper.BaseTool, BaseTool)
            self.assertEqual({getattr(tools, name).__module__ for name in EXPORTED}, {"agent.tools"})
            with self.assertRaises(ImportError):
                exec("from agent.tools import NoSuchThing", {})

    def test_fields_ask_for_required_strings_and_a_schema_is_taken_whole(self):
        self.assertEqual(
            question_schema({"name": "your name"}, None),
            {
                "type": "object",
                "properties": {"name": {"type": "string", "description": "your name"}},
                "required": ["name"],
            },
        )
        schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
        self.assertIs(question_schema({"ignored": "x"}, schema), schema)
        with self.assertRaises(TypeError):
            question_schema(None, ["not", "a", "dict"])

    def test_outside_a_call_a_tool_s_log_goes_to_stderr_and_a_question_is_a_cancel(self):
        class Quiet(BaseTool):
            def manifest(self):
                return ToolManifest("quiet", "q")

            def execute(self, params):
                return ToolResult(True, "")

        tool = Quiet({})
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            tool.log("hello", level="WARN")
        self.assertEqual(stderr.getvalue(), "[warning] hello\n")
        with self.assertRaises(ValueError):
            tool.log("x", level="loud")
        self.assertEqual(tool.ask("Go on?"), Answer("cancel"))
        self.assertFalse(tool.ask("Go on?").accepted)


if __name__ == "__main__":
    unittest.main()
