//! `/mcp` served on a loopback port: a replacement of the agent's tools (what
//! hot reload does) reaches MCP clients of both protocols.

use std::sync::Arc;
use std::time::Duration;

use pretty_assertions::assert_eq;
use riverse_agent::{Settings, build_registry};
use riverse_test_support::openai::OpenAiServer;
use riverse_test_support::venv::mcp_python;
use riverse_test_support::{Project, eventually_async, fixture};
use rmcp::service::NotificationContext;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::Notify;

use super::support::{Served, served};

/// Serves `served`'s app on a free loopback port; its `/mcp` URL.
async fn listen(served: &Served) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let app = served.app();
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

/// The tools of a project holding only `shout.py` and the `echo.py` it imports.
async fn other_tools() -> (Project, riverse_tool::Registry) {
    let project = Project::new();
    project.fixture("echo.py").fixture("shout.py");
    let settings = Settings::from_yaml(project.path(), None, "").unwrap();
    let registry = build_registry(&settings).await;
    (project, registry)
}

/// Counts `notifications/tools/list_changed`.
struct Listener {
    changed: Arc<Notify>,
}

impl ClientHandler for Listener {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changed.notify_one();
    }
}

fn names(tools: &[rmcp::model::Tool]) -> Vec<String> {
    tools.iter().map(|tool| tool.name.to_string()).collect()
}

#[tokio::test]
async fn replacing_the_tools_notifies_an_http_session_of_the_handshake_protocol() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let llm = OpenAiServer::start([]);
    let served = served(&llm, &[], "").await;
    let url = listen(&served).await;
    let changed = Arc::new(Notify::new());
    let client = Listener {
        changed: changed.clone(),
    }
    .serve(StreamableHttpClientTransport::from_uri(url))
    .await
    .unwrap();
    let before = client.peer().list_all_tools().await.unwrap();
    assert!(names(&before).contains(&"weather".to_owned()));

    let (_project, registry) = other_tools().await;
    served.state.agent.live_registry().replace(registry);
    tokio::time::timeout(Duration::from_secs(60), changed.notified())
        .await
        .expect("notifications/tools/list_changed within a minute");
    let after = client.peer().list_all_tools().await.unwrap();
    assert!(names(&after).contains(&"shout".to_owned()));
    assert!(!names(&after).contains(&"weather".to_owned()));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn replacing_the_tools_reaches_a_2026_client_on_its_listen_stream() {
    let llm = OpenAiServer::start([]);
    let served = served(&llm, &[], "").await;
    let url = listen(&served).await;
    let dir = &served.project;
    let ready = dir.path().join("listening");
    let plan = json!({"url": url, "mode": "auto", "steps": [{"listen": true, "ready": ready}, {"list": true}]});
    std::fs::write(dir.path().join("plan.json"), plan.to_string()).unwrap();
    std::fs::write(
        dir.path().join("mcp_sdk_client.py"),
        fixture("mcp_sdk_client.py"),
    )
    .unwrap();
    let client = tokio::process::Command::new(mcp_python())
        .arg(dir.path().join("mcp_sdk_client.py"))
        .arg(dir.path().join("plan.json"))
        .env("NO_PROXY", "127.0.0.1,localhost")
        .kill_on_drop(true)
        .output();
    let client = tokio::spawn(client);
    // The replacement is made once the subscription is acknowledged.
    eventually_async(Duration::from_secs(60), "the client to listen", || {
        ready.exists()
    })
    .await;
    let (_project, registry) = other_tools().await;
    served.state.agent.live_registry().replace(registry);

    let output = client.await.unwrap().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let seen: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(seen[0], json!({"event": "ToolsListChanged"}), "{stderr}");
    let listed: Vec<&str> = seen[1]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert!(listed.contains(&"shout"), "{listed:?}");
    assert!(!listed.contains(&"weather"), "{listed:?}");
}

/// Issue 49: a session ended with `DELETE` was answered `202`, which the
/// official Python SDK's client logs as "Session termination failed: 202" at
/// every disconnect; it expects `200` or `204`.
#[tokio::test]
async fn an_sdk_client_ends_its_session_without_a_warning() {
    let llm = OpenAiServer::start([]);
    let served = served(&llm, &[], "").await;
    let url = listen(&served).await;
    let dir = &served.project;
    let plan = json!({"url": url, "mode": "legacy", "steps": [{"list": true}]});
    std::fs::write(dir.path().join("plan.json"), plan.to_string()).unwrap();
    std::fs::write(
        dir.path().join("mcp_sdk_client.py"),
        fixture("mcp_sdk_client.py"),
    )
    .unwrap();
    let output = tokio::process::Command::new(mcp_python())
        .arg(dir.path().join("mcp_sdk_client.py"))
        .arg(dir.path().join("plan.json"))
        .env("NO_PROXY", "127.0.0.1,localhost")
        .kill_on_drop(true)
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let seen: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert!(seen[0]["tools"].as_array().is_some(), "{seen}");
    assert!(!stderr.contains("Session termination failed"), "{stderr}");
}
