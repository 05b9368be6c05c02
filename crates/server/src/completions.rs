//! `POST /v1/chat/completions`: the request's messages are the conversation;
//! one agent turn runs on it with every tool, server-side.
//!
//! A request that brings its own `tools` (or `functions`) is refused with a
//! 400 that says so: Riverse's tools run on the server, and it does not hand
//! calls back to the client.

use std::sync::Arc;

use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use riverse_llm::Message;
use serde_json::{Map, Value, json};

use crate::AppState;
use crate::body::{kind_of, object_body, optional_bool};
use crate::error::AppError;
use crate::sse::{Completion, record_json, stream_response};
use crate::turns::{self, Update};

/// The name `GET /v1/models` lists; any other name is served the same way.
pub const MODEL: &str = "riverse";

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

pub async fn create(State(state): State<Arc<AppState>>, body: Body) -> Result<Response, AppError> {
    let object = object_body(body, state.options.max_body_bytes).await?;
    let request = parse(&object)?;
    let permit = turns::reserve(&state)?;
    let (task, mut updates) = turns::start(&state, permit, request.history, request.message);
    let completion = Completion::new(&request.model);
    if request.stream {
        let first = turns::first_update(&mut updates).await?;
        return Ok(stream_response(completion, first, updates, Some(task)));
    }
    let finished = loop {
        match updates.recv().await {
            Some(Update::Finished(outcome)) => break outcome?,
            Some(Update::Event(_)) => {}
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

fn parse(object: &Map<String, Value>) -> Result<CompletionRequest, AppError> {
    for field in ["tools", "functions"] {
        if object
            .get(field)
            .is_some_and(|tools| !tools.is_null() && tools.as_array().is_none_or(|t| !t.is_empty()))
        {
            return Err(AppError::invalid(
                field,
                "client-side tools are not supported: Riverse runs its own tools on the server \
                 (see GET /v1/tools); send the request without them",
            ));
        }
    }
    let model = match object.get("model") {
        None | Some(Value::Null) => MODEL.to_owned(),
        Some(Value::String(model)) if !model.is_empty() => model.clone(),
        Some(Value::String(_)) => MODEL.to_owned(),
        Some(other) => {
            return Err(AppError::invalid(
                "model",
                format!("expected a string, got {}", kind_of(other)),
            ));
        }
    };
    let stream = optional_bool(object, "stream", false)?;
    let messages = match object.get("messages") {
        Some(Value::Array(messages)) if !messages.is_empty() => messages,
        Some(Value::Array(_)) => return Err(AppError::invalid("messages", "must not be empty")),
        None | Some(Value::Null) => return Err(AppError::invalid("messages", "missing")),
        Some(other) => {
            return Err(AppError::invalid(
                "messages",
                format!("expected an array, got {}", kind_of(other)),
            ));
        }
    };
    let mut history = Vec::with_capacity(messages.len());
    for (index, message) in messages.iter().enumerate() {
        history.push(parse_message(index, message)?);
    }
    let last = messages.len() - 1;
    let Some(Message::User(message)) = history.pop() else {
        return Err(AppError::invalid(
            &format!("messages[{last}].role"),
            "the last message must be the user's",
        ));
    };
    Ok(CompletionRequest {
        model,
        history,
        message,
        stream,
    })
}

fn parse_message(index: usize, message: &Value) -> Result<Message, AppError> {
    let field = |name: &str| format!("messages[{index}].{name}");
    let Value::Object(message) = message else {
        return Err(AppError::invalid(
            &format!("messages[{index}]"),
            format!("expected an object, got {}", kind_of(message)),
        ));
    };
    let role = match message.get("role") {
        Some(Value::String(role)) => role.as_str(),
        _ => return Err(AppError::invalid(&field("role"), "missing")),
    };
    let content = content_text(message.get("content"))
        .map_err(|why| AppError::invalid(&field("content"), why))?;
    match role {
        "system" | "developer" => Ok(Message::System(content)),
        "user" => Ok(Message::User(content)),
        "assistant" => {
            if message
                .get("tool_calls")
                .is_some_and(|calls| !calls.is_null())
            {
                return Err(AppError::invalid(
                    &field("tool_calls"),
                    "client-side tool calls are not supported: Riverse runs its own tools on the server",
                ));
            }
            Ok(Message::assistant(content))
        }
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

/// A message's text: a string, or the text parts of an array of parts.
fn content_text(content: Option<&Value>) -> Result<String, String> {
    match content {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(text)) => Ok(text.clone()),
        Some(Value::Array(parts)) => {
            let mut text = String::new();
            for part in parts {
                match (part.get("type").and_then(Value::as_str), part.get("text")) {
                    (Some("text"), Some(Value::String(piece))) => text.push_str(piece),
                    (kind, _) => {
                        return Err(format!(
                            "only text parts are supported, got a part of type {}",
                            kind.unwrap_or("?")
                        ));
                    }
                }
            }
            Ok(text)
        }
        Some(other) => Err(format!(
            "expected a string or an array of parts, got {}",
            kind_of(other)
        )),
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn parsed(body: Value) -> Result<CompletionRequest, String> {
        parse(body.as_object().unwrap()).map_err(|err| err.message)
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
            "messages: expected an array, got a string"
        );
        assert_eq!(
            parsed(json!({"messages": [{"role": "user", "content": "hi"}], "stream": "yes"}))
                .unwrap_err(),
            "stream: expected true or false, got a string"
        );
        assert_eq!(
            parsed(json!({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "x"}]}))
                .unwrap_err(),
            "messages[1].role: the last message must be the user's"
        );
        assert_eq!(
            parsed(json!({"messages": [{"role": "user", "content": 3}]})).unwrap_err(),
            "messages[0].content: expected a string or an array of parts, got a number"
        );
        assert_eq!(
            parsed(json!({"messages": [{"role": "user", "content": [{"type": "image_url"}]}]}))
                .unwrap_err(),
            "messages[0].content: only text parts are supported, got a part of type image_url"
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
