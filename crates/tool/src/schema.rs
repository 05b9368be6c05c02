//! How a manifest is shown to a client (native function calling, MCP): its
//! description with the examples, and the JSON Schema of its parameters.
//!
//! The Python worker answers MCP `tools/list` itself in standalone mode and
//! mirrors both (`listed_tool` in the worker's `mcp_shapes.py`); the golden test in
//! `tests/schema_golden.rs` holds the two to the same output.

use serde_json::{Map, Value, json};

use crate::manifest::ToolManifest;

/// An object schema with one property per declared parameter, typed by
/// `parameter_types` and described by `parameters`. No parameter is marked
/// required: the contract lets a tool decide what a missing one means. A union
/// is a type array; a type name Riverse doesn't know leaves the property
/// without a type, since any value passes through. A manifest that carries
/// its source's own schema ([`ToolManifest::input_schema`]) gives that.
pub fn input_schema(manifest: &ToolManifest) -> Value {
    if let Some(schema) = &manifest.input_schema {
        return schema.clone();
    }
    let mut properties = Map::new();
    for (name, description) in &manifest.parameters {
        let mut property = property_type(manifest, name);
        property.insert("description".into(), json!(description));
        properties.insert(name.clone(), Value::Object(property));
    }
    for name in manifest.parameter_types.keys() {
        if !properties.contains_key(name) {
            properties.insert(name.clone(), Value::Object(property_type(manifest, name)));
        }
    }
    json!({"type": "object", "properties": properties})
}

/// The description followed by the examples, one a line.
pub fn described(manifest: &ToolManifest) -> String {
    let mut text = manifest.description.clone();
    if !manifest.examples.is_empty() {
        text.push_str("\n\nExamples:");
        for example in &manifest.examples {
            text.push_str("\n- ");
            text.push_str(example);
        }
    }
    text
}

fn property_type(manifest: &ToolManifest, name: &str) -> Map<String, Value> {
    let schema_type = match manifest.parameter_types.get(name) {
        Some(declared) => declared.schema_type(),
        None => Some(json!("string")),
    };
    let mut property = Map::new();
    if let Some(schema_type) = schema_type {
        property.insert("type".into(), schema_type);
    }
    property
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn parameters_become_typed_described_properties() {
        let manifest: ToolManifest = serde_json::from_value(json!({
            "name": "convert", "description": "d",
            "parameters": {"value": "the amount", "unit": "the unit"},
            "parameter_types": {"value": "float"}
        }))
        .unwrap();
        assert_eq!(
            input_schema(&manifest),
            json!({"type": "object", "properties": {
                "value": {"type": "number", "description": "the amount"},
                "unit": {"type": "string", "description": "the unit"}
            }})
        );
    }

    #[test]
    fn unions_are_type_arrays_and_unknown_types_have_no_type() {
        let manifest: ToolManifest = serde_json::from_value(json!({
            "name": "manage", "description": "d",
            "parameters": {"value": "new value", "when": "a time", "tags": "tags"},
            "parameter_types": {"value": "bool|int|float|string", "when": "datetime", "tags": "list"}
        }))
        .unwrap();
        assert_eq!(
            input_schema(&manifest),
            json!({"type": "object", "properties": {
                "value": {"type": ["boolean", "integer", "number", "string"], "description": "new value"},
                "when": {"description": "a time"},
                "tags": {"type": "array", "description": "tags"}
            }})
        );
    }
}
