//! A scripted OpenAI-compatible server on a loopback port.
//!
//! Tests script its replies with the `ev_*` builders, in order; each request
//! takes the next one (or the fallback once the script is used up). A reply is
//! rendered the way the request asks: streamed as server-sent events when it
//! says `"stream": true`, with text in small pieces and each tool call's
//! arguments split across several chunks, or as one JSON body otherwise. Every
//! request is recorded for the test to inspect.
//!
//! The server runs on its own thread and runtime ([`Loopback`]), so it serves async tests and
//! tests that run the `riverse` binary alike, and stops when dropped.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::loopback::Loopback;

/// One scripted reply.
#[derive(Debug, Clone)]
pub struct Reply {
    kind: Kind,
    /// Waited before answering.
    delay: Duration,
    /// Streamed bodies are cut into pieces of this many bytes, across event
    /// and character boundaries, to test the client's reassembly.
    split_bytes: Option<usize>,
}

#[derive(Debug, Clone)]
enum Kind {
    Answer {
        text: String,
        calls: Vec<Call>,
    },
    Status {
        status: u16,
        message: String,
        retry_after: Option<String>,
    },
    Hang,
    RawSse(Vec<String>),
    /// The call while the conversation has no tool result, then the answer.
    ToolRound {
        call: Call,
        answer: String,
    },
}

#[derive(Debug, Clone)]
struct Call {
    id: String,
    name: String,
    arguments: String,
}

/// A plain answer.
pub fn ev_text(text: &str) -> Reply {
    reply(Kind::Answer {
        text: text.to_owned(),
        calls: Vec::new(),
    })
}

/// One call of `name` with `arguments` (serialized as the model would).
pub fn ev_tool_call(id: &str, name: &str, arguments: Value) -> Reply {
    ev_tool_calls(&[(id, name, arguments)])
}

/// Several calls in one reply.
pub fn ev_tool_calls(calls: &[(&str, &str, Value)]) -> Reply {
    let calls = calls
        .iter()
        .map(|(id, name, arguments)| Call {
            id: (*id).to_owned(),
            name: (*name).to_owned(),
            arguments: arguments.to_string(),
        })
        .collect();
    reply(Kind::Answer {
        text: String::new(),
        calls,
    })
}

/// A call whose arguments are exactly `arguments`, valid JSON or not.
pub fn ev_raw_tool_call(id: &str, name: &str, arguments: &str) -> Reply {
    reply(Kind::Answer {
        text: String::new(),
        calls: vec![Call {
            id: id.to_owned(),
            name: name.to_owned(),
            arguments: arguments.to_owned(),
        }],
    })
}

/// A whole one-tool turn as one reply, for a fallback that serves many
/// turns at once: a request whose conversation has no tool result yet gets
/// the call, one that has gets `answer`.
pub fn ev_tool_round(id: &str, name: &str, arguments: Value, answer: &str) -> Reply {
    reply(Kind::ToolRound {
        call: Call {
            id: id.to_owned(),
            name: name.to_owned(),
            arguments: arguments.to_string(),
        },
        answer: answer.to_owned(),
    })
}

/// An HTTP error status with an OpenAI-shaped error body.
pub fn ev_status(status: u16, message: &str) -> Reply {
    reply(Kind::Status {
        status,
        message: message.to_owned(),
        retry_after: None,
    })
}

/// Accepts the request and never answers.
pub fn ev_hang() -> Reply {
    reply(Kind::Hang)
}

/// A streamed body made of exactly these `data:` payloads.
pub fn ev_raw_sse(data: &[&str]) -> Reply {
    reply(Kind::RawSse(data.iter().map(|d| (*d).to_owned()).collect()))
}

fn reply(kind: Kind) -> Reply {
    Reply {
        kind,
        delay: Duration::ZERO,
        split_bytes: None,
    }
}

