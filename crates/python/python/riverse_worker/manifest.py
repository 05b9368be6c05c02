"""A tool's manifest, checked against the contract and written as the host
reads it."""

from __future__ import annotations

from .contract import ToolManifest
from .errors import ToolError, describe
from .wire import encode_json, not_json

# The fields that hold a JSON Schema, kept whole.
SCHEMA_FIELDS = ("input_schema", "output_schema")
# MCP's tool annotations: `title` is text, the hints are True or False.
ANNOTATION_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def manifest_dict(manifest) -> dict:
    """`manifest` as the host reads it; ToolError when a field breaks the
    contract."""
    if not isinstance(manifest, ToolManifest):
        raise ToolError(f"returned {type(manifest).__name__}, expected ToolManifest")

    def check(field, value, kind, of=None):
        if not isinstance(value, kind) or (of and not all(isinstance(v, of) for v in value)):
            what = kind.__name__ + (f" of {of.__name__}" if of else "")
            raise ToolError(f"returned a ToolManifest whose {field} is not a {what}: {value!r}")

    check("name", manifest.name, str)
    check("description", manifest.description, str)
    check("parameters", manifest.parameters, dict)
    check("parameters' keys", list(manifest.parameters), list, str)
    check("parameters' descriptions", list(manifest.parameters.values()), list, str)
    check("examples", manifest.examples, list, str)
    check("parameter_types", manifest.parameter_types, dict)
    check("parameter_types' keys", list(manifest.parameter_types), list, str)
    for key, kind in manifest.parameter_types.items():
        if not isinstance(kind, str):
            raise ToolError(
                f"returned a ToolManifest whose parameter_types[{key!r}] is {kind!r}, "
                f"expected a type name such as int, float, bool, string or a union like int|string"
            )
    # Every field was checked above: copying the containers is all a deep
    # copy (`dataclasses.asdict`, several times slower) would do.
    written = {
        "name": manifest.name,
        "description": manifest.description,
        "parameters": dict(manifest.parameters),
        "examples": list(manifest.examples),
        "parameter_types": dict(manifest.parameter_types),
    }
    for field in SCHEMA_FIELDS:
        schema = getattr(manifest, field, None)
        if schema is not None:
            check_schema(manifest.name, field, schema)
            written[field] = schema
    annotations = getattr(manifest, "annotations", None)
    if annotations is not None:
        checked = check_annotations(manifest.name, annotations)
        if checked:
            written["annotations"] = checked
    return written


def check_annotations(tool: str, annotations) -> dict:
    """A copy of `annotations` without the keys set to None; ToolError,
    naming the key, unless it is a dict of MCP's annotation keys with text
    for `title` and True or False for the hints."""
    whose = f'returned a ToolManifest for tool "{tool}" whose annotations'
    if not isinstance(annotations, dict):
        raise ToolError(f"{whose} is {type(annotations).__name__}, expected a dict such as {{'readOnlyHint': True}}")
    checked = {}
    for key, value in annotations.items():
        if key != "title" and key not in ANNOTATION_HINTS:
            known = ", ".join(("title",) + ANNOTATION_HINTS)
            raise ToolError(f"{whose} has the unknown key {key!r}; MCP's annotations are {known}")
        if value is None:
            continue
        if key == "title" and not isinstance(value, str):
            raise ToolError(f"{whose}['title'] is {type(value).__name__} {value!r}, expected text")
        if key != "title" and type(value) is not bool:
            raise ToolError(f"{whose}[{key!r}] is {type(value).__name__} {value!r}, expected True or False")
        checked[key] = value
    return checked


def check_schema(tool: str, field: str, schema) -> None:
    """ToolError unless `schema` is a JSON object: a JSON Schema is kept
    whole, and its meaning is the host's to check."""
    whose = f'returned a ToolManifest for tool "{tool}" whose'
    if not isinstance(schema, dict):
        raise ToolError(f"{whose} {field} is {type(schema).__name__}, expected a JSON Schema object (a dict)")
    try:
        encode_json(schema)
    except (TypeError, ValueError, RecursionError) as exc:
        problem = not_json(schema, field) or f"{field} is not JSON ({describe(exc)})"
        raise ToolError(f"{whose} {problem}") from None
