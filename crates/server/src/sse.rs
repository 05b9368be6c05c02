//! Streamed answers as `chat.completion.chunk` server-sent events.
//!
//! Unmodified OpenAI clients read the standard chunks: a role chunk, content
//! deltas, a last chunk with `finish_reason: "stop"` (or, when the model
//! called the client's own tools, a `delta.tool_calls` chunk and
//! `finish_reason: "tool_calls"`), with `stream_options.include_usage` a
//! usage chunk whose `choices` are empty, then `data: [DONE]`. Without
//! `include_usage`, the usage rides on the last chunk.
//! Tool activity rides on chunks whose `delta` is empty, in an extra
//! `riverse` field that standard clients ignore:
//!
//! - `{"type": "tool_call.started", "call_id", "tool", "params"}`
//! - `{"type": "tool_call.progress", "call_id", "tool", "progress", "total", "message"}`
//!   (`total` and `message` null when the tool gave none)
//! - `{"type": "tool_call.log", "call_id", "tool", "level", "message"}`
//! - `{"type": "tool_call.question", "call_id", "tool", "question_id", "message", "schema", "deadline", "approval"}`:
//!   the call waits for an answer posted to `/v1/riverse/questions/{question_id}`
//!   until `deadline` (milliseconds since the Unix epoch); `approval` is
//!   `{"tool", "arguments", "rule"}` when Riverse asks whether the call may
//!   run at all (`tools.<name>.approval: ask`: accept runs it, decline or
//!   the deadline refuses it), null for a tool's own question
//! - `{"type": "tool_call.question_closed", "call_id", "tool", "question_id", "action", "reason"}`:
//!   what the tool read (`accept`, `decline`, `cancel`) and why it closed
//!   (`answered`, `expired`, `call_ended`)
//! - `{"type": "tool_call.task", "call_id", "tool", "task_id"}`: the call
//!   became a background task (`tools.<name>.background`; docs/background.md)
//! - `{"type": "tool_call.finished", ...}`: the call's record, every field of
//!   `riverse_tool::CallRecord` (docs/serving.md, "A tool call")
//! - `{"type": "skill.applied", "name", "trigger"}`, one per skill the turn
//!   applied, in order (`trigger`: `keyword`, `explicit` or `model`). The
//!   turn reports its skills when it ends, so these come after its tool
//!   activity and text, just before the last chunk.
//! - `{"type": "done", "answer"}` on the last chunk: the answer as stored,
//!   which a front end shows in place of the deltas.
//!
//! A turn that fails after the stream began ends with one
//! `data: {"error": {...}}` event (which the `openai` package raises as an
//! `APIError`), then `data: [DONE]`.

use std::convert::Infallible;

use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use futures_util::Stream;
use futures_util::future::BoxFuture;
use riverse_agent::{Turn, TurnEvent};
use serde_json::{Value, json};

use tokio::sync::mpsc::UnboundedReceiver;

use crate::activity::activity;
use crate::turns::TurnTask;
use crate::updates::Update;

/// The fields every chunk of one completion shares, and how its end is told.
#[derive(Debug, Clone)]
pub struct Completion {
    pub id: String,
    pub created: u64,
    pub model: String,
    /// A usage chunk comes last (`stream_options.include_usage`).
    pub include_usage: bool,
    /// Client calls go out as the legacy API's `function_call`.
    pub legacy_functions: bool,
}

/// Told the finished turn; its last chunk goes out once the future is done.
pub type OnFinished = Box<dyn FnOnce(&Turn) -> BoxFuture<'static, ()> + Send>;

