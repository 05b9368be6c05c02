//! `POST /v1/chat/completions`: the request's messages are the conversation;
//! one agent turn runs on it with every tool, server-side. A streamed turn's
//! tools may ask the reader questions (see `questions`); one not streamed
//! has nobody to ask, and its questions are cancels.
//!
//! A request that brings its own `tools` (or `functions`) is refused with a
//! 400 that says so: Riverse's tools run on the server, and it does not hand
//! calls back to the client.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use riverse_llm::Message;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Value, json};

use crate::AppState;
use crate::activity::record_json;
use crate::body::Body;
use crate::error::AppError;
use crate::sse::{Completion, stream_response};
use crate::turns::{self, Asking};
use crate::updates::Update;

/// The name `GET /v1/models` lists; any other name is served the same way.
pub const MODEL: &str = "riverse";

/// What a client sends. The other fields of OpenAI's request
/// (`temperature`, `user`, `n`, ...) are accepted and ignored.
#[derive(Debug, Deserialize)]
pub struct CompletionBody {
    /// `riverse` when absent or empty.
    model: Option<String>,
    stream: Option<bool>,
    messages: Vec<ChatMessage>,
    tools: Option<Vec<IgnoredAny>>,
    functions: Option<Vec<IgnoredAny>>,
}

#[derive(Debug, Deserialize)]
#[serde(expecting = "a message object")]
struct ChatMessage {
    role: String,
    content: Option<Content>,
    tool_calls: Option<IgnoredAny>,
}

/// A message's text: a string, or an array of text parts.
#[derive(Debug, Deserialize)]
#[serde(untagged, expecting = "expected a string or an array of text parts")]
enum Content {
    Text(String),
    Parts(Vec<Part>),
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Part {
    Text { text: String },
}

/// A request, checked.
#[derive(Debug, PartialEq)]
struct CompletionRequest {
    model: String,
    /// Every message before the last.
    history: Vec<Message>,
    /// The last message: the user's.
    message: String,
    stream: bool,
}

/// Why a completion refuses the calls that ask for approval.
const NO_APPROVALS: &str = "/v1/chat/completions has no conversation to hold an approval: \
    post the message to a conversation (POST /v1/conversations/{id}/messages, streamed) \
    to be asked, or set the tool's approval to auto";

pub async fn create(
    State(state): State<Arc<AppState>>,
    Body(body): Body<CompletionBody>,
) -> Result<Response, AppError> {
    let request = body.check()?;
    let permit = turns::reserve(&state)?;
    // Only a stream's reader can see a question in time to answer it.
    let asking = if request.stream {
        Asking::QuestionsOnly {
            no_approvals: NO_APPROVALS,
        }
    } else {
        Asking::Nobody {
            no_approvals: NO_APPROVALS,
        }
    };
    let (task, mut updates) =
        turns::start(&state, permit, request.history, request.message, asking);
    let completion = Completion::new(&request.model);
    if request.stream {
        let first = turns::first_update(&mut updates).await?;
        return Ok(stream_response(completion, first, updates, Some(task)));
    }
    let finished = loop {
        match updates.recv().await {
            Some(Update::Finished(outcome)) => break outcome?,
            Some(_) => {}
            None => return Err(AppError::internal("the turn stopped without a result")),
        }
    };
    let tool_calls: Vec<Value> = finished.tool_calls.iter().map(record_json).collect();
    let mut reply = json!({
        "id": completion.id,
        "object": "chat.completion",
        "created": completion.created,
        "model": completion.model,
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": finished.answer},
            "finish_reason": "stop",
        }],
        "riverse": {"tool_calls": tool_calls},
    });
    if let Some(usage) = finished.usage {
        reply["usage"] = json!(usage);
    }
    Ok(Json(reply).into_response())
}

impl CompletionBody {
    fn check(self) -> Result<CompletionRequest, AppError> {
        for (field, tools) in [("tools", &self.tools), ("functions", &self.functions)] {
            if tools.as_ref().is_some_and(|tools| !tools.is_empty()) {
                return Err(AppError::invalid(
                    field,
                    "client-side tools are not supported: Riverse runs its own tools on the server \
                     (see GET /v1/tools); send the request without them",
                ));
            }
        }
        let Some(last) = self.messages.len().checked_sub(1) else {
            return Err(AppError::invalid("messages", "must not be empty"));
        };
        let mut history = self
            .messages
            .into_iter()
            .enumerate()
            .map(|(index, message)| message.check(index))
            .collect::<Result<Vec<_>, _>>()?;
        let Some(Message::User(message)) = history.pop() else {
            return Err(AppError::invalid(
                &format!("messages[{last}].role"),
                "the last message must be the user's",
            ));
        };
        Ok(CompletionRequest {
            model: self
                .model
                .filter(|model| !model.is_empty())
                .unwrap_or_else(|| MODEL.to_owned()),
            history,
            message,
            stream: self.stream.unwrap_or(false),
        })
    }
}

