//! A server of the sessionless 2026-07-28 protocol alone, as a tool source:
//! rmcp's own server, narrowed to that protocol, which refuses `initialize`.
//! Riverse reaches it with `server/discover`, over streamable HTTP and over
//! a stdio pipe, and what its tools ask (a question, a completion) comes as
//! `input_required` results that the call's front end answers.

// Logging is deprecated by the 2026-07-28 protocol (SEP-2577), which still
// sends a call's log lines to a request that names a level.
#![allow(deprecated)]

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use parking_lot::Mutex;
use pretty_assertions::assert_eq;
use riverse_mcp::{ServerSpec, ServerTransport};
use riverse_test_support::Project;
use riverse_tool::{
    Answer, CallContext, CallListener, LogLevel, LogLine, Question, Registry, SampleRequest,
};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ErrorData, InputRequiredResult,
    ListToolsResult, LoggingMessageNotificationParam, PaginatedRequestParams, ProtocolVersion,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::Notify;

use super::source::{params, registry, stdio};

/// Deadline for the servers to start; never waited for unless something is
/// wrong.
const STARTUP: std::time::Duration = std::time::Duration::from_secs(60);

/// What the server saw: the protocol version of each `tools/call`, and how
/// many connections were made to it over the stdio pipe.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<String>>>, Arc<AtomicUsize>);

/// rmcp's server, speaking 2026-07-28 only.
#[derive(Clone)]
struct Modern {
    seen: Seen,
    /// Ends the connection, for `hang_up`.
    hang_up: Arc<Notify>,
}

fn tool(name: &str, input_schema: Value) -> Tool {
    serde_json::from_value(json!({
        "name": name,
        "description": format!("The {name} tool"),
        "inputSchema": input_schema,
    }))
    .unwrap()
}

fn result(value: Value) -> CallToolResponse {
    CallToolResponse::Complete(serde_json::from_value::<CallToolResult>(value).unwrap())
}

/// The answer to what a tool asked under `key`, once the client gave it
/// with the state the asking round gave back.
fn answered(request: &CallToolRequestParams, key: &str) -> Option<Value> {
    let answer = request.input_responses.as_ref()?.get(key)?;
    (request.request_state.as_deref() == Some("asked")).then(|| answer.clone())
}

/// The `input_required` result that asks `asked` under `key`.
fn needs(key: &str, asked: Value) -> CallToolResponse {
    let needed = json!({
        "resultType": "input_required",
        "inputRequests": {key: asked},
        "requestState": "asked",
    });
    let needed: InputRequiredResult = serde_json::from_value(needed).unwrap();
    CallToolResponse::InputRequired(needed)
}

impl Modern {
    fn call(&self, request: &CallToolRequestParams) -> CallToolResponse {
        let arguments = request.arguments.clone().unwrap_or_default();
        match request.name.as_ref() {
            "weigh" => result(json!({
                "content": [{"type": "text", "text": "1.2 kg of apples"}],
                "structuredContent": {"grams": 1200, "fruit": arguments["fruit"]},
            })),
            "confirm" => {
                let question = json!({
                    "method": "elicitation/create",
                    "params": {
                        "mode": "form",
                        "message": arguments["question"],
                        "requestedSchema": {
                            "type": "object",
                            "properties": {"sure": {"type": "boolean", "title": "Sure"}},
                            "required": ["sure"],
                        },
                    },
                });
                match answered(request, "confirmation") {
                    Some(answer) => result(json!({
                        "content": [{"type": "text", "text": format!("{}: {}", answer["action"].as_str().unwrap_or_default(), answer["content"])}],
                    })),
                    None => needs("confirmation", question),
                }
            }
            "summarise" => {
                let sample = json!({
                    "method": "sampling/createMessage",
                    "params": {
                        "messages": [{"role": "user", "content": {"type": "text", "text": arguments["text"]}}],
                        "maxTokens": 50,
                    },
                });
                match answered(request, "summary") {
                    Some(answer) => result(json!({
                        "content": [{"type": "text", "text": format!("summary: {}", answer["content"]["text"].as_str().unwrap_or_default())}],
                    })),
                    None => needs("summary", sample),
                }
            }
            other => result(json!({
                "content": [{"type": "text", "text": format!("no tool {other}")}],
                "isError": true,
            })),
        }
    }
}

