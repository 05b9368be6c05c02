//! What a turn's tools do, as the `riverse` objects of stream chunks (see
//! the `sse` module for the list).

use riverse_agent::{ToolCallRecord, TurnEvent};
use serde_json::{Value, json};

use crate::updates::Update;

/// The `riverse` object `update` becomes; `None` for updates that are not
/// tool activity (the answer's text, the end of the turn).
pub fn activity(update: &Update) -> Option<Value> {
    match update {
        Update::Event(TurnEvent::ToolCallStarted {
            call_id,
            tool,
            params,
        }) => Some(json!({
            "type": "tool_call.started", "call_id": call_id, "tool": tool, "params": params,
        })),
        Update::Event(TurnEvent::ToolCallFinished(record)) => {
            let mut finished = record_json(record);
            finished["type"] = json!("tool_call.finished");
            Some(finished)
        }
        Update::Event(TurnEvent::ToolProgress {
            call_id,
            tool,
            progress,
        }) => Some(json!({
            "type": "tool_call.progress", "call_id": call_id, "tool": tool,
            "progress": progress.progress, "total": progress.total, "message": progress.message,
        })),
        Update::Event(TurnEvent::ToolLog {
            call_id,
            tool,
            line,
        }) => Some(json!({
            "type": "tool_call.log", "call_id": call_id, "tool": tool,
            "level": line.level, "message": line.message,
        })),
        Update::QuestionAsked(asked) => Some(json!({
            "type": "tool_call.question", "call_id": asked.call_id, "tool": asked.tool,
            "question_id": asked.id, "message": asked.question.message,
            "schema": asked.question.schema, "deadline": asked.deadline,
            "approval": asked.question.approval,
        })),
        Update::QuestionClosed(closed) => Some(json!({
            "type": "tool_call.question_closed", "call_id": closed.call_id, "tool": closed.tool,
            "question_id": closed.id, "action": closed.action, "reason": closed.reason,
        })),
        // `turns` turns every question into the two updates above.
        Update::Event(
            TurnEvent::ToolQuestion { .. } | TurnEvent::AnswerDelta(_) | TurnEvent::Done { .. },
        )
        | Update::Finished(_) => None,
    }
}

/// A tool call as the API shows it: `riverse ask --json`'s fields (its
/// `content` blocks included) and the call's id.
pub fn record_json(record: &ToolCallRecord) -> Value {
    let mut value = serde_json::to_value(record).unwrap_or_else(|_| json!({}));
    value["call_id"] = json!(record.call_id);
    value
}
