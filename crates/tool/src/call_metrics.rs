//! What the registry's calls add to the process's metrics (through the
//! `metrics` facade: nothing is kept unless a front end installs a
//! recorder, as `riverse serve` does for `/metrics`).

use std::time::Duration;

use crate::ToolResult;

/// Calls by tool and outcome: `success`, or why the call failed.
pub const CALLS: &str = "riverse_tool_calls_total";
/// How long the calls that ran took, by tool (an approval's wait not included).
pub const CALL_SECONDS: &str = "riverse_tool_call_duration_seconds";

/// Counts one call of `tool` and how it ended.
pub(crate) fn called(tool: &str, result: &ToolResult) {
    let outcome = match result.failure_kind() {
        None => "success",
        Some(kind) => kind.as_str(),
    };
    metrics::counter!(CALLS, "tool" => tool.to_owned(), "outcome" => outcome).increment(1);
}

/// Times one call of `tool` that ran.
pub(crate) fn ran(tool: &str, took: Duration) {
    metrics::histogram!(CALL_SECONDS, "tool" => tool.to_owned()).record(took.as_secs_f64());
}
