//! A `riverse/call` reply read into a `ToolResult`.

use riverse_protocol::CallOutcome;
use riverse_tool::{Content, FailureKind, ToolResult, mark_cut};

/// The tool's result as the worker sent it, its cut parts marked as such.
pub(crate) fn tool_result(name: &str, outcome: CallOutcome) -> ToolResult {
    if let Some(trace) = &outcome.traceback {
        let trace = riverse_secrets::scrub(trace);
        tracing::debug!(target: "tool", "{name}: {trace}");
    }
    let restore = |text: String, total: Option<usize>| match total {
        Some(total) if total > text.len() => mark_cut(text, total),
        _ => text,
    };
    ToolResult {
        success: outcome.success,
        data: restore(outcome.data, outcome.data_bytes),
        error: restore(outcome.error, outcome.error_bytes),
        failure: (!outcome.success).then_some(FailureKind::ToolError),
        content: outcome
            .content
            .into_iter()
            .filter_map(|block| match serde_json::from_value::<Content>(block) {
                Ok(block) => Some(block),
                Err(err) => {
                    tracing::warn!(target: "tool", "{name}: a content block the host can't read: {err}");
                    None
                }
            })
            .collect(),
        structured: outcome.structured,
        approval: None,
        hooks: Vec::new(),
    }
}
