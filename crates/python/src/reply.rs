//! A `riverse/call` reply read into a `ToolResult`.

use riverse_protocol::CallOutcome;
use riverse_tool::{FailureKind, ToolResult, mark_cut};

/// The tool's result as the worker sent it, its cut parts marked as such.
pub(crate) fn tool_result(name: &str, outcome: CallOutcome) -> ToolResult {
    if let Some(trace) = &outcome.traceback {
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
    }
}
