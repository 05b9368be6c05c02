//! An MCP tool's `inputSchema` as a Riverse manifest, and back.
//!
//! A manifest knows four parameter types. Properties typed `array` or `object`
//! are declared as strings described as JSON, and their values are parsed back
//! before a call, so an LLM that writes them as text still sends the server the
//! structure it asked for. The schema itself is kept whole beside them, for
//! the models and clients that read schemas.

use indexmap::IndexMap;
use riverse_tool::{DeclaredType, ToolAnnotations, ToolManifest};
use serde_json::{Map, Value};

/// The manifest Riverse shows for an MCP tool, and which of its parameters
/// carry structured JSON.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Translated {
    pub manifest: ToolManifest,
    /// Parameters the schema types as `array` or `object`.
    pub structured: Vec<String>,
}

/// Builds a manifest named `name` from an MCP tool's description and
/// `inputSchema`: one parameter per property, described by its `description`
/// (or `title`), typed by its `type`.
pub fn manifest_from_schema(
    name: &str,
    description: &str,
    input_schema: &Map<String, Value>,
) -> ToolManifest {
    translate(name, description, input_schema).manifest
}

pub(crate) fn translate(
    name: &str,
    description: &str,
    input_schema: &Map<String, Value>,
) -> Translated {
    let required: Vec<&str> = input_schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut parameters = IndexMap::new();
    let mut parameter_types = IndexMap::new();
    let mut structured = Vec::new();
    let properties = input_schema.get("properties").and_then(Value::as_object);
    for (param, schema) in properties.into_iter().flatten() {
        let kind = json_type(schema);
        let mut text = schema
            .get("description")
            .or_else(|| schema.get("title"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let mut notes = Vec::new();
        match kind.as_deref() {
            Some("integer") => {
                parameter_types.insert(param.clone(), DeclaredType::from("int"));
            }
            Some("number") => {
                parameter_types.insert(param.clone(), DeclaredType::from("float"));
            }
            Some("boolean") => {
                parameter_types.insert(param.clone(), DeclaredType::from("bool"));
            }
            Some(shape @ ("array" | "object")) => {
                structured.push(param.clone());
                notes.push(format!("a JSON {shape}"));
            }
            _ => {}
        }
        if let Some(choices) = schema.get("enum").and_then(Value::as_array) {
            let choices: Vec<String> = choices.iter().map(plain).collect();
            notes.push(format!("one of: {}", choices.join(", ")));
        }
        if required.contains(&param.as_str()) {
            notes.push("required".to_owned());
        } else if let Some(default) = schema.get("default").filter(|v| !v.is_null()) {
            notes.push(format!("default: {}", plain(default)));
        }
        if !notes.is_empty() {
            let notes = notes.join("; ");
            text = if text.is_empty() {
                notes
            } else {
                format!("{text} ({notes})")
            };
        }
        parameters.insert(param.clone(), text);
    }
    Translated {
        manifest: ToolManifest {
            name: name.to_owned(),
            description: description.to_owned(),
            parameters,
            examples: Vec::new(),
            parameter_types,
            input_schema: Some(Value::Object(input_schema.clone())),
            output_schema: None,
            annotations: None,
        },
        structured,
    }
}

/// A server's tool annotations as a manifest keeps them: `None` when the
/// tool has none, or none that say anything.
pub(crate) fn annotations_from_mcp(
    annotations: Option<&rmcp::model::ToolAnnotations>,
) -> Option<ToolAnnotations> {
    let annotations = annotations?;
    let kept = ToolAnnotations {
        title: annotations.title.clone(),
        read_only_hint: annotations.read_only_hint,
        destructive_hint: annotations.destructive_hint,
        idempotent_hint: annotations.idempotent_hint,
        open_world_hint: annotations.open_world_hint,
    };
    (!kept.is_empty()).then_some(kept)
}

/// A manifest's annotations as MCP's `tools/list` lists them.
pub(crate) fn annotations_to_mcp(annotations: &ToolAnnotations) -> rmcp::model::ToolAnnotations {
    rmcp::model::ToolAnnotations::from_raw(
        annotations.title.clone(),
        annotations.read_only_hint,
        annotations.destructive_hint,
        annotations.idempotent_hint,
        annotations.open_world_hint,
    )
}

/// The property's type: `type` itself, the first non-null of a list of types,
/// or of the branches of `anyOf`/`oneOf` (how optional values are written).
fn json_type(schema: &Value) -> Option<String> {
    match schema.get("type") {
        Some(Value::String(kind)) => return Some(kind.clone()),
        Some(Value::Array(kinds)) => {
            return kinds
                .iter()
                .filter_map(Value::as_str)
                .find(|kind| *kind != "null")
                .map(str::to_owned);
        }
        _ => {}
    }
    ["anyOf", "oneOf"]
        .iter()
        .filter_map(|key| schema.get(*key).and_then(Value::as_array))
        .flatten()
        .filter_map(json_type)
        .find(|kind| kind != "null")
}

/// A JSON value as a person writes it: strings without quotes.
fn plain(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// Parses the text of each structured parameter back into JSON; text that is
/// not JSON of the right shape is sent as it is, for the server to judge.
pub(crate) fn restore_structured(arguments: &mut Map<String, Value>, structured: &[String]) {
    for param in structured {
        let Some(Value::String(text)) = arguments.get(param) else {
            continue;
        };
        if let Ok(parsed @ (Value::Array(_) | Value::Object(_))) =
            serde_json::from_str::<Value>(text)
        {
            arguments.insert(param.clone(), parsed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn properties_become_typed_described_parameters() {
        let schema = object(json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name"},
                "days": {"type": "integer", "title": "Days", "default": 3},
                "ratio": {"anyOf": [{"type": "number"}, {"type": "null"}], "default": null},
                "metric": {"type": ["boolean", "null"]},
                "unit": {"type": "string", "enum": ["C", "F"]},
                "tags": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["city"]
        }));
        let translated = translate("mcp_w_forecast", "Forecast", &schema);
        let expected: ToolManifest = serde_json::from_value(json!({
            "name": "mcp_w_forecast",
            "description": "Forecast",
            "parameters": {
                "city": "City name (required)",
                "days": "Days (default: 3)",
                "ratio": "",
                "metric": "",
                "unit": "one of: C, F",
                "tags": "a JSON array"
            },
            "parameter_types": {"days": "int", "ratio": "float", "metric": "bool"},
            "input_schema": schema
        }))
        .unwrap();
        assert_eq!(translated.manifest, expected);
        assert_eq!(translated.structured, vec!["tags".to_owned()]);
    }

    #[test]
    fn annotations_go_both_ways_and_empty_ones_are_none() {
        let kept = ToolAnnotations {
            title: Some("Describe".into()),
            read_only_hint: Some(true),
            destructive_hint: Some(false),
            idempotent_hint: None,
            open_world_hint: Some(false),
        };
        let served = annotations_to_mcp(&kept);
        assert_eq!(
            serde_json::to_value(&served).unwrap(),
            json!({"title": "Describe", "readOnlyHint": true, "destructiveHint": false,
                   "openWorldHint": false})
        );
        assert_eq!(annotations_from_mcp(Some(&served)), Some(kept));
        let empty = rmcp::model::ToolAnnotations::new();
        assert_eq!(annotations_from_mcp(Some(&empty)), None);
        assert_eq!(annotations_from_mcp(None), None);
    }

    #[test]
    fn a_schema_without_properties_has_no_parameters() {
        let manifest = manifest_from_schema("t", "d", &object(json!({"type": "object"})));
        assert!(manifest.parameters.is_empty());
    }

    #[test]
    fn structured_text_is_parsed_back_and_other_text_left_alone() {
        let mut arguments =
            object(json!({"tags": "[\"a\", 1]", "filter": "not json", "city": "[1]"}));
        restore_structured(&mut arguments, &["tags".into(), "filter".into()]);
        assert_eq!(
            Value::Object(arguments),
            json!({"tags": ["a", 1], "filter": "not json", "city": "[1]"})
        );
    }
}
