//! JSON Schema for a manifest's parameters (native function calling, MCP).

use serde_json::{Map, Value, json};

use crate::manifest::ToolManifest;

/// An object schema with one property per declared parameter, typed by
/// `parameter_types` and described by `parameters`. No parameter is marked
/// required: the contract lets a tool decide what a missing one means.
pub fn input_schema(manifest: &ToolManifest) -> Value {
    let mut properties = Map::new();
    for (name, description) in &manifest.parameters {
        properties.insert(
            name.clone(),
            json!({
                "type": manifest.param_type(name).json_type(),
                "description": description,
            }),
        );
    }
    for (name, kind) in &manifest.parameter_types {
        if !properties.contains_key(name) {
            properties.insert(name.clone(), json!({"type": kind.json_type()}));
        }
    }
    json!({"type": "object", "properties": properties})
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
}
