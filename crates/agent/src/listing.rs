//! The tool list as `riverse tools --json` prints it and `GET /v1/tools`
//! serves it.

use riverse_tool::Registry;
use serde_json::{Value, json};

/// `{"tools": [...]}`: one object per entry, every field present (each
/// [`riverse_tool::Entry`] serializes itself so).
pub fn tools_json(registry: &Registry) -> Value {
    json!({ "tools": registry.entries() })
}
