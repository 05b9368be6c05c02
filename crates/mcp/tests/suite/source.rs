//! Servers written with the official Python SDK (`MCPServer`) as a tool source.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use pretty_assertions::assert_eq;
use riverse_mcp::{McpOptions, ServerSpec, ServerTransport, mcp_tools};
use riverse_test_support::venv::mcp_python;
use riverse_test_support::{Project, eventually_async, fixture};
use riverse_tool::{
    FailureKind, ParamType, Params, Registry, RegistryOptions, Status, ToolPolicy, ToolResult,
    ToolSource,
};
use serde_json::{Value, json};

/// Deadline for SDK servers to start: importing the SDK alone takes a while on
/// a busy machine. The tests never wait for it unless something is wrong.
const STARTUP: Duration = Duration::from_secs(120);

fn project() -> Project {
    let project = Project::new();
    project.file("mcp_sdk_server.py", &fixture("mcp_sdk_server.py"));
    project
}

pub(super) fn stdio(name: &str, command: &str, args: &[&str]) -> ServerSpec {
    ServerSpec {
        name: name.into(),
        transport: ServerTransport::Stdio {
            command: command.into(),
            args: args.iter().map(|arg| arg.to_string()).collect(),
            env: BTreeMap::new(),
        },
        opens_2026: false,
    }
}

/// The SDK server fixture on stdio, started as `mode`.
fn sdk_server(name: &str, mode: &str) -> ServerSpec {
    let python = mcp_python().display().to_string();
    stdio(name, &python, &["mcp_sdk_server.py", mode])
}

pub(super) async fn registry(
    project: &Project,
    servers: Vec<ServerSpec>,
    startup: Duration,
    timeouts: &[(&str, u64)],
) -> Registry {
    let found = mcp_tools(McpOptions {
        servers,
        startup_timeout: startup,
        project_dir: project.path().to_owned(),
        // Small, so that a reply of a megabyte is over what the host reads.
        limits: riverse_tool::CallLimits {
            max_output_bytes: 1000,
            max_content_bytes: 1000,
        },
        withheld_env: Vec::new(),
    })
    .await;
    let mut options = RegistryOptions::default();
    for (name, secs) in timeouts {
        options.policies.insert(
            name.to_string(),
            ToolPolicy {
                disabled: None,
                timeout: Some(Duration::from_secs(*secs)),
                ..ToolPolicy::default()
            },
        );
    }
    Registry::new(found, options)
}

/// What an SDK tool that returns a `str` answers: the text, and beside it
/// the structured content the SDK makes of a plain value, `{"result": text}`.
pub(super) fn sdk_text(text: &str) -> ToolResult {
    let mut result = ToolResult::ok(text);
    result.structured = Some(json!({ "result": text }));
    result
}

pub(super) fn params(value: Value) -> Params {
    value.as_object().unwrap().clone()
}

