//! Any OpenAI-compatible `/chat/completions` endpoint: OpenAI, DeepSeek, Groq,
//! vLLM, the llama.cpp server, Ollama's `/v1`.
//!
//! The wire types are lenient on purpose: compatible servers differ in which
//! fields they send, so only what Riverse reads is declared, and most of it is
//! optional.
//!
//! Every completion reports its usage. A streamed request asks for it with
//! `stream_options.include_usage` (OpenAI, Ollama 0.5.2 and later, vLLM and
//! llama.cpp send it on a last chunk with no choices); an endpoint that
//! refuses the option is asked again without it, and not asked again. Where
//! the endpoint reports no usage, streamed or not, the completion carries
//! [`Usage::estimate`] of what was sent and answered.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use eventsource_stream::Eventsource;
use futures_util::StreamExt;
use reqwest::header::CONTENT_TYPE;
use riverse_tool::{ToolManifest, described, input_schema};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::http::{Endpoint, Hints, RetryPolicy, one_line};
use crate::{
    ChatRequest, ChatResponse, Error, Image, Message, Provider, TextSink, ToolCall, ToolChoice,
    Usage,
};

/// Where and how to reach the endpoint.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenAiOptions {
    /// The URL that `/chat/completions` is appended to, version path included:
    /// `https://api.openai.com/v1`.
    pub base_url: String,
    /// Sent as `Authorization: Bearer`; `None` or empty sends no header.
    pub api_key: Option<String>,
    pub model: String,
    /// `None` leaves the server's default.
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    /// Whether the model sees images: tools' images are sent to it as image
    /// parts (`openai.images` in settings).
    pub images: bool,
    /// How long the endpoint may stay silent before the request fails.
    pub timeout: Duration,
    pub retry: RetryPolicy,
    /// What errors advise; [`Hints::default`] advises nothing.
    pub hints: Hints,
}

/// An OpenAI-compatible chat completions endpoint.
#[derive(Debug)]
pub struct OpenAiProvider {
    endpoint: Endpoint,
    model: String,
    temperature: Option<f64>,
    max_tokens: Option<u32>,
    images: bool,
    /// Set once the endpoint refused `stream_options`: streamed requests go
    /// without it from then on.
    refuses_stream_options: AtomicBool,
}

impl OpenAiProvider {
    pub fn new(options: OpenAiOptions) -> Result<Self, Error> {
        let url = format!(
            "{}/chat/completions",
            options.base_url.trim_end_matches('/')
        );
        Ok(OpenAiProvider {
            endpoint: Endpoint::new(
                url,
                options.api_key,
                options.timeout,
                options.retry,
                options.hints,
            )?,
            model: options.model,
            temperature: options.temperature,
            max_tokens: options.max_tokens,
            images: options.images,
            refuses_stream_options: AtomicBool::new(false),
        })
    }

    /// The full URL requests go to.
    pub fn url(&self) -> &str {
        self.endpoint.shown_url()
    }

    /// The request body; `stream_usage` asks a streamed reply to end with
    /// its usage.
    fn body(&self, request: &ChatRequest<'_>, stream: bool, stream_usage: bool) -> Value {
        let messages: Vec<Value> = request.messages.iter().map(wire_message).collect();
        let mut body = Map::new();
        body.insert("model".into(), json!(self.model));
        body.insert("messages".into(), Value::Array(messages));
        body.insert("stream".into(), json!(stream));
        if stream && stream_usage {
            body.insert("stream_options".into(), json!({"include_usage": true}));
        }
        if let Some(temperature) = request.temperature.or(self.temperature) {
            body.insert("temperature".into(), json!(temperature));
        }
        if let Some(max_tokens) = request.max_tokens.or(self.max_tokens) {
            body.insert("max_tokens".into(), json!(max_tokens));
        }
        if !request.tools.is_empty() {
            let tools: Vec<Value> = request.tools.iter().map(function_definition).collect();
            body.insert("tools".into(), Value::Array(tools));
            if let Some(choice) = wire_tool_choice(request.tool_choice) {
                body.insert("tool_choice".into(), choice);
            }
            if let Some(parallel) = request.parallel_tool_calls {
                body.insert("parallel_tool_calls".into(), json!(parallel));
            }
        }
        Value::Object(body)
    }

    fn malformed(&self, detail: impl Into<String>) -> Error {
        Error::Malformed {
            endpoint: self.endpoint.shown_url().to_owned(),
            detail: detail.into(),
        }
    }

