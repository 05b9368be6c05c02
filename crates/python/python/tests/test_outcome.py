"""A call's outcome as the host reads it, and as a standalone MCP server
answers `tools/call`."""

import unittest

from riverse_worker.contract import Image, Resource
from riverse_worker.mcp_shapes import mcp_call_result
from riverse_worker.outcome import (
    LIMITS,
    ContentError,
    cut,
    encode_content,
    human_size,
    outcome,
    structured_problem,
)


class CutTest(unittest.TestCase):
    def test_text_within_the_limit_is_whole(self):
        self.assertEqual(cut("hello", 5), ("hello", None))
        self.assertEqual(cut("hello", None), ("hello", None))

    def test_text_is_cut_at_a_character_boundary_with_its_size(self):
        self.assertEqual(cut("abcdef", 4), ("abcd", 6))
        # "é" is two bytes: the third byte would split the second one.
        self.assertEqual(cut("ééé", 3), ("é", 6))


class OutcomeTest(unittest.TestCase):
    def tearDown(self):
        LIMITS.max_output_bytes = None

    def test_structured_output_rides_beside_the_text_and_is_absent_without_it(self):
        self.assertEqual(outcome(True, "21°C", ""), {"success": True, "data": "21°C", "error": ""})
        self.assertEqual(
            outcome(True, "21°C", "", structured={"degrees": 21}),
            {"success": True, "data": "21°C", "error": "", "structured": {"degrees": 21}},
        )

    def test_cut_fields_say_their_size(self):
        LIMITS.max_output_bytes = 4
        self.assertEqual(
            outcome(False, "abcdef", "failure"),
            {"success": False, "data": "abcd", "error": "fail", "dataBytes": 6, "errorBytes": 7},
        )


class StructuredProblemTest(unittest.TestCase):
    def test_a_json_object_within_the_limit_goes(self):
        self.assertIsNone(structured_problem({"degrees": 21.5, "tags": ["a"]}, 1000))
        self.assertIsNone(structured_problem({"degrees": 21.5}, None))

    def test_anything_but_a_dict_is_named(self):
        self.assertEqual(
            structured_problem([1, 2], None), "structured is list, expected a dict (a JSON object)"
        )

    def test_what_json_cant_hold_is_named_by_its_path(self):
        self.assertEqual(
            structured_problem({"at": {"nan": float("nan")}}, None),
            "structured['at']['nan'] is nan, which JSON can't hold",
        )
        self.assertEqual(
            structured_problem({"raw": b"\x00"}, None), "structured['raw'] is bytes, which is not JSON"
        )

    def test_a_value_larger_than_a_result_may_hold_is_refused_whole(self):
        self.assertEqual(
            structured_problem({"text": "x" * 2000}, 1500),
            "structured is 2.0 KB as JSON, over the 1.5 KB a result may hold",
        )


class ContentTest(unittest.TestCase):
    def test_blocks_are_encoded_and_those_past_the_budget_left_out(self):
        blocks, left_out = encode_content([Image(b"abc"), Resource("file:///a", text="hi"), Image(b"x" * 10)], 6)
        self.assertEqual(
            blocks,
            [
                {"type": "image", "data": "YWJj", "mime_type": "image/png"},
                {"type": "resource", "uri": "file:///a", "text": "hi"},
            ],
        )
        self.assertEqual(left_out, ["[image image/png, 10 B] left out: a result carries at most 6 B of content"])

    def test_a_block_of_the_wrong_kind_is_named(self):
        with self.assertRaises(ContentError) as caught:
            encode_content(["text"], 100)
        self.assertEqual(str(caught.exception), "content[0] is str, expected Image, Audio or Resource")

    def test_sizes_read_as_riverse_tool_writes_them(self):
        self.assertEqual([human_size(n) for n in (512, 12_345, 2_000_000)], ["512 B", "12.3 KB", "2.0 MB"])


class McpCallResultTest(unittest.TestCase):
    def test_structured_output_is_the_structured_content(self):
        result = outcome(True, "21°C", "", structured={"degrees": 21})
        self.assertEqual(
            mcp_call_result(result, {"output_schema": {"type": "object"}}),
            {"content": [{"type": "text", "text": "21°C"}], "isError": False, "structuredContent": {"degrees": 21}},
        )

    def test_a_typed_tool_s_failure_has_no_structured_content(self):
        result = outcome(False, "", "no such city")
        self.assertEqual(
            mcp_call_result(result, {"output_schema": {"type": "object"}}),
            {"content": [{"type": "text", "text": "no such city"}], "isError": True},
        )

    def test_an_untyped_tool_gives_its_whole_result(self):
        result = outcome(True, "hi", "")
        self.assertEqual(
            mcp_call_result(result, {"name": "echo"})["structuredContent"],
            {"success": True, "data": "hi", "error": ""},
        )


if __name__ == "__main__":
    unittest.main()