pub(super) fn failures(registry: &Registry) -> Vec<(ToolSource, String)> {
    registry
        .entries()
        .iter()
        .filter(|entry| entry.status() == Status::Error)
        .map(|entry| {
            (
                entry.source().clone(),
                entry.error().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

pub(super) fn mcp_source(server: &str) -> ToolSource {
    ToolSource::Mcp {
        server: server.into(),
    }
}

#[tokio::test]
async fn an_sdk_servers_tools_take_typed_arguments() {
    let project = project();
    let registry = registry(&project, vec![sdk_server("demo", "stdio")], STARTUP, &[]).await;
    assert_eq!(failures(&registry), vec![]);
    let names: Vec<&str> = registry
        .available_manifests()
        .map(|m| m.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "mcp_demo_describe",
            "mcp_demo_total",
            "mcp_demo_fail",
            "mcp_demo_pid",
            "mcp_demo_huge",
            "mcp_demo_die",
            "mcp_demo_wait"
        ]
    );

    let describe = registry.get("mcp_demo_describe").unwrap();
    assert_eq!(describe.source(), &mcp_source("demo"));
    let manifest = describe.manifest();
    assert_eq!(
        manifest.description,
        "Say what arrived, with Python's types."
    );
    assert_eq!(
        json!(manifest.parameters),
        json!({"count": "Count (required)", "ratio": "Ratio (required)", "loud": "Loud (required)", "word": "Word (default: hi)"})
    );
    assert_eq!(
        manifest
            .parameter_types
            .iter()
            .map(|(k, v)| (k.as_str(), v.param_type()))
            .collect::<Vec<_>>(),
        [
            ("count", ParamType::Int),
            ("ratio", ParamType::Float),
            ("loud", ParamType::Bool)
        ]
    );
    assert_eq!(
        json!(manifest.annotations),
        json!({"title": "Describe", "readOnlyHint": true, "openWorldHint": false}),
        "the server's annotations are kept"
    );

    // Text from a command line or an LLM arrives as the types the schema declares.
    let result = registry
        .call(
            "mcp_demo_describe",
            params(json!({"count": "3", "ratio": "0.25", "loud": "yes"})),
        )
        .await
        .unwrap();
    assert_eq!(result, sdk_text("int:3 float:0.25 bool:True hi"));

    // An array parameter written as text reaches the server as an array.
    let result = registry
        .call("mcp_demo_total", params(json!({"numbers": "[1, 2, 39]"})))
        .await
        .unwrap();
    assert_eq!(result, sdk_text("42"));
}

#[tokio::test]
async fn an_error_result_becomes_a_failed_tool_result() {
    let project = project();
    let registry = registry(&project, vec![sdk_server("demo", "stdio")], STARTUP, &[]).await;
    let result = registry
        .call("mcp_demo_fail", params(json!({"reason": "no reason"})))
        .await
        .unwrap();
    // The text is the SDK's own wording of the tool's error.
    assert_eq!(
        result,
        ToolResult::failed(
            FailureKind::ToolError,
            "Error executing tool fail: refused: no reason"
        )
    );
    // The server is still there for the next call.
    let result = registry
        .call(
            "mcp_demo_describe",
            params(json!({"count": 1, "ratio": 1, "loud": false, "word": "ok"})),
        )
        .await
        .unwrap();
    assert_eq!(result, sdk_text("int:1 float:1.0 bool:False ok"));
}

#[tokio::test]
async fn servers_that_cannot_start_are_reported_next_to_one_that_works() {
    let project = project();
    let servers = vec![
        stdio("ghost", "riverse-no-such-server", &[]),
        sdk_server("broken", "broken"),
        sdk_server("demo", "stdio"),
    ];
    let registry = registry(&project, servers, STARTUP, &[]).await;
    let failures = failures(&registry);
    assert_eq!(
        failures[0],
        (
            mcp_source("ghost"),
            "mcp server \"ghost\": can't start riverse-no-such-server: No such file or directory (os error 2); \
             check its command in mcp.servers"
                .to_owned()
        )
    );
    assert_eq!(failures[1].0, mcp_source("broken"));
    assert_eq!(
        failures[1].1,
        "mcp server \"broken\" failed to initialize: the server exited with status 2; \
         its stderr ended with: sdk-demo: can't read its configuration"
    );
    assert_eq!(failures.len(), 2);
    let result = registry.call("mcp_demo_pid", Params::new()).await.unwrap();
    assert!(result.success, "{result:?}");
}

#[tokio::test]
async fn a_server_that_never_answers_is_given_up_at_the_startup_deadline() {
    let project = project();
    // Reads nothing and answers nothing, like a server stuck before its handshake.
    let silent = stdio("silent", "sh", &["-c", "exec sleep 600"]);
    let registry = registry(&project, vec![silent], Duration::from_secs(1), &[]).await;
    assert_eq!(
        failures(&registry),
        vec![(
            mcp_source("silent"),
            "mcp server \"silent\" did not start within 1s".to_owned()
        )]
    );
}

#[tokio::test]
async fn a_dead_stdio_server_is_restarted_on_the_next_call() {
    let project = project();
    let registry = registry(&project, vec![sdk_server("demo", "stdio")], STARTUP, &[]).await;
    let first = registry.call("mcp_demo_pid", Params::new()).await.unwrap();
    assert!(first.success, "{first:?}");

    let died = registry.call("mcp_demo_die", Params::new()).await.unwrap();
    assert_eq!(
        died,
        ToolResult::failed(
            FailureKind::Crashed,
            "tool \"mcp_demo_die\": mcp server \"demo\" died during the call (the server exited with status 3; \
             its stderr ended with: sdk-demo starting | dying on request); it will be restarted on the next call"
        )
    );

    let second = registry.call("mcp_demo_pid", Params::new()).await.unwrap();
    assert!(second.success, "{second:?}");
    assert_ne!(
        first.data, second.data,
        "the same server process answered twice"
    );
}

/// Issue 13, Severe 3: a reply longer than the host reads fails its call at
/// once (not at the deadline), and the server keeps serving.
#[tokio::test]
async fn a_reply_over_the_limit_fails_its_call_at_once() {
    let project = project();
    let timeouts = [("mcp_demo_huge", 600)];
    let registry = registry(
        &project,
        vec![sdk_server("demo", "stdio")],
        STARTUP,
        &timeouts,
    )
    .await;
    let mut params = Params::new();
    params.insert("size".into(), serde_json::json!(1_000_000));
    let huge = registry.call("mcp_demo_huge", params).await.unwrap();
    assert!(!huge.success, "{huge:?}");
    assert!(
        huge.error.starts_with(
            "tool \"mcp_demo_huge\": mcp server \"demo\" refused the call: the server's reply of "
        ),
        "{huge:?}"
    );
    assert!(
        huge.error
            .ends_with("bytes is over the limit Riverse reads"),
        "{huge:?}"
    );
    let pid = registry.call("mcp_demo_pid", Params::new()).await.unwrap();
    assert!(pid.success, "{pid:?}");
}

#[tokio::test]
async fn a_call_past_its_deadline_is_cancelled_on_the_server() {
    let project = project();
    let registry = registry(
        &project,
        vec![sdk_server("demo", "stdio")],
        STARTUP,
        &[("mcp_demo_wait", 2)],
    )
    .await;
    let marker = project.path().join("cancelled.txt");
    let result = registry
        .call(
            "mcp_demo_wait",
            params(json!({"marker": marker.display().to_string()})),
        )
        .await
        .unwrap();
    assert_eq!(
        result,
        ToolResult::failed(
            FailureKind::Timeout,
            "tool \"mcp_demo_wait\" timed out after 2s; mcp server \"demo\" was sent notifications/cancelled"
        )
    );
    // The server cancels the tool when notifications/cancelled arrives; give a
    // busy machine time to get there.
    eventually_async(
        Duration::from_secs(60),
        "the server to cancel the tool",
        || marker.exists(),
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(&marker).ok().as_deref(),
        Some("cancelled")
    );
    // And it still answers.
    let result = registry.call("mcp_demo_pid", Params::new()).await.unwrap();
    assert!(result.success, "{result:?}");
}

/// The SDK server on streamable HTTP, killed on drop.
struct HttpServer {
    child: Child,
    url: String,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn http_server(project: &Project, token: &str) -> HttpServer {
    let mut child = Command::new(mcp_python())
        .args(["mcp_sdk_server.py", "http", token])
        .current_dir(project.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port: u16 = line
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("no port from the server: {line:?}"));
    HttpServer {
        child,
        url: format!("http://127.0.0.1:{port}/mcp"),
    }
}

#[tokio::test]
async fn a_streamable_http_server_is_reached_with_its_headers() {
    let project = project();
    let server = http_server(&project, "s3cret");
    let with_token = ServerSpec {
        name: "remote".into(),
        transport: ServerTransport::Http {
            url: server.url.clone(),
            headers: BTreeMap::from([("Authorization".to_owned(), "Bearer s3cret".to_owned())]),
        },
        opens_2026: false,
    };
    let without_token = ServerSpec {
        name: "anonymous".into(),
        transport: ServerTransport::Http {
            url: server.url.clone(),
            headers: BTreeMap::new(),
        },
        opens_2026: false,
    };
    let registry = registry(&project, vec![without_token, with_token], STARTUP, &[]).await;
    let failures = failures(&registry);
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert_eq!(failures[0].0, mcp_source("anonymous"));
    assert!(
        failures[0].1.starts_with(&format!(
            "mcp server \"anonymous\" failed to initialize: {}: ",
            server.url
        )),
        "{}",
        failures[0].1
    );
    let result = registry
        .call(
            "mcp_remote_describe",
            params(json!({"count": 7, "ratio": 0.5, "loud": true, "word": "über"})),
        )
        .await
        .unwrap();
    assert_eq!(result, sdk_text("int:7 float:0.5 bool:True über"));
}