impl ServerHandler for Modern {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Owned(vec![ProtocolVersion::V_2026_07_28])
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut weigh = tool(
            "weigh",
            json!({"type": "object", "properties": {"fruit": {"type": "string"}}}),
        );
        weigh.output_schema = serde_json::from_value(json!({
            "type": "object",
            "properties": {"grams": {"type": "integer"}, "fruit": {"type": "string"}},
            "required": ["grams"],
        }))
        .unwrap();
        Ok(ListToolsResult::with_all_items(vec![
            weigh,
            tool(
                "confirm",
                json!({"type": "object", "properties": {"question": {"type": "string"}}}),
            ),
            tool("hang_up", json!({"type": "object"})),
            tool(
                "summarise",
                json!({"type": "object", "properties": {"text": {"type": "string"}}}),
            ),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let version = context.meta.protocol_version().map(|v| v.to_string());
        self.seen.0.lock().push(version.unwrap_or_default());
        if request.name == "hang_up" {
            // The connection ends before any answer.
            self.hang_up.notify_one();
            std::future::pending::<()>().await;
        }
        // Under 2026-07-28 only a request that names a level hears lines.
        if let Some(level) = context.meta.log_level() {
            let line = LoggingMessageNotificationParam::new(
                level,
                json!(format!("{} at {level:?}", request.name)),
            );
            context.peer.notify_logging_message(line).await.unwrap();
        }
        Ok(self.call(&request))
    }
}

/// The server at `/mcp` of a loopback port; its URL.
async fn over_http(seen: &Seen) -> String {
    let server = Modern {
        seen: seen.clone(),
        hang_up: Arc::default(),
    };
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().disable_allowed_hosts(),
    );
    let app = axum::Router::new().route_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

/// Copies stdin to a TCP port and the port's replies to stdout: a stdio
/// server whose MCP is the in-process server's.
const PIPE: &str = r#"
import socket, sys, threading
conn = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
def up():
    for chunk in iter(lambda: sys.stdin.buffer.read1(65536), b""):
        conn.sendall(chunk)
    conn.shutdown(socket.SHUT_WR)
threading.Thread(target=up, daemon=True).start()
for chunk in iter(lambda: conn.recv(65536), b""):
    sys.stdout.buffer.write(chunk)
    sys.stdout.buffer.flush()
"#;

/// The server behind a stdio command: each connection to the port is a
/// session of its own, as each start of a stdio server is.
async fn over_stdio(seen: &Seen) -> ServerSpec {
    let seen = seen.clone();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            seen.1.fetch_add(1, Ordering::SeqCst);
            let hang_up = Arc::new(Notify::new());
            let server = Modern {
                seen: seen.clone(),
                hang_up: hang_up.clone(),
            };
            tokio::spawn(async move {
                if let Ok(running) = server.serve(stream.into_split()).await {
                    // Dropping the service closes the connection.
                    tokio::select! {
                        _ = running.waiting() => {}
                        () = hang_up.notified() => {}
                    }
                }
            });
        }
    });
    stdio("modern", "python3", &["-c", PIPE, &port])
}

/// A front end that accepts every question and answers every sample with
/// the number of words it was given.
#[derive(Default)]
struct FrontEnd {
    logs: Mutex<Vec<LogLine>>,
    questions: Mutex<Vec<Question>>,
    samples: Mutex<Vec<SampleRequest>>,
}

#[async_trait::async_trait]
impl CallListener for FrontEnd {
    fn log(&self, line: &LogLine) {
        self.logs.lock().push(line.clone());
    }

    async fn ask(&self, question: Question) -> Answer {
        self.questions.lock().push(question);
        Answer::accept(json!({"sure": true}).as_object().unwrap().clone())
    }

    async fn sample(&self, request: SampleRequest) -> Result<String, String> {
        let words = request.prompt.split_whitespace().count();
        self.samples.lock().push(request);
        Ok(format!("{words} words"))
    }
}

