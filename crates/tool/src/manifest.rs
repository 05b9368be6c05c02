use std::fmt;
use std::path::PathBuf;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// The type of one parameter, as `parameter_types` declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ParamType {
    String,
    #[serde(alias = "integer")]
    Int,
    #[serde(alias = "number")]
    Float,
    #[serde(alias = "boolean")]
    Bool,
}

impl ParamType {
    /// The JSON Schema type name.
    pub fn json_type(self) -> &'static str {
        match self {
            ParamType::String => "string",
            ParamType::Int => "integer",
            ParamType::Float => "number",
            ParamType::Bool => "boolean",
        }
    }
}

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
    pub parameter_types: IndexMap<String, ParamType>,
}

impl ToolManifest {
    pub fn param_type(&self, parameter: &str) -> ParamType {
        self.parameter_types
            .get(parameter)
            .copied()
            .unwrap_or(ParamType::String)
    }
}

/// The outcome of one call. `data` is what the LLM reads; `error` matters only
/// when `success` is false.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolResult {
    pub success: bool,
    pub data: String,
    #[serde(default)]
    pub error: String,
}

impl ToolResult {
    pub fn ok(data: impl Into<String>) -> Self {
        ToolResult {
            success: true,
            data: data.into(),
            error: String::new(),
        }
    }

    pub fn failure(error: impl Into<String>) -> Self {
        ToolResult {
            success: false,
            data: String::new(),
            error: error.into(),
        }
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
}

impl fmt::Display for ToolSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolSource::Python { file } => write!(f, "{}", file.display()),
            ToolSource::PythonHost { interpreter } => write!(f, "python ({interpreter})"),
            ToolSource::Mcp { server } => write!(f, "mcp:{server}"),
        }
    }
}