    async fn read_whole(&self, response: reqwest::Response) -> Result<ChatResponse, Error> {
        let bytes = response
            .bytes()
            .await
            .map_err(|err| self.endpoint.transport_error(&err))?;
        let completion: Completion = serde_json::from_slice(&bytes).map_err(|err| {
            self.malformed(format!(
                "{err}: {}",
                one_line(&String::from_utf8_lossy(&bytes))
            ))
        })?;
        if let Some(error) = completion.error {
            return Err(self.stream_error(&error));
        }
        let Some(choice) = completion.choices.into_iter().next() else {
            return Err(self.malformed("no choices in the reply"));
        };
        let mut assembly = Assembly {
            text: choice.message.content.unwrap_or_default(),
            calls: Vec::new(),
            usage: reported_usage(completion.usage.as_ref()),
        };
        for call in choice.message.tool_calls.unwrap_or_default() {
            let function = call.function.unwrap_or_default();
            assembly.calls.push(PartialCall {
                index: None,
                id: call.id.unwrap_or_default(),
                name: function.name.unwrap_or_default(),
                arguments: arguments_text(function.arguments),
            });
        }
        Ok(assembly.finish())
    }

    async fn read_stream(
        &self,
        response: reqwest::Response,
        mut on_text: Option<TextSink<'_>>,
    ) -> Result<ChatResponse, Error> {
        let mut events = response.bytes_stream().eventsource();
        let mut assembly = Assembly::default();
        while let Some(event) = events.next().await {
            let event = event.map_err(|err| match err {
                eventsource_stream::EventStreamError::Transport(err) => {
                    self.endpoint.transport_error(&err)
                }
                other => self.malformed(other.to_string()),
            })?;
            let data = event.data.trim();
            if data == "[DONE]" {
                break;
            }
            if data.is_empty() {
                continue;
            }
            let chunk: Chunk = serde_json::from_str(data)
                .map_err(|err| self.malformed(format!("{err}: {}", one_line(data))))?;
            if let Some(error) = chunk.error {
                return Err(self.stream_error(&error));
            }
            // On a last chunk, whose choices are empty; a server that sends
            // a running count on every chunk ends with the whole one.
            if let Some(usage) = reported_usage(chunk.usage.as_ref()) {
                assembly.usage = Some(usage);
            }
            for choice in chunk.choices.into_iter().flatten() {
                if let Some(text) = choice.delta.content.filter(|text| !text.is_empty()) {
                    if let Some(sink) = on_text.as_mut() {
                        sink(&text);
                    }
                    assembly.text.push_str(&text);
                }
                for delta in choice.delta.tool_calls.unwrap_or_default() {
                    assembly.apply(delta);
                }
            }
        }
        Ok(assembly.finish())
    }

    fn stream_error(&self, error: &Value) -> Error {
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .map(one_line)
            .unwrap_or_else(|| one_line(&error.to_string()));
        Error::Status {
            endpoint: self.endpoint.shown_url().to_owned(),
            status: "an error".into(),
            code: 0,
            message,
            hint: None,
        }
    }
}

#[async_trait::async_trait]
impl Provider for OpenAiProvider {
    fn describe(&self) -> String {
        format!("{} at {}", self.model, self.endpoint.shown_url())
    }

    fn accepts_images(&self) -> bool {
        self.images
    }

    async fn complete(
        &self,
        request: ChatRequest<'_>,
        on_text: Option<TextSink<'_>>,
    ) -> Result<ChatResponse, Error> {
        let stream = on_text.is_some();
        let stream_usage = stream && !self.refuses_stream_options.load(Ordering::Relaxed);
        let response = match self
            .endpoint
            .post_json(&self.body(&request, stream, stream_usage))
            .await
        {
            // Older servers (Azure OpenAI before 2024-09) reject the option.
            Err(err) if stream_usage && refuses_stream_options(&err) => {
                tracing::debug!("{err}; asking again without stream_options");
                self.refuses_stream_options.store(true, Ordering::Relaxed);
                self.endpoint
                    .post_json(&self.body(&request, stream, false))
                    .await?
            }
            other => other?,
        };
        let is_json = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.starts_with("application/json"));
        // A server may ignore `stream: true` and answer in one piece.
        let mut reply = if stream && !is_json {
            self.read_stream(response, on_text).await?
        } else {
            let reply = self.read_whole(response).await?;
            if let Some(sink) = on_text.filter(|_| !reply.text.is_empty()) {
                sink(&reply.text);
            }
            reply
        };
        if reply.usage.is_none() {
            reply.usage = Some(estimated_usage(&request, &reply));
        }
        Ok(reply)
    }
}

