"""What a worker run as a standalone MCP server answers: a tool as
`tools/list` lists it, a call's outcome as `tools/call` answers it.

`input_schema` and `described` are riverse-tool's functions of the same
names, which crates/tool/tests/schema_golden.rs holds this code to."""

from __future__ import annotations

# `parameter_types` names and their JSON Schema types; a union (`int|float`) or
# another name is documentation and passes values through unconverted.
SCHEMA_TYPES = {
    "str": "string", "string": "string", "text": "string",
    "int": "integer", "integer": "integer",
    "float": "number", "number": "number",
    "bool": "boolean", "boolean": "boolean",
    "list": "array", "array": "array",
    "dict": "object", "object": "object",
}
# What a type name is trimmed of, as Rust's `str::trim` (Unicode White_Space):
# `str.strip()` would also strip \x1c-\x1f.
TYPE_NAME_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000" + "".join(
    map(chr, range(0x2000, 0x200B))
)


def listed_tool(manifest: dict) -> dict:
    """A manifest (as `manifest.manifest_dict` writes it) as `tools/list`
    lists it: its own `input_schema` whole, else the one its parameters
    build; its `output_schema` and `annotations` when it has them."""
    own = manifest.get("input_schema")
    listed = {
        "name": manifest["name"],
        "description": described(manifest),
        "inputSchema": own if own is not None else input_schema(manifest),
    }
    if manifest.get("output_schema") is not None:
        listed["outputSchema"] = manifest["output_schema"]
    if manifest.get("annotations"):
        listed["annotations"] = manifest["annotations"]
    return listed


def schema_type(declared: str):
    """A type name, a list of them for a union, or None when one is unknown
    (as `DeclaredType::schema_type` in riverse-tool)."""
    names = []
    for member in declared.split("|"):
        name = SCHEMA_TYPES.get(member.strip(TYPE_NAME_SPACE).lower())
        if name is None:
            return None
        if name not in names:
            names.append(name)
    return names[0] if len(names) == 1 else names


def input_schema(manifest: dict) -> dict:
    types_ = manifest["parameter_types"]

    def typed(key: str) -> dict:
        kind = schema_type(types_.get(key, "string"))
        return {} if kind is None else {"type": kind}

    properties = {key: {**typed(key), "description": text} for key, text in manifest["parameters"].items()}
    for key in types_:
        if key not in properties:
            properties[key] = typed(key)
    return {"type": "object", "properties": properties}


def described(manifest: dict) -> str:
    """The description followed by the examples, one a line."""
    text = manifest["description"]
    if manifest["examples"]:
        text += "\n\nExamples:" + "".join(f"\n- {example}" for example in manifest["examples"])
    return text


def mcp_call_result(result: dict, manifest: dict | None) -> dict:
    """An outcome (as `outcome.outcome` writes it) as an MCP client reads
    `tools/call`'s answer: the text and the content blocks, and the result's
    structured output. A tool without typed output (no `output_schema`)
    gives its whole `ToolResult` as structured content instead."""
    text = result["data"] if result["success"] else result["error"]
    blocks = [mcp_content(block) for block in result.get("content", ())]
    texts = [{"type": "text", "text": text}] if text or not blocks else []
    answer = {"content": texts + blocks, "isError": not result["success"]}
    if "structured" in result:
        answer["structuredContent"] = result["structured"]
    elif manifest is None or manifest.get("output_schema") is None:
        answer["structuredContent"] = {key: value for key, value in result.items() if key != "content"}
    return answer


def mcp_content(block: dict) -> dict:
    """A content block as MCP writes it."""
    if block["type"] in ("image", "audio"):
        return {"type": block["type"], "data": block["data"], "mimeType": block["mime_type"]}
    resource = {"uri": block["uri"]}
    for key, mcp_key in (("text", "text"), ("blob", "blob"), ("mime_type", "mimeType")):
        if key in block:
            resource[mcp_key] = block[key]
    if "text" not in resource and "blob" not in resource:
        resource["text"] = ""
    return {"type": "resource", "resource": resource}
