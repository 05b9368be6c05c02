//! A `tools/call` reply read into a `ToolResult`.

use riverse_protocol::CallToolResult;
use riverse_tool::{ToolResult, mark_cut};
use serde::Deserialize;
use serde_json::Value;

/// What Riverse's worker puts in `structuredContent`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Structured {
    success: bool,
    data: String,
    #[serde(default)]
    error: String,
    #[serde(default)]
    traceback: Option<String>,
    /// Set when the worker cut `data`: its size before.
    #[serde(default)]
    data_bytes: Option<usize>,
    #[serde(default)]
    error_bytes: Option<usize>,
}

/// Reads a `tools/call` result: Riverse's worker sends the whole `ToolResult` as
/// structured content; any other MCP server only text and `isError`.
pub(crate) fn tool_result(name: &str, value: Value) -> ToolResult {
    let result: CallToolResult = match serde_json::from_value(value) {
        Ok(result) => result,
        Err(err) => {
            return ToolResult::failure(format!("tool \"{name}\": unreadable result: {err}"));
        }
    };
    if let Some(structured) = result.structured_content.clone()
        && let Ok(structured) = serde_json::from_value::<Structured>(structured)
    {
        if let Some(trace) = &structured.traceback {
            tracing::debug!(target: "tool", "{name}: {trace}");
        }
        let restore = |text: String, total: Option<usize>| match total {
            Some(total) if total > text.len() => mark_cut(text, total),
            _ => text,
        };
        return ToolResult {
            success: structured.success,
            data: restore(structured.data, structured.data_bytes),
            error: restore(structured.error, structured.error_bytes),
        };
    }
    let text = result.text();
    if result.is_error {
        ToolResult::failure(text)
    } else {
        ToolResult::ok(text)
    }
}
