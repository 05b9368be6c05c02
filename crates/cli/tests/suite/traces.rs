//! Traces sent to an OTLP collector (the test receiver) and JSON logs, from
//! the real binary: `riverse ask` (whose exit must send the last spans),
//! `riverse call` and `riverse mcp`.

use std::time::Duration;

use pretty_assertions::assert_eq;
use riverse_test_support::openai::{OpenAiServer, ev_status, ev_text, ev_tool_calls};
use riverse_test_support::otlp::{OtlpReceiver, Span};
use riverse_test_support::{McpProcess, Project};
use serde_json::{Value, json};

use super::ask::{riverse, text};
use super::command::riverse_in;
use super::serve::{Server, http};

const ANSWER: &str = "Sunny in both.";

/// A project with the weather tool, the LLM at `server`, and `extra`
/// settings.
fn project(server: &OpenAiServer, extra: &str) -> Project {
    let project = Project::new();
    project.fixture("weather.py").settings(&format!(
        "llm_provider: openai\nopenai: {{api_base: \"{}\", api_key: sk-secret-key, model: test-model, max_retries: 0}}\n{extra}",
        server.url()
    ));
    project
}

/// A turn that calls the weather tool twice at once, then answers.
fn two_call_turn() -> OpenAiServer {
    OpenAiServer::start([
        ev_tool_calls(&[
            ("c1", "weather", json!({"city": "Tokyo"})),
            ("c2", "weather", json!({"city": "Oslo"})),
        ]),
        ev_text(ANSWER),
    ])
}

/// `riverse ask MESSAGE` in `project`, its spans sent to `receiver`; what
/// it printed on stderr.
fn ask_traced(project: &Project, receiver: &OtlpReceiver, message: &str) -> String {
    let output = riverse(project)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url())
        .args(["ask", message])
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(text(&output.stdout), format!("{ANSWER}\n"));
    stderr
}

fn named<'a>(spans: &'a [Span], name: &str) -> Vec<&'a Span> {
    spans.iter().filter(|span| span.name == name).collect()
}

fn attribute<'a>(span: &'a Span, key: &str) -> &'a Value {
    span.attribute(key).unwrap_or(&Value::Null)
}

