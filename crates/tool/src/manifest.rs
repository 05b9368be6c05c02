use std::fmt;
use std::path::PathBuf;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::types::{DeclaredType, ParamType};

/// What a tool tells the LLM about itself. Mirrors the Python `ToolManifest`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolManifest {
    pub name: String,
    pub description: String,
    /// Parameter name to its description, in the author's order.
    #[serde(default)]
    pub parameters: IndexMap<String, String>,
    #[serde(default)]
    pub examples: Vec<String>,
    /// Parameters absent here are strings.
    #[serde(default)]
    pub parameter_types: IndexMap<String, DeclaredType>,
    /// The parameters' JSON Schema as the tool's source wrote it, when it
    /// wrote one (a Python tool's `input_schema`, an MCP server's
    /// `inputSchema`, a client's function tool), kept whole (`$schema`,
    /// `$defs`, `additionalProperties`): shown to a model and to MCP clients
    /// in place of the schema built from `parameters` and `parameter_types`,
    /// which keeps only names, descriptions and simple types. The registry
    /// checks a call's arguments against it, unless the tool's source does
    /// ([`Tool::checks_own_arguments`](crate::Tool::checks_own_arguments)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<serde_json::Value>,
    /// The JSON Schema of the tool's structured result
    /// ([`ToolResult::structured`](crate::ToolResult::structured)), kept
    /// whole. A call that succeeds must return a structured result that fits it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<serde_json::Value>,
    /// What the tool says of its behaviour, as MCP's `ToolAnnotations`
    /// (hints, not guarantees): a Python tool's `annotations`, an MCP
    /// server's. Served in `tools/list` and shown to hooks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
}

/// MCP's `ToolAnnotations`, under MCP's names in JSON. Every field is
/// optional; an unknown key is refused.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolAnnotations {
    /// A title for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not change its environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// It may destroy, not only add (meaningful when not read-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Calling it again with the same arguments changes nothing more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// It reaches an open world of outside entities (the web, not a memory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

impl ToolAnnotations {
    /// The JSON keys, in MCP's order.
    pub const KEYS: [&'static str; 5] = [
        "title",
        "readOnlyHint",
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
    ];

    /// Whether it says nothing at all (then a manifest keeps none).
    pub fn is_empty(&self) -> bool {
        *self == ToolAnnotations::default()
    }
}

impl ToolManifest {
    pub fn param_type(&self, parameter: &str) -> ParamType {
        self.parameter_types
            .get(parameter)
            .map_or(ParamType::String, DeclaredType::param_type)
    }

    /// The declared type for people and prompts, in JSON Schema's names:
    /// `integer`, `boolean|string`; a name Riverse doesn't know as written.
    pub fn type_label(&self, parameter: &str) -> String {
        self.parameter_types
            .get(parameter)
            .map_or_else(|| "string".to_owned(), DeclaredType::label)
    }

    /// One line per type name Riverse doesn't know: such a parameter's value
    /// passes through unconverted.
    pub fn type_warnings(&self) -> Vec<String> {
        self.parameter_types
            .iter()
            .flat_map(|(parameter, declared)| {
                declared.unknown_names().into_iter().map(move |name| {
                    format!(
                        "parameter_types[{parameter:?}]: unknown type {name:?}; its values pass through unconverted"
                    )
                })
            })
            .collect()
    }
}

/// Where a tool, or a failure to produce one, comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ToolSource {
    /// A drop-in Python file.
    Python { file: PathBuf },
    /// The Python host as a whole (for failures before any file is read).
    PythonHost { interpreter: String },
    /// A tool of an MCP server.
    Mcp { server: String },
    /// A YAML agent: an entry of an agents file or of `settings.yaml`.
    Agent { file: PathBuf },
}

impl fmt::Display for ToolSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolSource::Python { file } => write!(f, "{}", file.display()),
            ToolSource::PythonHost { interpreter } => write!(f, "python ({interpreter})"),
            ToolSource::Mcp { server } => write!(f, "mcp:{server}"),
            ToolSource::Agent { file } => write!(f, "{}", file.display()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn unknown_type_names_are_warnings_naming_the_parameter() {
        let manifest: ToolManifest = serde_json::from_value(json!({
            "name": "t", "description": "d", "parameters": {"a": "", "b": ""},
            "parameter_types": {"a": "str|datetime", "b": "integer"}
        }))
        .unwrap();
        assert_eq!(
            manifest.type_warnings(),
            vec![
                "parameter_types[\"a\"]: unknown type \"datetime\"; its values pass through unconverted"
            ]
        );
        assert_eq!(manifest.type_label("a"), "string|datetime");
        assert_eq!(manifest.type_label("b"), "integer");
        assert_eq!(manifest.param_type("b"), ParamType::Int);
        assert_eq!(manifest.type_label("c"), "string");
    }

    #[test]
    fn annotations_keep_mcps_names_and_refuse_what_mcp_does_not_define() {
        let written = json!({"title": "Weather", "readOnlyHint": true, "openWorldHint": false});
        let manifest: ToolManifest = serde_json::from_value(json!({
            "name": "weather", "description": "d", "annotations": written
        }))
        .unwrap();
        let annotations = manifest.annotations.clone().unwrap();
        assert_eq!(
            annotations,
            ToolAnnotations {
                title: Some("Weather".into()),
                read_only_hint: Some(true),
                open_world_hint: Some(false),
                ..ToolAnnotations::default()
            }
        );
        assert_eq!(json!(manifest)["annotations"], written);
        assert!(!annotations.is_empty() && ToolAnnotations::default().is_empty());
        let plain: ToolManifest =
            serde_json::from_value(json!({"name": "t", "description": "d"})).unwrap();
        assert_eq!(json!(plain).get("annotations"), None);

        let unknown = serde_json::from_value::<ToolAnnotations>(json!({"readonly": true}));
        assert!(
            unknown
                .unwrap_err()
                .to_string()
                .starts_with("unknown field `readonly`"),
        );
        let not_bool = serde_json::from_value::<ToolAnnotations>(json!({"readOnlyHint": "yes"}));
        assert!(
            not_bool
                .unwrap_err()
                .to_string()
                .starts_with("invalid type: string \"yes\", expected a boolean"),
        );
        let all = ToolAnnotations::KEYS.map(|key| (key.to_owned(), json!(key == "title")));
        let all = serde_json::Map::from_iter(all);
        let mut all = serde_json::Value::Object(all);
        all["title"] = json!("t");
        assert_eq!(
            json!(serde_json::from_value::<ToolAnnotations>(all.clone()).unwrap()),
            all
        );
    }
}
