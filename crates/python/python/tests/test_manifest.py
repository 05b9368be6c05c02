"""A tool's manifest: checked against the contract, written as the host
reads it, and listed as a standalone MCP server lists it."""

import datetime
import unittest

from riverse_worker.contract import ToolManifest
from riverse_worker.errors import ToolError
from riverse_worker.manifest import manifest_dict
from riverse_worker.mcp_shapes import listed_tool, schema_type

WEATHER_INPUT = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"unit": {"enum": ["celsius", "fahrenheit"]}},
    "properties": {"city": {"type": "string"}, "unit": {"$ref": "#/$defs/unit"}},
    "required": ["city"],
    "additionalProperties": False,
}
WEATHER_OUTPUT = {"type": "object", "properties": {"degrees": {"type": "number"}}, "required": ["degrees"]}


class ManifestDictTest(unittest.TestCase):
    def test_a_plain_manifest_has_no_schema_keys(self):
        written = manifest_dict(ToolManifest("echo", "Echo text", {"text": "what to echo"}))
        self.assertEqual(
            written,
            {
                "name": "echo",
                "description": "Echo text",
                "parameters": {"text": "what to echo"},
                "examples": [],
                "parameter_types": {},
            },
        )

    def test_schemas_are_kept_whole_beside_the_parameters(self):
        manifest = ToolManifest(
            "weather", "Weather of a city", input_schema=WEATHER_INPUT, output_schema=WEATHER_OUTPUT
        )
        written = manifest_dict(manifest)
        self.assertEqual(written["parameters"], {})
        self.assertEqual(written["input_schema"], WEATHER_INPUT)
        self.assertEqual(written["output_schema"], WEATHER_OUTPUT)

    def test_a_schema_that_is_not_a_dict_names_the_tool_and_the_field(self):
        with self.assertRaises(ToolError) as caught:
            manifest_dict(ToolManifest("weather", "w", input_schema=["city"]))
        self.assertEqual(
            str(caught.exception),
            'returned a ToolManifest for tool "weather" whose input_schema is list, '
            "expected a JSON Schema object (a dict)",
        )

    def test_a_schema_holding_what_json_cant_names_its_path(self):
        schema = {"type": "object", "properties": {"when": {"default": datetime.date(2026, 1, 1)}}}
        with self.assertRaises(ToolError) as caught:
            manifest_dict(ToolManifest("weather", "w", output_schema=schema))
        self.assertEqual(
            str(caught.exception),
            'returned a ToolManifest for tool "weather" whose '
            "output_schema['properties']['when']['default'] is date, which is not JSON",
        )

    def test_a_parameter_type_that_is_not_a_name_is_refused(self):
        with self.assertRaises(ToolError) as caught:
            manifest_dict(ToolManifest("t", "d", {"n": "a number"}, parameter_types={"n": int}))
        self.assertIn("parameter_types['n'] is <class 'int'>", str(caught.exception))

    def test_annotations_are_kept_under_mcps_names_without_the_ones_set_to_none(self):
        annotations = {"title": "Weather", "readOnlyHint": True, "openWorldHint": False, "destructiveHint": None}
        written = manifest_dict(ToolManifest("weather", "w", annotations=annotations))
        self.assertEqual(written["annotations"], {"title": "Weather", "readOnlyHint": True, "openWorldHint": False})
        self.assertNotIn("annotations", manifest_dict(ToolManifest("weather", "w", annotations={})))
        self.assertNotIn("annotations", manifest_dict(ToolManifest("weather", "w")))

    def test_bad_annotations_name_the_tool_and_the_key(self):
        whose = 'returned a ToolManifest for tool "weather" whose annotations'
        for annotations, problem in [
            (
                {"readonly": True},
                " has the unknown key 'readonly'; MCP's annotations are title, readOnlyHint, "
                "destructiveHint, idempotentHint, openWorldHint",
            ),
            ({"readOnlyHint": "yes"}, "['readOnlyHint'] is str 'yes', expected True or False"),
            ({"idempotentHint": 1}, "['idempotentHint'] is int 1, expected True or False"),
            ({"title": 3}, "['title'] is int 3, expected text"),
            (["readOnlyHint"], " is list, expected a dict such as {'readOnlyHint': True}"),
        ]:
            with self.assertRaises(ToolError) as caught:
                manifest_dict(ToolManifest("weather", "w", annotations=annotations))
            self.assertEqual(str(caught.exception), whose + problem)

    def test_something_other_than_a_manifest_is_refused(self):
        with self.assertRaises(ToolError) as caught:
            manifest_dict({"name": "t"})
        self.assertEqual(str(caught.exception), "returned dict, expected ToolManifest")


class ListedToolTest(unittest.TestCase):
    def test_parameters_build_the_input_schema(self):
        manifest = manifest_dict(
            ToolManifest("shout", "Shout", {"text": "what", "times": "how often"}, ["Shout hi"], {"times": "int"})
        )
        self.assertEqual(
            listed_tool(manifest),
            {
                "name": "shout",
                "description": "Shout\n\nExamples:\n- Shout hi",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "text": {"type": "string", "description": "what"},
                        "times": {"type": "integer", "description": "how often"},
                    },
                },
            },
        )

    def test_a_tool_s_own_schemas_are_listed_whole(self):
        manifest = manifest_dict(
            ToolManifest("weather", "w", {"ignored": "x"}, input_schema=WEATHER_INPUT, output_schema=WEATHER_OUTPUT)
        )
        listed = listed_tool(manifest)
        self.assertEqual(listed["inputSchema"], WEATHER_INPUT)
        self.assertEqual(listed["outputSchema"], WEATHER_OUTPUT)

    def test_annotations_are_listed_when_the_tool_has_them(self):
        manifest = manifest_dict(ToolManifest("weather", "w", annotations={"readOnlyHint": True}))
        self.assertEqual(listed_tool(manifest)["annotations"], {"readOnlyHint": True})
        self.assertNotIn("annotations", listed_tool(manifest_dict(ToolManifest("weather", "w"))))

    def test_type_names_are_trimmed_as_rust_trims_them(self):
        self.assertEqual(schema_type("\u3000Int "), "integer")
        self.assertEqual(schema_type("int|float|int"), ["integer", "number"])
        self.assertIsNone(schema_type("\x1fint"))
        self.assertIsNone(schema_type("datetime"))


if __name__ == "__main__":
    unittest.main()
