//! What calls put in traces: each call's `execute_tool` span, named and
//! attributed as OpenTelemetry's GenAI semantic conventions say, and the one
//! switch that lets spans carry what was said (a call's arguments and
//! result, the messages of a model call).
//!
//! Spans are plain `tracing` spans under [`TARGET`]. Nothing here exports
//! anything: a front end that installs an OpenTelemetry layer sends them,
//! one that logs JSON shows them as each line's span list, and with neither
//! a span is never built (its fields are not even evaluated).

use std::sync::atomic::{AtomicBool, Ordering};

use tracing::Span;
use tracing::field::Empty;

use crate::HookRecord;
use crate::failure::CallFailure;
use crate::params::Params;
use crate::registry::CallError;
use crate::result::{FailureKind, ToolResult};

/// The target of Riverse's trace spans (the turn, each model call, each tool
/// call): filters pick them out by it.
pub const TARGET: &str = "gen_ai";

/// Whether spans carry arguments, results and messages: false until the
/// front end turns it on (`serve.trace_content`).
static CONTENT: AtomicBool = AtomicBool::new(false);

/// Lets spans carry what was said (`serve.trace_content`), or stops them.
/// Process-wide, as the subscriber that receives the spans is: the front end
/// sets it once, where it installs the exporter.
pub fn record_content(on: bool) {
    CONTENT.store(on, Ordering::Relaxed);
}

/// Whether spans carry arguments, results and messages.
pub fn records_content() -> bool {
    CONTENT.load(Ordering::Relaxed)
}

/// The span of one call of `name`; `call_id` is the model's id for it, when
/// the call came from a model.
pub(super) fn tool_span(name: &str, call_id: Option<&str>, params: &Params) -> Span {
    let span = tracing::info_span!(
        target: TARGET,
        "execute_tool",
        otel.name = format!("execute_tool {name}"),
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = name,
        gen_ai.tool.call.id = call_id,
        gen_ai.tool.type = "function",
        gen_ai.tool.call.arguments = Empty,
        gen_ai.tool.call.result = Empty,
        riverse.tool.success = Empty,
        riverse.tool.failure = Empty,
        riverse.tool.hooks = Empty,
        error.type = Empty,
        otel.status_description = Empty,
    );
    if records_content() && !span.is_disabled() {
        span.record(
            "gen_ai.tool.call.arguments",
            serde_json::to_string(params).unwrap_or_default(),
        );
    }
    span
}

/// How the call ended: its success, the kind of its failure (and the span's
/// error status), its result when spans carry content.
pub(super) fn record_outcome(span: &Span, outcome: &Result<ToolResult, CallError>) {
    if span.is_disabled() {
        return;
    }
    let content = records_content();
    if let Ok(result) = outcome
        && !result.hooks.is_empty()
    {
        span.record(
            "riverse.tool.hooks",
            hooks_attribute(&result.hooks, content),
        );
    }
    let (kind, error) = match outcome {
        Ok(result) if result.success => {
            span.record("riverse.tool.success", true);
            if content {
                span.record("gen_ai.tool.call.result", result.data.as_str());
            }
            return;
        }
        Ok(result) => {
            let kind = result.failure_kind().unwrap_or(FailureKind::ToolError);
            (kind, result.error.clone())
        }
        Err(err) => {
            let failure = CallFailure::from(err.clone());
            (failure.kind(), failure.to_string())
        }
    };
    span.record("riverse.tool.success", false);
    span.record("riverse.tool.failure", kind.as_str());
    span.record("error.type", kind.as_str());
    // A tool's error may quote what it was given: it is content.
    let description = if content { error } else { kind.to_string() };
    span.record("otel.status_description", description);
}

/// What the hooks decided, as JSON: each hook and its decision, and its
/// reason when spans carry content (a reason may quote the arguments).
fn hooks_attribute(hooks: &[HookRecord], content: bool) -> String {
    let shown: Vec<serde_json::Value> = hooks
        .iter()
        .map(|record| match content {
            true => serde_json::json!(record),
            false => serde_json::json!({"hook": record.hook, "decision": record.decision}),
        })
        .collect();
    serde_json::Value::Array(shown).to_string()
}