#[test]
fn a_turn_is_one_trace_of_its_model_calls_and_its_tool_calls() {
    let server = two_call_turn();
    let receiver = OtlpReceiver::start();
    let project = project(
        &server,
        &format!("serve: {{otlp_endpoint: \"{}\"}}", receiver.url()),
    );
    // The endpoint in the settings, not in the environment this time.
    let output = riverse(&project)
        .args(["ask", "Weather in Tokyo and Oslo?"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    // Riverse has exited: what it sent on the way out is all there is.
    let spans = receiver.spans();
    let mut names: Vec<&str> = spans.iter().map(|span| span.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "chat test-model",
            "chat test-model",
            "execute_tool weather",
            "execute_tool weather",
            "invoke_agent riverse"
        ]
    );
    let turn = named(&spans, "invoke_agent riverse")[0];
    assert_eq!(turn.parent_span_id, "", "the turn is the root");
    for span in &spans {
        assert_eq!(span.trace_id, turn.trace_id, "one trace: {span:#?}");
        if span.name != turn.name {
            assert_eq!(span.parent_span_id, turn.span_id, "{span:#?}");
        }
        assert_eq!(span.resource["service.name"], json!("riverse"));
    }
    // 10 tokens in for each request, one out for each call and each
    // character of the answer (the scripted server's count).
    let answer_tokens = ANSWER.chars().count() as i64;
    assert_eq!(
        [
            "gen_ai.operation.name",
            "gen_ai.agent.name",
            "gen_ai.usage.input_tokens",
            "gen_ai.usage.output_tokens"
        ]
        .map(|key| attribute(turn, key).clone()),
        [
            json!("invoke_agent"),
            json!("riverse"),
            json!(20),
            json!(2 + answer_tokens)
        ]
    );
    assert_eq!(turn.attribute("gen_ai.conversation.id"), None);
    let mut chats = named(&spans, "chat test-model");
    chats.sort_by_key(|span| attribute(span, "gen_ai.usage.output_tokens").as_i64());
    for (chat, output_tokens) in chats.iter().zip([2, answer_tokens]) {
        assert_eq!(chat.kind, "client");
        assert_eq!(chat.status, "unset");
        assert_eq!(
            [
                "gen_ai.operation.name",
                "gen_ai.provider.name",
                "gen_ai.request.model",
                "gen_ai.usage.input_tokens",
                "gen_ai.usage.output_tokens"
            ]
            .map(|key| attribute(chat, key).clone()),
            [
                json!("chat"),
                json!("openai"),
                json!("test-model"),
                json!(10),
                json!(output_tokens)
            ]
        );
        assert_eq!(chat.attribute("gen_ai.input.messages"), None);
        assert_eq!(chat.attribute("gen_ai.output.messages"), None);
    }
    let mut tools = named(&spans, "execute_tool weather");
    tools.sort_by_key(|span| attribute(span, "gen_ai.tool.call.id").to_string());
    for (tool, call_id) in tools.iter().zip(["c1", "c2"]) {
        assert_eq!(
            [
                "gen_ai.operation.name",
                "gen_ai.tool.name",
                "gen_ai.tool.call.id",
                "gen_ai.tool.type",
                "riverse.tool.success"
            ]
            .map(|key| attribute(tool, key).clone()),
            [
                json!("execute_tool"),
                json!("weather"),
                json!(call_id),
                json!("function"),
                json!(true)
            ]
        );
        assert_eq!(tool.attribute("gen_ai.tool.call.arguments"), None);
        assert_eq!(tool.attribute("gen_ai.tool.call.result"), None);
        assert_eq!(tool.status, "unset");
    }
    let everything = format!("{spans:?}");
    for secret in ["sk-secret-key", "Tokyo", "Oslo", ANSWER] {
        assert!(
            !everything.contains(secret),
            "{secret:?} is in the spans: {everything}"
        );
    }
}

#[test]
fn trace_content_puts_arguments_results_and_messages_in_the_spans() {
    let server = two_call_turn();
    let receiver = OtlpReceiver::start();
    let project = project(&server, "serve: {trace_content: true}");
    ask_traced(&project, &receiver, "Weather in Tokyo and Oslo?");
    let spans = receiver.spans();
    let mut tools = named(&spans, "execute_tool weather");
    tools.sort_by_key(|span| attribute(span, "gen_ai.tool.call.id").to_string());
    let content: Vec<(Value, Value)> = tools
        .iter()
        .map(|tool| {
            (
                serde_json::from_str(
                    attribute(tool, "gen_ai.tool.call.arguments")
                        .as_str()
                        .unwrap(),
                )
                .unwrap(),
                attribute(tool, "gen_ai.tool.call.result").clone(),
            )
        })
        .collect();
    assert_eq!(
        content,
        [
            (json!({"city": "Tokyo"}), json!("Tokyo: 21°C, sunny")),
            (json!({"city": "Oslo"}), json!("Oslo: 21°C, sunny"))
        ]
    );
    let messages = |span: &Span, key: &str| -> Value {
        serde_json::from_str(attribute(span, key).as_str().unwrap()).unwrap()
    };
    let mut chats = named(&spans, "chat test-model");
    chats.sort_by_key(|span| attribute(span, "gen_ai.usage.output_tokens").as_i64());
    let (first, last) = (chats[0], chats[1]);
    let asked = messages(first, "gen_ai.input.messages");
    assert_eq!(
        asked.as_array().unwrap().last().unwrap(),
        &json!({"role": "user", "parts": [{"type": "text", "content": "Weather in Tokyo and Oslo?"}]})
    );
    assert_eq!(
        messages(first, "gen_ai.output.messages"),
        json!([{"role": "assistant", "finish_reason": "tool_call", "parts": [
            {"type": "tool_call", "id": "c1", "name": "weather", "arguments": {"city": "Tokyo"}},
            {"type": "tool_call", "id": "c2", "name": "weather", "arguments": {"city": "Oslo"}},
        ]}])
    );
    let results: Vec<Value> = messages(last, "gen_ai.input.messages")
        .as_array()
        .unwrap()
        .iter()
        .filter(|message| message["role"] == "tool")
        .map(|message| message["parts"][0].clone())
        .collect();
    assert_eq!(
        results,
        [
            json!({"type": "tool_call_response", "id": "c1", "response": "Tokyo: 21°C, sunny"}),
            json!({"type": "tool_call_response", "id": "c2", "response": "Oslo: 21°C, sunny"}),
        ]
    );
    assert_eq!(
        messages(last, "gen_ai.output.messages"),
        json!([{"role": "assistant", "finish_reason": "stop", "parts": [{"type": "text", "content": ANSWER}]}])
    );
    let everything = format!("{spans:?}");
    assert!(!everything.contains("sk-secret-key"), "{everything}");
}

#[test]
fn a_tool_called_alone_is_traced_and_its_failure_is_an_error_status() {
    let receiver = OtlpReceiver::start();
    let project = Project::new();
    project.fixture("weather.py");
    let call = |args: &[&str]| {
        let mut command = riverse(&project);
        command
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url())
            .env("OTEL_SERVICE_NAME", "riverse-tools")
            .arg("call")
            .args(args);
        command.output().unwrap()
    };
    assert!(call(&["weather", "city=Oslo"]).status.success());
    assert_eq!(call(&["weather", "city="]).status.code(), Some(1));
    let spans = receiver.spans();
    assert_eq!(spans.len(), 2, "{spans:#?}");
    let (ran, failed) = (&spans[0], &spans[1]);
    assert_eq!(ran.name, "execute_tool weather");
    assert_eq!(ran.parent_span_id, "");
    assert_eq!(ran.resource["service.name"], json!("riverse-tools"));
    assert_eq!(ran.attribute("gen_ai.tool.call.id"), None);
    assert_eq!(attribute(ran, "riverse.tool.success"), &json!(true));
    assert_eq!(
        (
            failed.status,
            failed.status_message.as_str(),
            attribute(failed, "riverse.tool.success"),
            attribute(failed, "riverse.tool.failure"),
            attribute(failed, "error.type"),
        ),
        (
            "error",
            "tool error",
            &json!(false),
            &json!("tool_error"),
            &json!("tool_error")
        )
    );
    assert_ne!(ran.trace_id, failed.trace_id);
}