/// A manifest as a function the model may call: the description with the
/// examples appended, and the JSON Schema of its parameters.
/// `tool_choice` as OpenAI takes it; `None` for `auto`, its default, which
/// servers that know no `tool_choice` take too.
fn wire_tool_choice(choice: &ToolChoice) -> Option<Value> {
    match choice {
        ToolChoice::Auto => None,
        ToolChoice::None => Some(json!("none")),
        ToolChoice::Required => Some(json!("required")),
        ToolChoice::Function(name) => Some(json!({"type": "function", "function": {"name": name}})),
    }
}

pub fn function_definition(manifest: &ToolManifest) -> Value {
    json!({
        "type": "function",
        "function": {
            "name": manifest.name,
            "description": described(manifest),
            "parameters": input_schema(manifest),
        }
    })
}

/// Whether `err` is the endpoint rejecting `stream_options` rather than the
/// request.
fn refuses_stream_options(err: &Error) -> bool {
    match err {
        Error::Status {
            code: 400 | 422,
            message,
            ..
        } => message.contains("stream_options"),
        _ => false,
    }
}

/// The endpoint's `usage`, read leniently: a field missing or not a count is
/// 0, a missing total is the sum, and a count of no tokens at all (some
/// servers send zeros) is no count.
fn reported_usage(usage: Option<&Value>) -> Option<Usage> {
    let usage = usage?;
    let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
    let (prompt, completion) = (count("prompt_tokens"), count("completion_tokens"));
    if prompt == 0 && completion == 0 {
        return None;
    }
    Some(match count("total_tokens") {
        0 => Usage::new(prompt, completion),
        total => Usage {
            prompt_tokens: prompt,
            completion_tokens: completion,
            total_tokens: total,
        },
    })
}

/// [`Usage::estimate`] of a completion the endpoint reported no usage for:
/// the text of the request's messages and the JSON of its tool definitions,
/// against the reply's text and calls.
fn estimated_usage(request: &ChatRequest<'_>, reply: &ChatResponse) -> Usage {
    let messages: usize = request.messages.iter().map(message_chars).sum();
    let tools: usize = request
        .tools
        .iter()
        .map(|tool| function_definition(tool).to_string().chars().count())
        .sum();
    let answered = reply.text.chars().count() + calls_chars(&reply.tool_calls);
    Usage::estimate(messages + tools, answered)
}

/// The characters of a message's text: its content and the names and
/// arguments of its calls; images count only by the line introducing each.
fn message_chars(message: &Message) -> usize {
    match message {
        Message::System(content) | Message::User(content) | Message::Tool { content, .. } => {
            content.chars().count()
        }
        Message::Assistant {
            content,
            tool_calls,
        } => content.chars().count() + calls_chars(tool_calls),
        Message::Images(images) => images
            .iter()
            .map(|image| image_intro(image).chars().count())
            .sum(),
    }
}

fn calls_chars(calls: &[ToolCall]) -> usize {
    calls
        .iter()
        .map(|call| call.name.chars().count() + call.arguments.chars().count())
        .sum()
}

/// The text part sent before an image.
fn image_intro(image: &Image) -> String {
    format!("An image from {}:", image.from)
}

fn wire_message(message: &Message) -> Value {
    match message {
        Message::System(content) => json!({"role": "system", "content": content}),
        Message::User(content) => json!({"role": "user", "content": content}),
        Message::Assistant {
            content,
            tool_calls,
        } if !tool_calls.is_empty() => {
            let calls: Vec<Value> = tool_calls
                .iter()
                .map(|call| {
                    json!({
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments},
                    })
                })
                .collect();
            let content = if content.is_empty() {
                Value::Null
            } else {
                json!(content)
            };
            json!({"role": "assistant", "content": content, "tool_calls": calls})
        }
        Message::Assistant { content, .. } => json!({"role": "assistant", "content": content}),
        Message::Tool {
            call_id, content, ..
        } => {
            json!({"role": "tool", "tool_call_id": call_id, "content": content})
        }
        Message::Images(images) => {
            let mut parts = Vec::new();
            for image in images {
                parts.push(json!({"type": "text", "text": image_intro(image)}));
                parts.push(json!({
                    "type": "image_url",
                    "image_url": {"url": format!("data:{};base64,{}", image.mime_type, image.data)},
                }));
            }
            json!({"role": "user", "content": parts})
        }
    }
}

