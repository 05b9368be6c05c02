//! The tool list as `riverse tools --json` prints it and `GET /v1/tools`
//! serves it.

use riverse_tool::{Entry, Registry};
use serde_json::{Value, json};

/// `{"tools": [...]}`: one object per entry, every field present.
pub fn tools_json(registry: &Registry) -> Value {
    let tools: Vec<Value> = registry.entries().iter().map(entry_json).collect();
    json!({ "tools": tools })
}

fn entry_json(entry: &Entry) -> Value {
    let manifest = entry.manifest.as_ref();
    json!({
        "name": entry.name,
        "description": manifest.map(|m| m.description.clone()),
        "parameters": manifest.map(|m| json!(m.parameters)).unwrap_or_else(|| json!({})),
        "examples": manifest.map(|m| json!(m.examples)).unwrap_or_else(|| json!([])),
        "parameter_types": manifest.map(|m| json!(m.parameter_types)).unwrap_or_else(|| json!({})),
        "source": entry.source,
        "status": entry.status,
        "error": entry.error,
    })
}
