//! The tool list as `riverse tools --json` prints it and `GET /v1/tools`
//! serves it.

use riverse_tool::Registry;
use serde_json::{Value, json};

/// `{"tools": [...]}`: one object per entry, every field present (each
/// [`riverse_tool::Entry`] serializes itself so), with its `approval`:
/// `auto`, `ask`, `deny`, or the default and its rules (`ask, 2 rules`).
pub fn tools_json(registry: &Registry) -> Value {
    let tools: Vec<Value> = registry
        .entries()
        .iter()
        .map(|entry| {
            let mut value = serde_json::to_value(entry).unwrap_or_else(|_| json!({}));
            let approval = entry.name().map(|name| registry.approval(name).summary());
            value["approval"] = json!(approval);
            value
        })
        .collect();
    json!({ "tools": tools })
}
