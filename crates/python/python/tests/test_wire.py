"""The protocol's JSON: what is written, what answers an unreadable line,
and why a value can't be written."""

import unittest

from riverse_worker.wire import decode_json, encode_json, not_json, top_level_id, unreadable


class EncodingTest(unittest.TestCase):
    def test_json_is_compact_and_keeps_non_ascii_text(self):
        self.assertEqual(encode_json({"a": [1, "é"], "b": None}), '{"a":[1,"é"],"b":null}')

    def test_nan_and_unknown_types_are_refused(self):
        with self.assertRaises(ValueError):
            encode_json({"x": float("nan")})
        with self.assertRaises(TypeError):
            encode_json({"x": object()})

    def test_a_line_is_read_from_utf8_bytes(self):
        self.assertEqual(decode_json('{"id":1,"t":"é"}'.encode()), {"id": 1, "t": "é"})


class NotJsonTest(unittest.TestCase):
    def test_json_values_have_no_problem(self):
        self.assertIsNone(not_json({"a": [1, 2.5, True, None, "s", {"b": ()}], 3: "int key"}, "v"))

    def test_the_first_problem_is_named_by_its_path(self):
        value = {"properties": {"when": {"default": {1, 2}}}}
        self.assertEqual(
            not_json(value, "input_schema"),
            "input_schema['properties']['when']['default'] is set, which is not JSON",
        )
        self.assertEqual(not_json([1, float("inf")], "v"), "v[1] is inf, which JSON can't hold")
        self.assertEqual(not_json({(1, 2): 3}, "v"), "v has a key of type tuple, which is not JSON")

    def test_a_value_that_holds_itself_is_named(self):
        looped = {"a": []}
        looped["a"].append(looped)
        self.assertEqual(not_json(looped, "v"), "v['a'][0] holds itself")

    def test_a_value_seen_twice_but_not_inside_itself_is_json(self):
        shared = {"x": 1}
        self.assertIsNone(not_json({"a": shared, "b": shared}, "v"))


class UnreadableTest(unittest.TestCase):
    def test_the_id_is_found_without_decoding_the_rest(self):
        line = b'{"jsonrpc":"2.0","params":{"id":7,"n":' + b"9" * 5000 + b'},"id":"r-1"}'
        self.assertEqual(top_level_id(line), "r-1")
        self.assertIsNone(top_level_id(b'{"params":{"id":7}}'))
        self.assertIsNone(top_level_id(b'{"id":true}'))

    def test_an_unreadable_request_is_answered_for_its_id(self):
        line = b'{"id":3,"params":{"n":' + b"9" * 5000 + b"}}"
        try:
            decode_json(line)
        except ValueError as exc:
            answer = unreadable(line, exc)
        self.assertEqual(answer["id"], 3)
        self.assertEqual(answer["error"]["code"], -32602)
        self.assertTrue(answer["error"]["message"].startswith("its arguments can't be read: ValueError"))

    def test_a_line_without_an_id_is_a_parse_error(self):
        answer = unreadable(b"{not json", ValueError("bad"))
        self.assertEqual(answer, {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "ValueError: bad"}})


if __name__ == "__main__":
    unittest.main()