/// Arguments as text: the standard is a JSON string, but some servers send
/// the object itself.
fn arguments_text(arguments: Option<Value>) -> String {
    match arguments {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text,
        Some(other) => other.to_string(),
    }
}

/// A reply being put together from streamed deltas.
#[derive(Default)]
struct Assembly {
    text: String,
    calls: Vec<PartialCall>,
    usage: Option<Usage>,
}

struct PartialCall {
    /// The `index` deltas name this call by, when the server sends one.
    index: Option<usize>,
    id: String,
    name: String,
    arguments: String,
}

impl Assembly {
    /// Adds one tool-call delta: the first piece of a call carries its id and
    /// name, later pieces more of its arguments.
    fn apply(&mut self, delta: DeltaToolCall) {
        let id = delta.id.filter(|id| !id.is_empty());
        let existing = match (delta.index, &id) {
            (Some(index), _) => self
                .calls
                .iter()
                .rposition(|call| call.index == Some(index)),
            (None, Some(id)) => self.calls.iter().rposition(|call| &call.id == id),
            (None, None) => self.calls.len().checked_sub(1),
        };
        // The same index under a new id is a new call (servers that send each
        // call whole, all at index 0).
        let existing = existing.filter(|&at| match &id {
            Some(id) => self.calls[at].id.is_empty() || &self.calls[at].id == id,
            None => true,
        });
        let at = match existing {
            Some(at) => at,
            None => {
                self.calls.push(PartialCall {
                    index: delta.index,
                    id: String::new(),
                    name: String::new(),
                    arguments: String::new(),
                });
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[at];
        if let Some(id) = id {
            call.id = id;
        }
        if let Some(function) = delta.function {
            if let Some(name) = function.name {
                call.name.push_str(&name);
            }
            call.arguments.push_str(&arguments_text(function.arguments));
        }
    }

    fn finish(self) -> ChatResponse {
        let tool_calls = self
            .calls
            .into_iter()
            .enumerate()
            .map(|(position, call)| ToolCall {
                id: if call.id.is_empty() {
                    format!("call_{position}")
                } else {
                    call.id
                },
                name: call.name,
                arguments: call.arguments,
            })
            .collect();
        ChatResponse {
            text: self.text,
            tool_calls,
            usage: self.usage,
        }
    }
}

#[derive(Deserialize)]
struct Completion {
    #[serde(default)]
    choices: Vec<CompletionChoice>,
    error: Option<Value>,
    /// Read by [`reported_usage`].
    usage: Option<Value>,
}

#[derive(Deserialize)]
struct CompletionChoice {
    message: CompletionMessage,
}

#[derive(Deserialize)]
struct CompletionMessage {
    content: Option<String>,
    tool_calls: Option<Vec<WireToolCall>>,
}

#[derive(Deserialize)]
struct WireToolCall {
    id: Option<String>,
    function: Option<WireFunction>,
}

#[derive(Deserialize, Default)]
struct WireFunction {
    name: Option<String>,
    arguments: Option<Value>,
}

#[derive(Deserialize)]
struct Chunk {
    /// Empty or `null` on the chunk that carries only the usage.
    choices: Option<Vec<ChunkChoice>>,
    error: Option<Value>,
    /// Sent by servers asked for it, on a last chunk; read by
    /// [`reported_usage`].
    usage: Option<Value>,
}

#[derive(Deserialize)]
struct ChunkChoice {
    #[serde(default)]
    delta: Delta,
}

#[derive(Deserialize, Default)]
struct Delta {
    content: Option<String>,
    tool_calls: Option<Vec<DeltaToolCall>>,
}

#[derive(Deserialize)]
struct DeltaToolCall {
    index: Option<usize>,
    id: Option<String>,
    function: Option<WireFunction>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn delta(value: Value) -> DeltaToolCall {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn tool_call_deltas_are_joined_by_index() {
        let mut assembly = Assembly::default();
        assembly.apply(delta(
            json!({"index": 0, "id": "a", "function": {"name": "weather", "arguments": ""}}),
        ));
        assembly.apply(delta(
            json!({"index": 1, "id": "b", "function": {"name": "clock", "arguments": "{}"}}),
        ));
        assembly.apply(delta(
            json!({"index": 0, "function": {"arguments": "{\"city\": "}}),
        ));
        assembly.apply(delta(
            json!({"index": 0, "function": {"arguments": "\"Tokyo\"}"}}),
        ));
        let response = assembly.finish();
        assert_eq!(
            response.tool_calls,
            vec![
                ToolCall {
                    id: "a".into(),
                    name: "weather".into(),
                    arguments: r#"{"city": "Tokyo"}"#.into()
                },
                ToolCall {
                    id: "b".into(),
                    name: "clock".into(),
                    arguments: "{}".into()
                },
            ]
        );
    }

    #[test]
    fn whole_calls_at_one_index_stay_apart_and_get_ids() {
        let mut assembly = Assembly::default();
        assembly.apply(delta(
            json!({"index": 0, "id": "x", "function": {"name": "a", "arguments": {"k": 1}}}),
        ));
        assembly.apply(delta(
            json!({"index": 0, "id": "y", "function": {"name": "b", "arguments": "{}"}}),
        ));
        // A piece with neither index nor id continues the last call.
        assembly.apply(delta(json!({"function": {"arguments": ""}})));
        let calls = assembly.finish().tool_calls;
        let summary: Vec<(&str, &str, &str)> = calls
            .iter()
            .map(|c| (c.id.as_str(), c.name.as_str(), c.arguments.as_str()))
            .collect();
        assert_eq!(summary, vec![("x", "a", r#"{"k":1}"#), ("y", "b", "{}")]);
        let mut assembly = Assembly::default();
        assembly.apply(delta(json!({"function": {"name": "c", "arguments": "{}"}})));
        assert_eq!(assembly.finish().tool_calls[0].id, "call_0");
    }

    #[test]
    fn usage_is_read_leniently() {
        let read = |usage: Value| reported_usage(Some(&usage));
        assert_eq!(
            read(
                json!({"prompt_tokens": 24, "completion_tokens": 58, "total_tokens": 82,
                "prompt_tokens_details": {"cached_tokens": 0}})
            ),
            Some(Usage::new(24, 58))
        );
        assert_eq!(
            read(json!({"prompt_tokens": 5, "completion_tokens": null})),
            Some(Usage::new(5, 0)),
            "a missing total is the sum"
        );
        assert_eq!(
            read(json!({"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0})),
            None
        );
        assert_eq!(read(json!("12 tokens")), None);
        assert_eq!(reported_usage(None), None);
    }

    #[test]
    fn an_estimate_counts_what_was_sent_and_answered() {
        let tool: ToolManifest =
            serde_json::from_value(json!({"name": "t", "description": "d"})).unwrap();
        let tool_chars = function_definition(&tool).to_string().chars().count();
        let messages = [
            Message::System("12345678".into()),
            Message::User("東京".into()),
            Message::Assistant {
                content: "ab".into(),
                tool_calls: vec![ToolCall {
                    id: "c".into(),
                    name: "t".into(),
                    arguments: "{}".into(),
                }],
            },
            Message::Tool {
                call_id: "c".into(),
                content: "sunny".into(),
                failed: false,
            },
        ];
        let request = ChatRequest {
            messages: &messages,
            tools: std::slice::from_ref(&tool),
            temperature: None,
            max_tokens: None,
            tool_choice: &ToolChoice::Auto,
            parallel_tool_calls: None,
        };
        let reply = ChatResponse {
            text: "hello".into(),
            tool_calls: vec![ToolCall {
                id: "d".into(),
                name: "t".into(),
                arguments: "{\"a\":1}".into(),
            }],
            usage: None,
        };
        // 8 + 2 + (2 + 1 + 2) + 5 characters of messages; 5 + 1 + 7 answered.
        assert_eq!(
            estimated_usage(&request, &reply),
            Usage::estimate(20 + tool_chars, 13)
        );
    }

    #[test]
    fn a_function_carries_its_examples_and_schema() {
        let manifest: ToolManifest = serde_json::from_value(json!({
            "name": "weather", "description": "Get the weather",
            "parameters": {"city": "City name", "days": "How many days"},
            "parameter_types": {"days": "int"},
            "examples": ["Weather in Tokyo?", "Rain in London?"]
        }))
        .unwrap();
        assert_eq!(
            function_definition(&manifest),
            json!({"type": "function", "function": {
                "name": "weather",
                "description": "Get the weather\n\nExamples:\n- Weather in Tokyo?\n- Rain in London?",
                "parameters": {"type": "object", "properties": {
                    "city": {"type": "string", "description": "City name"},
                    "days": {"type": "integer", "description": "How many days"}
                }}
            }})
        );
    }
}
