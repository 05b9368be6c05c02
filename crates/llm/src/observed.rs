//! A provider whose requests are traced and counted: one `chat` span each,
//! named and attributed as OpenTelemetry's GenAI semantic conventions say
//! (the provider, the model, the tokens, the error), with the messages when
//! spans carry content ([`riverse_tool::trace::records_content`]); and the
//! requests, their durations and tokens in the process's metrics.
//!
//! The span is a plain `tracing` span and the metrics go through the
//! `metrics` facade: nothing is kept or sent unless a front end installs a
//! layer that wants the span (an OTLP exporter) or a recorder (`riverse
//! serve`'s `/metrics`). Never in a span: the API key, or any header.

use std::sync::Arc;
use std::time::{Duration, Instant};

use riverse_tool::trace::{TARGET, records_content};
use serde_json::{Value, json};
use tracing::Instrument;
use tracing::field::Empty;

use crate::{ChatRequest, ChatResponse, Error, Message, Provider, TextSink, ToolCall};

/// Requests by outcome: `ok`, or `error`.
pub const REQUESTS: &str = "riverse_llm_requests_total";
/// How long requests took, answers streamed to their end.
pub const REQUEST_SECONDS: &str = "riverse_llm_request_duration_seconds";
/// Tokens by kind: `prompt`, `completion`.
pub const TOKENS: &str = "riverse_llm_tokens_total";

/// `inner`, each of its requests a `chat` span and counted.
pub struct Observed {
    inner: Arc<dyn Provider>,
    /// `gen_ai.provider.name`: `openai`, `ollama`, `riverse.embedded`.
    provider: String,
    /// `gen_ai.request.model`, and the span's name after `chat `.
    model: String,
}

impl Observed {
    pub fn new(inner: Arc<dyn Provider>, provider: &str, model: &str) -> Self {
        Observed {
            inner,
            provider: provider.to_owned(),
            model: model.to_owned(),
        }
    }
}

#[async_trait::async_trait]
impl Provider for Observed {
    fn describe(&self) -> String {
        self.inner.describe()
    }

    fn accepts_images(&self) -> bool {
        self.inner.accepts_images()
    }

    async fn complete(
        &self,
        request: ChatRequest<'_>,
        on_text: Option<TextSink<'_>>,
    ) -> Result<ChatResponse, Error> {
        let span = tracing::info_span!(
            target: TARGET,
            "chat",
            otel.name = format!("chat {}", self.model),
            otel.kind = "client",
            gen_ai.operation.name = "chat",
            gen_ai.provider.name = self.provider.as_str(),
            gen_ai.request.model = self.model.as_str(),
            gen_ai.request.temperature = request.temperature,
            gen_ai.request.max_tokens = request.max_tokens,
            gen_ai.usage.input_tokens = Empty,
            gen_ai.usage.output_tokens = Empty,
            gen_ai.input.messages = Empty,
            gen_ai.output.messages = Empty,
            error.type = Empty,
            otel.status_description = Empty,
        );
        let content = records_content() && !span.is_disabled();
        if content {
            span.record(
                "gen_ai.input.messages",
                input_messages(request.messages).to_string(),
            );
        }
        let started = Instant::now();
        let response = self
            .inner
            .complete(request, on_text)
            .instrument(span.clone())
            .await;
        count(&response, started.elapsed());
        match &response {
            Ok(response) => {
                if let Some(usage) = response.usage {
                    span.record("gen_ai.usage.input_tokens", tokens(usage.prompt_tokens));
                    span.record(
                        "gen_ai.usage.output_tokens",
                        tokens(usage.completion_tokens),
                    );
                }
                if content {
                    span.record(
                        "gen_ai.output.messages",
                        output_messages(response).to_string(),
                    );
                }
            }
            Err(err) if !span.is_disabled() => {
                span.record("error.type", error_type(err));
                span.record("otel.status_description", err.to_string());
            }
            Err(_) => {}
        }
        response
    }
}

/// Adds a request that ended as `response` after `took` to the metrics.
fn count(response: &Result<ChatResponse, Error>, took: Duration) {
    metrics::histogram!(REQUEST_SECONDS).record(took.as_secs_f64());
    let outcome = if response.is_ok() { "ok" } else { "error" };
    metrics::counter!(REQUESTS, "outcome" => outcome).increment(1);
    if let Ok(ChatResponse {
        usage: Some(usage), ..
    }) = response
    {
        metrics::counter!(TOKENS, "kind" => "prompt").increment(usage.prompt_tokens);
        metrics::counter!(TOKENS, "kind" => "completion").increment(usage.completion_tokens);
    }
}

