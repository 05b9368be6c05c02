//! `POST /v1/chat/completions`: the request's messages are the conversation;
//! one agent turn runs on it with every tool of Riverse's, server-side, and
//! the request's own tools beside them. A streamed turn's tools may ask the
//! reader questions (see `questions`); one not streamed has nobody to ask,
//! and its questions are cancels.
//!
//! When the model calls one of the client's tools, the reply ends there as
//! OpenAI's does (`finish_reason: "tool_calls"`, the calls in
//! `message.tool_calls` or streamed as `delta.tool_calls`), Riverse's own
//! calls of the turn already run and listed in `riverse.tool_calls`. The
//! client sends its results back as `tool` messages and the turn goes on
//! from them (`handed_back` keeps what it doesn't send).

mod request;

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use riverse_agent::Turn;
use riverse_llm::{Message, ToolCall};
use serde_json::{Value, json};

pub use request::MODEL;
use request::{CompletionBody, CompletionRequest};

use crate::AppState;
use crate::body::Body;
use crate::client_tools;
use crate::error::AppError;
use crate::handed_back;
use crate::prometheus::Api;
use crate::sse::{Completion, OnFinished, stream_response};
use crate::turns::{self, Asking, TurnRequest};
use crate::updates::Update;

/// Why a completion refuses the calls that ask for approval.
const NO_APPROVALS: &str = "/v1/chat/completions has no conversation to hold an approval: \
    post the message to a conversation (POST /v1/conversations/{id}/messages, streamed) \
    to be asked, or set the tool's approval to auto";

pub async fn create(
    State(state): State<Arc<AppState>>,
    Body(body): Body<CompletionBody>,
) -> Result<Response, AppError> {
    let request = body.check()?;
    let CompletionRequest {
        model,
        history,
        message,
        stream,
        include_usage,
        functions,
        choice,
        parallel_tool_calls,
        legacy_functions,
    } = request;
    let tool_use = client_tools::tool_use(
        functions,
        choice,
        parallel_tool_calls,
        &state.agent.registry(),
    )?;
    let opens_with_message = message.is_some();
    let history = handed_back::restore(&state.store, history).await?;
    let permit = turns::reserve(&state)?;
    // Only a stream's reader can see a question in time to answer it.
    let asking = if stream {
        Asking::QuestionsOnly {
            no_approvals: NO_APPROVALS,
        }
    } else {
        Asking::Nobody {
            no_approvals: NO_APPROVALS,
        }
    };
    let turn = TurnRequest {
        api: Api::ChatCompletions,
        history,
        message,
        tool_use,
        follow_up: None,
        answer_id: None,
    };
    let (task, mut updates) = turns::start(&state, permit, turn, asking);
    let completion = Completion {
        include_usage,
        legacy_functions,
        ..Completion::new(&model)
    };
    if stream {
        let first = turns::first_update(&mut updates).await?;
        let store = state.store.clone();
        let keeper: OnFinished = Box::new(move |turn: &Turn| {
            let own = own_calls(turn, opens_with_message);
            Box::pin(async move {
                if let Some((call_id, messages)) = own {
                    handed_back::keep(&store, &call_id, &messages).await;
                }
            })
        });
        return Ok(stream_response(
            completion,
            first,
            updates,
            Some(task),
            Some(keeper),
        ));
    }
    let finished = loop {
        match updates.recv().await {
            Some(Update::Finished(outcome)) => break outcome?,
            Some(_) => {}
            None => return Err(AppError::internal("the turn stopped without a result")),
        }
    };
    if let Some((call_id, messages)) = own_calls(&finished, opens_with_message) {
        handed_back::keep(&state.store, &call_id, &messages).await;
    }
    Ok(Json(completion.whole(&finished)).into_response())
}

/// What a turn that handed client calls back must keep for the request that
/// answers them: the id of the first, and the turn's own calls and results
/// before them. A turn that opened with the user's message has it first, and
/// the client has that.
fn own_calls(turn: &Turn, opened_with_message: bool) -> Option<(String, Vec<Message>)> {
    let first = turn.client_calls.first()?;
    let skipped = usize::from(opened_with_message);
    let end = turn.messages.len().saturating_sub(1);
    let own = turn.messages.get(skipped..end)?.to_vec();
    Some((first.id.clone(), own))
}

impl Completion {
    /// The reply of a turn not streamed.
    fn whole(&self, turn: &Turn) -> Value {
        let tool_calls: Vec<Value> = turn.tool_calls.iter().map(|call| json!(call)).collect();
        let mut message = json!({"role": "assistant", "content": turn.answer});
        let finish_reason = self.finish_reason(turn);
        if !turn.client_calls.is_empty() {
            if turn.answer.is_empty() {
                message["content"] = Value::Null;
            }
            self.add_calls(&mut message, &turn.client_calls, false);
        }
        json!({
            "id": self.id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
            "usage": turn.usage.unwrap_or_default(),
            "riverse": {"tool_calls": tool_calls, "skills": turn.skills},
        })
    }

    pub(crate) fn finish_reason(&self, turn: &Turn) -> &'static str {
        match (turn.client_calls.is_empty(), self.legacy_functions) {
            (true, _) => "stop",
            (false, false) => "tool_calls",
            (false, true) => "function_call",
        }
    }

    /// Puts `calls` in `message` (a message or a chunk's delta) as the
    /// request asked for them: `tool_calls`, or the legacy API's one
    /// `function_call`. A delta's calls carry their `index`.
    pub(crate) fn add_calls(&self, message: &mut Value, calls: &[ToolCall], delta: bool) {
        if self.legacy_functions {
            if let Some(call) = calls.first() {
                message["function_call"] = json!({"name": call.name, "arguments": call.arguments});
            }
            return;
        }
        let calls: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(index, call)| {
                let mut wire = json!({
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                });
                if delta {
                    wire["index"] = json!(index);
                }
                wire
            })
            .collect();
        message["tool_calls"] = Value::Array(calls);
    }
}