#[test]
fn calls_over_mcp_are_traced_while_the_server_runs() {
    let receiver = OtlpReceiver::start();
    let project = Project::new();
    project.fixture("weather.py");
    let mut command = riverse_in(project.path(), &["mcp"]);
    command
        .env(
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            format!("{}/v1/traces", receiver.url()),
        )
        .env("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Basic dGVzdA==")
        // Batches go out this often, not only when the server stops.
        .env("OTEL_BSP_SCHEDULE_DELAY", "50");
    let mut session = McpProcess::start(command);
    assert_eq!(
        session.call("weather", json!({"city": "Lima"})),
        (true, "Lima: 21°C, sunny".to_owned())
    );
    let spans = receiver.wait_for_spans(1, Duration::from_secs(30));
    assert_eq!(
        spans
            .iter()
            .map(|span| (span.name.as_str(), attribute(span, "riverse.tool.success")))
            .collect::<Vec<_>>(),
        [("execute_tool weather", &json!(true))]
    );
    assert_eq!(
        receiver.exports()[0].header("authorization"),
        Some("Basic dGVzdA==")
    );
}

/// The names of the threads of process `pid`.
fn threads(pid: u32) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .map(|name| name.trim().to_owned())
        .collect();
    names.sort();
    names
}

/// The threads of a `riverse mcp` that has answered `initialize`.
fn mcp_threads(project: &Project, endpoint: Option<&str>) -> Vec<String> {
    let mut command = riverse_in(project.path(), &["mcp"]);
    if let Some(endpoint) = endpoint {
        command.env("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint);
    }
    let server = McpProcess::start(command);
    threads(server.pid())
}

#[test]
fn without_a_collector_no_exporter_thread_runs() {
    let receiver = OtlpReceiver::start();
    let project = Project::new();
    project.fixture("weather.py");
    let exporting = |names: &[String]| {
        names
            .iter()
            .any(|name| name.starts_with("OpenTelemetry") || name.starts_with("reqwest"))
    };
    let off = mcp_threads(&project, None);
    assert!(!exporting(&off), "{off:?}");
    let on = mcp_threads(&project, Some(&receiver.url()));
    assert!(exporting(&on), "{on:?}");
}

/// A weather tool that logs as it goes.
const LOGGING_WEATHER: &str = r#"
from agent.tools import BaseTool, ToolManifest, ToolResult

class LoggingWeather(BaseTool):
    def manifest(self):
        return ToolManifest(name="weather", description="Weather of a city",
                            parameters={"city": "City name"})
    def execute(self, params):
        self.log("looking up " + params["city"])
        return ToolResult(True, params["city"] + ": 21°C, sunny")
"#;

/// The JSON lines of `stderr`, each parsed; the other lines are the tool
/// lines (`→`, `✓`).
fn json_lines(stderr: &str) -> Vec<Value> {
    stderr
        .lines()
        .filter(|line| line.starts_with('{'))
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|err| panic!("{err}: {line:?}\n{stderr}"))
        })
        .collect()
}