/// A count of tokens as a span records it: OpenTelemetry's integers are
/// signed (an unsigned one would be sent as text).
pub fn tokens(count: u64) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

/// What failed, in few words: the HTTP status, or the kind of failure.
fn error_type(err: &Error) -> String {
    match err {
        Error::Unreachable { .. } => "unreachable".to_owned(),
        Error::TimedOut { .. } => "timeout".to_owned(),
        Error::Status { code, .. } => code.to_string(),
        Error::ToolsUnsupported { .. } => "tools_unsupported".to_owned(),
        Error::Malformed { .. } => "malformed_reply".to_owned(),
        Error::GaveUp { last, .. } => error_type(last),
        Error::Unavailable(_) => "unavailable".to_owned(),
    }
}

/// `gen_ai.input.messages`: each message as a role and its parts.
fn input_messages(messages: &[Message]) -> Value {
    let text = |content: &str| json!({"type": "text", "content": content});
    messages
        .iter()
        .map(|message| match message {
            Message::System(content) => json!({"role": "system", "parts": [text(content)]}),
            Message::User(content) => json!({"role": "user", "parts": [text(content)]}),
            Message::Assistant {
                content,
                tool_calls,
            } => {
                let mut parts: Vec<Value> = Vec::new();
                if !content.is_empty() {
                    parts.push(text(content));
                }
                parts.extend(tool_calls.iter().map(tool_call_part));
                json!({"role": "assistant", "parts": parts})
            }
            Message::Tool {
                call_id, content, ..
            } => json!({"role": "tool", "parts": [
                {"type": "tool_call_response", "id": call_id, "response": content}
            ]}),
            // The images themselves would make every span megabytes.
            Message::Images(images) => json!({"role": "user", "parts": images
                .iter()
                .map(|image| text(&format!("[{} image from {}]", image.mime_type, image.from)))
                .collect::<Vec<_>>()}),
        })
        .collect()
}

/// `gen_ai.output.messages`: the answer, its text and calls.
fn output_messages(response: &ChatResponse) -> Value {
    let mut parts: Vec<Value> = Vec::new();
    if !response.text.is_empty() {
        parts.push(json!({"type": "text", "content": response.text}));
    }
    parts.extend(response.tool_calls.iter().map(tool_call_part));
    let finish_reason = if response.tool_calls.is_empty() {
        "stop"
    } else {
        "tool_call"
    };
    json!([{"role": "assistant", "parts": parts, "finish_reason": finish_reason}])
}

/// A call as a message part; its arguments as the object they are, or as
/// the text the model wrote when they are not JSON.
fn tool_call_part(call: &ToolCall) -> Value {
    let arguments = serde_json::from_str::<Value>(&call.arguments)
        .unwrap_or_else(|_| Value::String(call.arguments.clone()));
    json!({"type": "tool_call", "id": call.id, "name": call.name, "arguments": arguments})
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn messages_are_roles_and_parts() {
        let messages = [
            Message::System("be brief".into()),
            Message::User("weather in Tokyo?".into()),
            Message::Assistant {
                content: String::new(),
                tool_calls: vec![ToolCall {
                    id: "c1".into(),
                    name: "weather".into(),
                    arguments: r#"{"city":"Tokyo"}"#.into(),
                }],
            },
            Message::Tool {
                call_id: "c1".into(),
                content: "sunny".into(),
                failed: false,
            },
        ];
        assert_eq!(
            input_messages(&messages),
            json!([
                {"role": "system", "parts": [{"type": "text", "content": "be brief"}]},
                {"role": "user", "parts": [{"type": "text", "content": "weather in Tokyo?"}]},
                {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "weather", "arguments": {"city": "Tokyo"}}]},
                {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "sunny"}]},
            ])
        );
        let answer = ChatResponse {
            text: "Sunny.".into(),
            ..ChatResponse::default()
        };
        assert_eq!(
            output_messages(&answer),
            json!([{"role": "assistant", "parts": [{"type": "text", "content": "Sunny."}], "finish_reason": "stop"}])
        );
    }

    #[test]
    fn an_error_type_is_its_status_or_its_kind() {
        let status = Error::Status {
            endpoint: "x".into(),
            status: "429 Too Many Requests".into(),
            code: 429,
            message: "slow down".into(),
            hint: None,
        };
        let gave_up = Error::GaveUp {
            tries: 3,
            last: Box::new(status),
        };
        assert_eq!(error_type(&gave_up), "429");
        assert_eq!(
            error_type(&Error::Unavailable("no model".into())),
            "unavailable"
        );
    }
}