/// Lists and calls every tool of `server`, as `mcp_modern_*`.
async fn use_every_tool(registry: &Registry) {
    let weigh = registry.get("mcp_modern_weigh").unwrap().manifest();
    assert_eq!(
        weigh.output_schema.as_ref().unwrap()["required"],
        json!(["grams"])
    );
    let front_end = Arc::new(FrontEnd::default());
    let context = CallContext::new(front_end.clone());
    let weighed = registry
        .call_with(
            "mcp_modern_weigh",
            params(json!({"fruit": "apples"})),
            &context,
        )
        .await
        .unwrap();
    let logs = front_end.logs.lock().clone();
    assert_eq!(
        logs,
        [LogLine {
            level: LogLevel::Info,
            message: "weigh at Info".into()
        }]
    );
    assert_eq!(
        weighed.structured,
        Some(json!({"grams": 1200, "fruit": "apples"}))
    );
    assert_eq!(
        weighed.data,
        "1.2 kg of apples\n\nStructured content: {\"grams\":1200,\"fruit\":\"apples\"}"
    );

    let context = CallContext::new(front_end.clone());
    let confirmed = registry
        .call_with(
            "mcp_modern_confirm",
            params(json!({"question": "Delete it?"})),
            &context,
        )
        .await
        .unwrap();
    assert_eq!(confirmed.error, "");
    assert_eq!(confirmed.data, "accept: {\"sure\":true}");
    let questions = front_end.questions.lock().clone();
    assert_eq!(questions.len(), 1);
    assert_eq!(questions[0].message, "Delete it?");

    // A context serves one call.
    let context = CallContext::new(front_end.clone());
    let summed = registry
        .call_with(
            "mcp_modern_summarise",
            params(json!({"text": "one two three"})),
            &context,
        )
        .await
        .unwrap();
    assert_eq!(summed.error, "");
    assert_eq!(summed.data, "summary: 3 words");
    assert_eq!(front_end.samples.lock().len(), 1);
}

#[tokio::test]
async fn a_server_of_the_2026_protocol_alone_is_reached_by_discovery_over_http() {
    let project = Project::new();
    let seen = Seen::default();
    let url = over_http(&seen).await;
    let spec = ServerSpec {
        name: "modern".into(),
        transport: ServerTransport::Http {
            url,
            headers: Default::default(),
        },
        opens_2026: false,
    };
    let registry = registry(&project, vec![spec], STARTUP, &[]).await;
    use_every_tool(&registry).await;
    // Each question and sample took a second round of its call.
    assert_eq!(*seen.0.lock(), vec!["2026-07-28"; 5]);
}

#[tokio::test]
async fn a_server_of_the_2026_protocol_alone_is_reached_by_discovery_over_stdio() {
    let project = Project::new();
    let seen = Seen::default();
    let spec = over_stdio(&seen).await;
    let registry = registry(&project, vec![spec], STARTUP, &[]).await;
    use_every_tool(&registry).await;
    assert_eq!(*seen.0.lock(), vec!["2026-07-28"; 5]);
    // One server refused `initialize`; the next answered `server/discover`.
    assert_eq!(seen.1.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_stdio_server_of_the_2026_protocol_that_died_is_started_again_by_discovery() {
    let project = Project::new();
    let seen = Seen::default();
    let spec = over_stdio(&seen).await;
    let registry = registry(&project, vec![spec], STARTUP, &[]).await;
    let hung_up = registry
        .call("mcp_modern_hang_up", params(json!({})))
        .await
        .unwrap();
    assert!(
        hung_up.error.contains("died during the call"),
        "{hung_up:?}"
    );
    let weighed = registry
        .call("mcp_modern_weigh", params(json!({"fruit": "pears"})))
        .await
        .unwrap();
    assert_eq!(
        weighed.structured,
        Some(json!({"grams": 1200, "fruit": "pears"}))
    );
    // Started again, it was asked `server/discover` at once.
    assert_eq!(seen.1.load(Ordering::SeqCst), 3);
    assert_eq!(*seen.0.lock(), vec!["2026-07-28"; 2]);
}
