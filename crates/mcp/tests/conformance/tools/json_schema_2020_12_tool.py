"""The conformance suite's json-schema-2020-12: a tool whose input schema
uses JSON Schema 2020-12 (`$schema`, `$defs` with an `$anchor` and a `$ref`
to it, `additionalProperties`, and the composition and conditional keywords
SEP-2106 allows: `allOf`/`anyOf`, `if`/`then`/`else`), which `tools/list`
must show whole."""

from agent.tools import BaseTool, ToolManifest, ToolResult

INPUT_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {
                "street": {"type": "string"},
                "city": {"type": "string"},
            },
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}


class JsonSchema2020Tool(BaseTool):
    def manifest(self):
        return ToolManifest(
            name="json_schema_2020_12_tool",
            description="Tool with JSON Schema 2020-12 features",
            input_schema=INPUT_SCHEMA,
        )

    def execute(self, params):
        reach = params.get("phone") or params.get("email")
        return ToolResult(True, f"{params.get('name', 'someone')}, reached at {reach}")