impl Reply {
    /// Text said alongside the tool calls.
    pub fn with_text(mut self, said: &str) -> Self {
        if let Kind::Answer { text, .. } = &mut self.kind {
            *text = said.to_owned();
        }
        self
    }

    /// Sends `Retry-After: value` with an error status.
    pub fn retry_after(mut self, value: &str) -> Self {
        if let Kind::Status { retry_after, .. } = &mut self.kind {
            *retry_after = Some(value.to_owned());
        }
        self
    }

    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    pub fn split_bytes(mut self, bytes: usize) -> Self {
        self.split_bytes = Some(bytes.max(1));
        self
    }
}

/// One request the server received.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub path: String,
    /// Header names in lowercase.
    pub headers: Vec<(String, String)>,
    /// The JSON body; `Null` when it was not JSON.
    pub body: Value,
    pub received: Instant,
    /// How long the server took to make its reply (zero until it has).
    pub handled: Duration,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.as_str())
    }

    pub fn messages(&self) -> Vec<Value> {
        self.body["messages"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// The `(role, content)` of every message; content `""` when absent.
    pub fn roles_and_contents(&self) -> Vec<(String, String)> {
        self.messages()
            .iter()
            .map(|m| {
                (
                    m["role"].as_str().unwrap_or_default().to_owned(),
                    m["content"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect()
    }

    /// The content of every `tool` message, in order.
    pub fn tool_results(&self) -> Vec<(String, String)> {
        self.messages()
            .iter()
            .filter(|m| m["role"] == "tool")
            .map(|m| {
                (
                    m["tool_call_id"].as_str().unwrap_or_default().to_owned(),
                    m["content"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect()
    }

    /// The names of the offered tools.
    pub fn tool_names(&self) -> Vec<String> {
        self.body["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .map(|t| {
                        t["function"]["name"]
                            .as_str()
                            .unwrap_or_default()
                            .to_owned()
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn is_stream(&self) -> bool {
        self.body["stream"] == json!(true)
    }
}

#[derive(Default)]
struct Script {
    replies: VecDeque<Reply>,
    fallback: Option<Reply>,
    requests: Vec<Request>,
    /// `request N: what is wrong`, for every request whose conversation
    /// breaks the rules of [`conversation_problem`].
    problems: Vec<String>,
}

/// The running server; stops when dropped.
pub struct OpenAiServer {
    server: Loopback,
    script: Arc<Mutex<Script>>,
}

impl OpenAiServer {
    /// Starts serving `replies`, in order.
    pub fn start(replies: impl IntoIterator<Item = Reply>) -> Self {
        let script = Arc::new(Mutex::new(Script {
            replies: replies.into_iter().collect(),
            ..Script::default()
        }));
        let app = Router::new().fallback(handle).with_state(script.clone());
        OpenAiServer {
            server: Loopback::serve(app),
            script,
        }
    }

    /// Answers every request past the script with `reply`.
    pub fn fallback(self, reply: Reply) -> Self {
        self.script.lock().unwrap().fallback = Some(reply);
        self
    }

    /// Adds replies to the end of the script.
    pub fn push(&self, replies: impl IntoIterator<Item = Reply>) {
        self.script.lock().unwrap().replies.extend(replies);
    }

    /// `http://127.0.0.1:PORT`: an `api_base` without the version path.
    pub fn url(&self) -> String {
        self.server.url()
    }

    /// `http://127.0.0.1:PORT/v1`: a base URL as `OPENAI_BASE_URL` gives it.
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.url())
    }

    pub fn requests(&self) -> Vec<Request> {
        self.script.lock().unwrap().requests.clone()
    }

    /// The requests so far, forgetting them.
    pub fn take_requests(&self) -> Vec<Request> {
        std::mem::take(&mut self.script.lock().unwrap().requests)
    }

    /// The only request; panics if there were more or none.
    pub fn single_request(&self) -> Request {
        let requests = self.requests();
        assert_eq!(
            requests.len(),
            1,
            "expected exactly one request, got {requests:#?}"
        );
        requests.into_iter().next().unwrap()
    }

    /// Replies of the script no request has taken yet, forgetting them: for a
    /// test whose client is meant to stop early.
    pub fn take_unused(&self) -> Vec<Reply> {
        self.script.lock().unwrap().replies.drain(..).collect()
    }
}

/// What is wrong with a request's conversation, if anything: each tool result
/// must answer a call made just before it, once, and each call must be
/// answered before the conversation moves on. OpenAI rejects conversations
/// that break this.
fn conversation_problem(request: &Request) -> Option<String> {
    let mut open: Vec<String> = Vec::new();
    let mut answered: Vec<String> = Vec::new();
    let unanswered = |open: &[String], answered: &[String]| -> Option<String> {
        let missing: Vec<&String> = open.iter().filter(|id| !answered.contains(id)).collect();
        (!missing.is_empty()).then(|| format!("calls {missing:?} were never answered"))
    };
    for message in request.messages() {
        if message["role"] == "tool" {
            let id = message["tool_call_id"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            if !open.contains(&id) || answered.contains(&id) {
                return Some(format!(
                    "tool result {id:?} answers no open call (open: {open:?})"
                ));
            }
            answered.push(id);
            continue;
        }
        if let Some(problem) = unanswered(&open, &answered) {
            return Some(problem);
        }
        answered.clear();
        open = message["tool_calls"]
            .as_array()
            .map(|calls| {
                calls
                    .iter()
                    .map(|c| c["id"].as_str().unwrap_or_default().to_owned())
                    .collect()
            })
            .unwrap_or_default();
    }
    unanswered(&open, &answered)
}

/// Fails the test if a request broke the conversation rules or a scripted
/// reply was never asked for (a test that scripts three replies and gets two
/// requests has not seen what it thinks). The server stops after this.
impl Drop for OpenAiServer {
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        let script = self.script.lock().unwrap_or_else(|err| err.into_inner());
        assert!(
            script.problems.is_empty(),
            "the scripted server received conversations OpenAI would reject: {:#?}",
            script.problems
        );
        assert!(
            script.replies.is_empty(),
            "{} scripted replies were never asked for: {:#?}",
            script.replies.len(),
            script.replies
        );
    }
}

async fn handle(
    State(script): State<Arc<Mutex<Script>>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let received = Instant::now();
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let request = Request {
        method: method.to_string(),
        path: uri.path().to_owned(),
        headers: headers
            .iter()
            .map(|(name, value)| {
                (
                    name.as_str().to_owned(),
                    value.to_str().unwrap_or_default().to_owned(),
                )
            })
            .collect(),
        body: body.clone(),
        received,
        handled: Duration::ZERO,
    };
    let (number, next) = {
        let mut guard = script.lock().unwrap();
        if let Some(problem) = conversation_problem(&request) {
            let number = guard.requests.len();
            guard.problems.push(format!("request {number}: {problem}"));
        }
        guard.requests.push(request);
        let next = guard.replies.pop_front().or_else(|| guard.fallback.clone());
        (guard.requests.len(), next)
    };
    let response = reply_to(number, next, &body).await;
    if let Some(request) = script.lock().unwrap().requests.get_mut(number - 1) {
        request.handled = received.elapsed();
    }
    response
}

async fn reply_to(number: usize, next: Option<Reply>, body: &Value) -> Response {
    let Some(reply) = next else {
        return error_response(
            400,
            &format!("scripted server: no reply left for request {number}"),
            None,
        );
    };
    if !reply.delay.is_zero() {
        tokio::time::sleep(reply.delay).await;
    }
    let stream = body["stream"] == json!(true);
    let model = body["model"].as_str().unwrap_or("scripted").to_owned();
    let kind = match reply.kind {
        Kind::ToolRound { call, answer } => {
            let answered = body["messages"]
                .as_array()
                .is_some_and(|messages| messages.iter().any(|m| m["role"] == "tool"));
            match answered {
                true => Kind::Answer {
                    text: answer,
                    calls: Vec::new(),
                },
                false => Kind::Answer {
                    text: String::new(),
                    calls: vec![call],
                },
            }
        }
        other => other,
    };
    match kind {
        Kind::Hang => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            error_response(500, "hung reply woke up", None)
        }
        Kind::Status {
            status,
            message,
            retry_after,
        } => error_response(status, &message, retry_after),
        Kind::RawSse(events) => sse_response(events, reply.split_bytes),
        // Resolved into an answer above.
        Kind::ToolRound { .. } => error_response(500, "unresolved tool round", None),
        Kind::Answer { text, calls } if stream => {
            sse_response(stream_events(&model, &text, &calls), reply.split_bytes)
        }
        Kind::Answer { text, calls } => {
            let body = completion(&model, &text, &calls);
            (
                [(header::CONTENT_TYPE, "application/json")],
                body.to_string(),
            )
                .into_response()
        }
    }
}

fn error_response(status: u16, message: &str, retry_after: Option<String>) -> Response {
    let body = json!({"error": {"message": message, "type": "scripted_error", "code": status}});
    let mut response = (
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response();
    if let Some(value) = retry_after {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, value.parse().unwrap());
    }
    response
}

fn sse_response(events: Vec<String>, split_bytes: Option<usize>) -> Response {
    let frames: Vec<Vec<u8>> = events
        .iter()
        .map(|data| format!("data: {data}\n\n").into_bytes())
        .collect();
    let pieces: Vec<Vec<u8>> = match split_bytes {
        None => frames,
        Some(size) => frames.concat().chunks(size).map(<[u8]>::to_vec).collect(),
    };
    let body = Body::from_stream(futures_util::stream::iter(
        pieces
            .into_iter()
            .map(|piece| Ok::<_, Infallible>(Bytes::from(piece))),
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

/// Text in pieces of a few characters; each call's id and name first, then its
/// arguments in three pieces.
fn stream_events(model: &str, text: &str, calls: &[Call]) -> Vec<String> {
    let chunk = |delta: Value, finish: Value| {
        json!({
            "id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 0, "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]
        })
        .to_string()
    };
    let mut events = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    for piece in split_chars(text, 4) {
        events.push(chunk(json!({"content": piece}), Value::Null));
    }
    for (index, call) in calls.iter().enumerate() {
        events.push(chunk(
            json!({"tool_calls": [{"index": index, "id": call.id, "type": "function",
                "function": {"name": call.name, "arguments": ""}}]}),
            Value::Null,
        ));
        let size = call.arguments.chars().count().div_ceil(3).max(1);
        for piece in split_chars(&call.arguments, size) {
            events.push(chunk(
                json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}),
                Value::Null,
            ));
        }
    }
    let finish = if calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    events.push(chunk(json!({}), json!(finish)));
    // As OpenAI sends it when asked: a last chunk with no choices.
    events.push(
        json!({
            "id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 0,
            "model": model, "choices": [], "usage": usage(text, calls)
        })
        .to_string(),
    );
    events.push("[DONE]".to_owned());
    events
}

/// A made-up but predictable count: 10 tokens in, one a character of text
/// and one a call out.
fn usage(text: &str, calls: &[Call]) -> Value {
    let completion = text.chars().count() + calls.len();
    json!({"prompt_tokens": 10, "completion_tokens": completion, "total_tokens": 10 + completion})
}

fn completion(model: &str, text: &str, calls: &[Call]) -> Value {
    let mut message = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { json!(text) }});
    if !calls.is_empty() {
        message["tool_calls"] = calls
            .iter()
            .map(|call| {
                json!({"id": call.id, "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments}})
            })
            .collect();
    }
    let finish = if calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    json!({
        "id": "chatcmpl-scripted", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": usage(text, calls)
    })
}

fn split_chars(text: &str, size: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(size)
        .map(|piece| piece.iter().collect())
        .collect()
}