impl ChatMessage {
    fn check(self, index: usize) -> Result<Message, AppError> {
        let field = |name: &str| format!("messages[{index}].{name}");
        let content = self.content.map(Content::text).unwrap_or_default();
        match self.role.as_str() {
            "system" | "developer" => Ok(Message::System(content)),
            "user" => Ok(Message::User(content)),
            "assistant" if self.tool_calls.is_some() => Err(AppError::invalid(
                &field("tool_calls"),
                "client-side tool calls are not supported: Riverse runs its own tools on the server",
            )),
            "assistant" => Ok(Message::assistant(content)),
            "tool" | "function" => Err(AppError::invalid(
                &field("role"),
                "tool results from the client are not supported: Riverse runs its own tools on the server",
            )),
            other => Err(AppError::invalid(
                &field("role"),
                format!("expected system, user or assistant, got {other:?}"),
            )),
        }
    }
}

impl Content {
    fn text(self) -> String {
        match self {
            Content::Text(text) => text,
            Content::Parts(parts) => parts.into_iter().map(|Part::Text { text }| text).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn parsed(body: Value) -> Result<CompletionRequest, String> {
        crate::body::parse(body)
            .and_then(CompletionBody::check)
            .map_err(|err| err.message)
    }

    #[test]
    fn messages_become_history_and_the_last_user_message() {
        let request = parsed(json!({
            "model": "gpt-4o",
            "stream": true,
            "messages": [
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "hello"},
                {"role": "user", "content": [{"type": "text", "text": "weather "}, {"type": "text", "text": "in Tokyo?"}]}
            ]
        }))
        .unwrap();
        assert_eq!(
            request,
            CompletionRequest {
                model: "gpt-4o".into(),
                history: vec![
                    Message::System("be brief".into()),
                    Message::User("hi".into()),
                    Message::assistant("hello"),
                ],
                message: "weather in Tokyo?".into(),
                stream: true,
            }
        );
    }

    #[test]
    fn a_malformed_request_names_the_field() {
        assert_eq!(parsed(json!({})).unwrap_err(), "messages: missing");
        assert_eq!(
            parsed(json!({"messages": "hi"})).unwrap_err(),
            "messages: invalid type: string \"hi\", expected a sequence"
        );
        assert_eq!(
            parsed(json!({"messages": [{"role": "user", "content": "hi"}], "stream": "yes"}))
                .unwrap_err(),
            "stream: invalid type: string \"yes\", expected a boolean"
        );
        assert_eq!(
            parsed(json!({"messages": []})).unwrap_err(),
            "messages: must not be empty"
        );
        assert_eq!(
            parsed(json!({"messages": [{"content": "hi"}]})).unwrap_err(),
            "messages[0].role: missing"
        );
        assert_eq!(
            parsed(json!({"messages": ["hi"]})).unwrap_err(),
            "messages[0]: invalid type: string \"hi\", expected a message object"
        );
        assert_eq!(
            parsed(json!({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "x"}]}))
                .unwrap_err(),
            "messages[1].role: the last message must be the user's"
        );
        assert_eq!(
            parsed(json!({"messages": [{"role": "user", "content": 3}]})).unwrap_err(),
            "messages[0].content: expected a string or an array of text parts"
        );
        assert_eq!(
            parsed(json!({"messages": [{"role": "user", "content": [{"type": "image_url"}]}]}))
                .unwrap_err(),
            "messages[0].content: expected a string or an array of text parts"
        );
    }

    #[test]
    fn client_side_tools_are_refused_not_dropped() {
        let err = parsed(json!({
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [{"type": "function", "function": {"name": "f"}}]
        }))
        .unwrap_err();
        assert!(
            err.starts_with("tools: client-side tools are not supported"),
            "{err}"
        );
        assert!(
            parsed(json!({"messages": [{"role": "user", "content": "hi"}], "tools": []})).is_ok()
        );
    }
}