#[test]
fn json_logs_name_the_turn_and_the_call_a_tool_logged_in() {
    let server = two_call_turn();
    // A language Riverse has no prompts for: a warning of its own.
    let project = project(&server, "language: xx");
    project.tool("weather.py", LOGGING_WEATHER);
    let output = riverse(&project)
        .args([
            "--log-format",
            "json",
            "-v",
            "ask",
            "Weather in Tokyo and Oslo?",
        ])
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let lines = json_lines(&stderr);
    assert!(
        lines.iter().any(|line| line["target"] != json!("tool")),
        "Riverse's own lines are JSON too: {stderr}"
    );
    let logged: Vec<(&Value, &Value, Vec<&Value>)> = lines
        .iter()
        .filter(|line| line["target"] == json!("tool"))
        .map(|line| {
            let spans = line["spans"]
                .as_array()
                .map(|spans| spans.iter().map(|span| &span["name"]).collect())
                .unwrap_or_default();
            (
                &line["fields"]["message"],
                &line["fields"]["gen_ai.tool.call.id"],
                spans,
            )
        })
        .collect();
    let mut logged = logged;
    logged.sort_by_key(|(_, call_id, _)| call_id.to_string());
    assert_eq!(
        logged,
        [
            (
                &json!("looking up Tokyo"),
                &json!("c1"),
                vec![&json!("invoke_agent riverse")]
            ),
            (
                &json!("looking up Oslo"),
                &json!("c2"),
                vec![&json!("invoke_agent riverse")]
            ),
        ],
        "{stderr}"
    );
    assert!(!stderr.contains("    weather: looking up"), "{stderr}");
}

#[test]
fn the_log_format_comes_from_the_settings_and_the_flag_wins() {
    let project = Project::new();
    project
        .fixture("weather.py")
        .settings("log_format: json\nlanguage: xx\n");
    let tools = |args: &[&str]| {
        let output = riverse(&project).args(args).arg("tools").output().unwrap();
        assert!(output.status.success());
        text(&output.stderr)
    };
    // The settings' own warning, logged as they say.
    let stderr = tools(&[]);
    let warned = json_lines(&stderr).into_iter().find(|line| {
        line["fields"]["message"]
            .as_str()
            .is_some_and(|message| message.contains("language: \"xx\" is not one of en, ja, zh"))
    });
    assert_eq!(
        warned.map(|line| line["level"].clone()),
        Some(json!("WARN")),
        "{stderr}"
    );
    let text_lines = tools(&["--log-format", "text"]);
    assert!(text_lines.contains(" WARN "), "{text_lines}");
    assert!(json_lines(&text_lines).is_empty(), "{text_lines}");
}