impl Completion {
    pub fn new(model: &str) -> Self {
        Completion {
            id: format!("chatcmpl-{}", uuid::Uuid::new_v4().simple()),
            created: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|elapsed| elapsed.as_secs())
                .unwrap_or(0),
            model: model.to_owned(),
            include_usage: false,
            legacy_functions: false,
        }
    }

    pub(crate) fn chunk(
        &self,
        delta: Value,
        finish_reason: Option<&str>,
        riverse: Option<Value>,
    ) -> Value {
        let mut chunk = json!({
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        });
        if let Some(riverse) = riverse {
            chunk["riverse"] = riverse;
        }
        chunk
    }

    /// The chunks one update becomes.
    pub(crate) fn chunks(&self, update: Update) -> Vec<Value> {
        match update {
            Update::Event(TurnEvent::AnswerDelta(text)) => {
                vec![self.chunk(json!({"content": text}), None, None)]
            }
            // The answer goes out with the last chunk, once the turn is over.
            Update::Event(TurnEvent::Done { .. }) => Vec::new(),
            Update::Finished(Ok(turn)) => {
                let mut chunks: Vec<Value> = turn
                    .skills
                    .iter()
                    .map(|skill| {
                        let applied = json!({
                            "type": "skill.applied", "name": skill.name, "trigger": skill.trigger,
                        });
                        self.chunk(json!({}), None, Some(applied))
                    })
                    .collect();
                if !turn.client_calls.is_empty() {
                    let mut delta = json!({});
                    self.add_calls(&mut delta, &turn.client_calls, true);
                    chunks.push(self.chunk(delta, None, None));
                }
                let mut last = self.chunk(
                    json!({}),
                    Some(self.finish_reason(&turn)),
                    Some(json!({"type": "done", "answer": turn.answer})),
                );
                let usage = json!(turn.usage.unwrap_or_default());
                if self.include_usage {
                    chunks.push(last);
                    let mut usage_chunk = self.chunk(json!({}), None, None);
                    usage_chunk["choices"] = json!([]);
                    usage_chunk["usage"] = usage;
                    chunks.push(usage_chunk);
                } else {
                    last["usage"] = usage;
                    chunks.push(last);
                }
                chunks
            }
            Update::Finished(Err(err)) => vec![err.body()],
            tool_activity => activity(&tool_activity)
                .map(|riverse| self.chunk(json!({}), None, Some(riverse)))
                .into_iter()
                .collect(),
        }
    }
}

/// The stream's response: `first` (already received), then the rest of the
/// turn's updates, then `[DONE]`. `task`, if given, lives as long as the
/// response: a client that disconnects stops the turn. `on_finished`, if
/// given, is told the turn when it has finished.
pub fn stream_response(
    completion: Completion,
    first: Update,
    updates: UnboundedReceiver<Update>,
    task: Option<TurnTask>,
    on_finished: Option<OnFinished>,
) -> Response {
    let body = Body::from_stream(events(
        completion,
        first,
        Source {
            updates,
            _task: task,
            on_finished,
        },
    ));
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

impl Source {
    /// Tells `on_finished` of the turn `update` finished, if it is that.
    async fn tell_finished(&mut self, update: &Update) {
        if let (Update::Finished(Ok(turn)), Some(on_finished)) = (update, self.on_finished.take()) {
            on_finished(turn).await;
        }
    }
}

/// Where the updates come from, and the turn they belong to.
struct Source {
    updates: UnboundedReceiver<Update>,
    _task: Option<TurnTask>,
    on_finished: Option<OnFinished>,
}

/// Where the stream stands.
enum Position {
    /// The role chunk and the first update go out next.
    Start(Box<Update>),
    Turn,
    Over,
}

fn events(
    completion: Completion,
    first: Update,
    turn: Source,
) -> impl Stream<Item = Result<Bytes, Infallible>> + Send {
    let state = (completion, Position::Start(Box::new(first)), turn);
    futures_util::stream::unfold(state, |(completion, position, mut turn)| async move {
        let mut frames = String::new();
        let next = match position {
            Position::Over => return None,
            Position::Start(first) => {
                let role =
                    completion.chunk(json!({"role": "assistant", "content": ""}), None, None);
                frames.push_str(&frame(&role));
                turn.tell_finished(&first).await;
                write_update(&completion, *first, &mut frames)
            }
            Position::Turn => match turn.updates.recv().await {
                Some(update) => {
                    turn.tell_finished(&update).await;
                    write_update(&completion, update, &mut frames)
                }
                None => {
                    frames.push_str(&frame(
                        &crate::error::AppError::internal("the turn stopped without a result")
                            .body(),
                    ));
                    frames.push_str(DONE);
                    Position::Over
                }
            },
        };
        Some((Ok(Bytes::from(frames)), (completion, next, turn)))
    })
}

/// Writes `update`'s frames (and `[DONE]` after the last) and says what comes next.
fn write_update(completion: &Completion, update: Update, frames: &mut String) -> Position {
    let last = matches!(update, Update::Finished(_));
    for chunk in completion.chunks(update) {
        frames.push_str(&frame(&chunk));
    }
    if last {
        frames.push_str(DONE);
        Position::Over
    } else {
        Position::Turn
    }
}

const DONE: &str = "data: [DONE]\n\n";

fn frame(value: &Value) -> String {
    format!("data: {value}\n\n")
}
