"""One call through a real discovery of real tool files: what `execute`
returned, checked against the contract."""

import gc
import os
import tempfile
import textwrap
import unittest

from riverse_worker.call import call_tool, result_fix
from riverse_worker.discovery import Discovery

TOOLS = {
    "typed.py": """
        from agent.tools import BaseTool, ToolManifest, ToolResult

        class Typed(BaseTool):
            def manifest(self):
                return ToolManifest(
                    "typed", "Weather", input_schema={"type": "object"},
                    output_schema={"type": "object", "properties": {"degrees": {"type": "number"}}},
                )

            def execute(self, params):
                kind = params.get("kind")
                if kind == "list":
                    return ToolResult(True, "[21]", structured=[21])
                if kind == "set":
                    return ToolResult(True, "21", structured={"degrees": {21}})
                return ToolResult(True, "21°C", structured={"degrees": 21})
        """,
    "loose.py": """
        from agent.tools import BaseTool, ToolManifest, ToolResult

        class Loose(BaseTool):
            def manifest(self):
                return ToolManifest("loose", "Returns what it should not", {"kind": "what to return"})

            def execute(self, params):
                if params.get("kind") == "text":
                    return "plain text"
                return ToolResult(True, {"a": 1})
        """,
    "bad_schema.py": """
        from agent.tools import BaseTool, ToolManifest, ToolResult

        class BadSchema(BaseTool):
            def manifest(self):
                return ToolManifest("bad_schema", "d", output_schema="object")

            def execute(self, params):
                return ToolResult(True, "")
        """,
}


class CallTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        tools_dir = os.path.join(cls.dir.name, "call_tools")
        os.mkdir(tools_dir)
        for name, source in TOOLS.items():
            with open(os.path.join(tools_dir, name), "w", encoding="utf-8") as file:
                file.write(textwrap.dedent(source))
        cls.discovery = Discovery(tools_dir, {}, [], lambda file: None)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_discovery_reports_the_schemas_and_a_broken_one_with_its_place(self):
        files = {report["file"]: report for report in self.discovery.files}
        typed = files["typed.py"]["classes"][0]["manifest"]
        self.assertEqual(typed["input_schema"], {"type": "object"})
        self.assertEqual(typed["output_schema"]["properties"], {"degrees": {"type": "number"}})
        error = files["bad_schema.py"]["classes"][0]["error"]
        self.assertEqual(
            error["message"],
            'BadSchema.manifest() returned a ToolManifest for tool "bad_schema" whose output_schema is str, '
            "expected a JSON Schema object (a dict)",
        )
        self.assertEqual((error["file"], error["line"]), ("bad_schema.py", 5))

    def test_structured_output_is_returned_beside_the_text(self):
        self.assertEqual(
            call_tool(self.discovery, "typed", {}),
            {"success": True, "data": "21°C", "error": "", "structured": {"degrees": 21}},
        )

    def test_structured_output_that_is_no_json_object_fails_the_call_where_it_was_returned(self):
        listed = call_tool(self.discovery, "typed", {"kind": "list"})
        self.assertEqual(
            listed["error"],
            "execute() returned a ToolResult whose structured is list, expected a dict (a JSON object) (typed.py:14)",
        )
        held = call_tool(self.discovery, "typed", {"kind": "set"})
        self.assertEqual(
            held["error"],
            "execute() returned a ToolResult whose structured['degrees'] is set, which is not JSON (typed.py:16)",
        )

    def test_a_result_that_breaks_the_contract_says_what_to_write(self):
        self.assertEqual(
            call_tool(self.discovery, "loose", {"kind": "text"})["error"],
            "execute() returned str, expected ToolResult (loose.py:10)\nwrap the text: return ToolResult(True, text)",
        )
        self.assertEqual(
            call_tool(self.discovery, "loose", {})["error"],
            "execute() returned a ToolResult whose data is dict, expected str (loose.py:11)\n"
            "pass it as text: ToolResult(True, json.dumps(...))",
        )

    def test_calls_leave_no_cycle_for_the_garbage_collector(self):
        # The frame `execute` ran in is kept until the result is checked; held
        # as its callers end, it would tie their frames into a cycle at every
        # call, and a collection would pause a call every few dozen.
        gc.collect()
        gc.disable()
        try:
            for kind in ("dict", "text", "dict", "list"):
                tool = "typed" if kind in ("dict", "list") else "loose"
                call_tool(self.discovery, tool, {"kind": kind})
            self.assertEqual(gc.collect(), 0)
        finally:
            gc.enable()

    def test_an_unknown_tool_is_named(self):
        self.assertEqual(call_tool(self.discovery, "nowhere", {})["error"], 'unknown tool "nowhere"')


class ResultFixTest(unittest.TestCase):
    def test_each_wrong_value_has_its_fix(self):
        self.assertEqual(result_fix(None, (True, "x")), "return ToolResult(success, data) rather than a tuple")
        self.assertEqual(result_fix("success", "yes"), "pass True or False: ToolResult(True, data)")
        self.assertEqual(result_fix("error", b"x"), 'pass it as text: ToolResult(False, "", str(..., "utf-8"))')


if __name__ == "__main__":
    unittest.main()