#[test]
fn a_served_conversation_names_itself_in_its_turn_s_span() {
    let llm = OpenAiServer::start([
        ev_tool_calls(&[("c1", "weather", json!({"city": "Tokyo"}))]),
        ev_text(ANSWER),
        ev_text(ANSWER),
    ]);
    let receiver = OtlpReceiver::start();
    let project = project(
        &llm,
        &format!("serve: {{otlp_endpoint: \"{}\"}}", receiver.url()),
    );
    let server = Server::start(&project, &[]);
    let (status, created) = http(&server.url, "POST", "/v1/conversations", Some(&json!({})));
    assert_eq!(status, 200, "{created}");
    let id = serde_json::from_str::<Value>(&created).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, answered) = http(
        &server.url,
        "POST",
        &format!("/v1/conversations/{id}/messages"),
        Some(&json!({"content": "Weather in Tokyo?", "stream": false})),
    );
    assert_eq!(status, 200, "{answered}");
    let (status, completed) = http(
        &server.url,
        "POST",
        "/v1/chat/completions",
        Some(&json!({"model": "riverse", "messages": [{"role": "user", "content": "Hi"}]})),
    );
    assert_eq!(status, 200, "{completed}");
    // The last spans go out as the server stops.
    let (stopped, stderr) = server.stop(nix::sys::signal::Signal::SIGTERM);
    assert!(stopped.success(), "{stderr}");
    let spans = receiver.spans();
    let mut turns = named(&spans, "invoke_agent riverse");
    turns.sort_by_key(|turn| turn.attribute("gen_ai.conversation.id").is_none());
    assert_eq!(
        turns
            .iter()
            .map(|turn| turn.attribute("gen_ai.conversation.id"))
            .collect::<Vec<_>>(),
        [Some(&json!(id)), None],
        "{spans:#?}"
    );
    let conversation = turns[0];
    let children: Vec<&str> = spans
        .iter()
        .filter(|span| span.parent_span_id == conversation.span_id)
        .map(|span| span.name.as_str())
        .collect();
    assert_eq!(
        children,
        ["chat test-model", "execute_tool weather", "chat test-model"]
    );
}

#[test]
fn a_model_call_that_fails_is_an_error_in_its_span_and_its_turn_s() {
    let server = OpenAiServer::start([ev_status(401, "invalid api key")]);
    let receiver = OtlpReceiver::start();
    let project = project(&server, "");
    let output = riverse(&project)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url())
        .args(["ask", "Weather in Tokyo?"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let spans = receiver.spans();
    let ended: Vec<(&str, &str, &Value)> = spans
        .iter()
        .map(|span| {
            (
                span.name.as_str(),
                span.status,
                attribute(span, "error.type"),
            )
        })
        .collect();
    assert_eq!(
        ended,
        [
            ("chat test-model", "error", &json!("401")),
            ("invoke_agent riverse", "error", &json!("llm")),
        ]
    );
    assert!(
        spans[0].status_message.contains("invalid api key"),
        "{spans:#?}"
    );
    assert!(!format!("{spans:?}").contains("sk-secret-key"));
}

/// Issue 47: a hook's decision is on its call's span (the reason only with
/// content on: it may quote the arguments).
#[test]
fn a_hook_decision_is_on_the_call_span() {
    let server = OpenAiServer::start([
        ev_tool_calls(&[("c1", "weather", json!({"city": "forbidden city"}))]),
        ev_text(ANSWER),
    ]);
    let receiver = OtlpReceiver::start();
    let project = project(&server, "");
    project.file(
        "agent/hooks/policy.py",
        &riverse_test_support::fixture("hook_policy.py"),
    );
    ask_traced(&project, &receiver, "Weather in the forbidden city?");
    let spans = receiver.spans();
    let call = named(&spans, "execute_tool weather")[0];
    assert_eq!(
        attribute(call, "riverse.tool.hooks"),
        &json!(r#"[{"hook":"policy.py:Policy","decision":"denied"}]"#)
    );
    assert_eq!(attribute(call, "riverse.tool.failure"), &json!("denied"));
}
