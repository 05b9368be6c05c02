//! Tools that talk while they run, served over streamable HTTP on loopback
//! and called by the official Python SDK's client (`talking_client.py`):
//! progress, log levels, content blocks, questions and samples.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use pretty_assertions::assert_eq;
use riverse_mcp::{HttpEndpoint, HttpOptions};
use riverse_test_support::Project;
use riverse_test_support::venv::mcp_python;
use riverse_tool::{LiveRegistry, SampleRequest, Sampler};
use serde_json::{Value, json};

use super::server::python_registry;

const TIMEOUT: Duration = Duration::from_secs(120);

/// A drop-in tool of `tests/conformance/tools` (the conformance suite's
/// fixtures) or `tests/tools`.
pub(super) fn tool_source(name: &str) -> String {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    for dir in ["tests/conformance/tools", "tests/tools"] {
        let path = manifest.join(dir).join(name);
        if path.exists() {
            return std::fs::read_to_string(&path).unwrap();
        }
    }
    panic!("no tool file {name}");
}

pub(super) fn project(tools: &[&str]) -> Project {
    let project = Project::new();
    for name in tools {
        project.tool(name, &tool_source(name));
    }
    project.tool("_samples.py", &tool_source("_samples.py"));
    project
}

/// The project's tools at `/mcp` of a loopback port, served by this test's
/// runtime until it ends; the endpoint's URL.
pub(super) async fn serve(project: &Project, sampler: Option<Arc<dyn Sampler>>) -> String {
    let registry = python_registry(project, TIMEOUT).await;
    let options = HttpOptions {
        max_body_bytes: 1024 * 1024,
        max_sessions: 8,
        session_timeout: Duration::from_secs(600),
    };
    let endpoint = HttpEndpoint::new(LiveRegistry::new(registry), sampler, options);
    let app = axum::Router::new().route_service("/mcp", endpoint.service());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

/// Runs `talking_client.py` with `plan` against `url`: what it saw.
pub(super) async fn talk(project: &Project, url: &str, mut plan: Value) -> Value {
    plan["url"] = json!(url);
    let client = project.path().join("talking_client.py");
    let client_source =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/talking_client.py");
    std::fs::copy(client_source, &client).unwrap();
    let plan_file = project.path().join("plan.json");
    std::fs::write(&plan_file, plan.to_string()).unwrap();
    let output = tokio::process::Command::new(mcp_python())
        .arg(&client)
        .arg(&plan_file)
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the client failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|err| panic!("{err}: {stdout}"))
}

/// The `data` of each log line the client heard.
fn log_data(seen: &Value) -> Vec<String> {
    seen["logs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|line| line["data"].as_str().unwrap().to_owned())
        .collect()
}

/// Stands for an LLM of the server's own: repeats the prompt.
struct Echo;

#[async_trait::async_trait]
impl Sampler for Echo {
    async fn sample(&self, request: SampleRequest) -> Result<String, String> {
        Ok(format!("echo: {}", request.prompt))
    }
}

#[tokio::test]
async fn a_client_that_gave_a_progress_token_hears_each_step() {
    let project = project(&["test_tool_with_progress.py"]);
    let url = serve(&project, None).await;
    let seen = talk(
        &project,
        &url,
        json!({"calls": [{"tool": "test_tool_with_progress", "progress": true}]}),
    )
    .await;
    let call = &seen["calls"][0];
    assert_eq!(call["text"], "Progress test completed");
    assert_eq!(
        call["progress"],
        json!([
            {"progress": 0.0, "total": 100.0, "message": null},
            {"progress": 50.0, "total": 100.0, "message": null},
            {"progress": 100.0, "total": 100.0, "message": null}
        ])
    );
}

#[tokio::test]
async fn log_lines_below_the_level_the_client_set_are_not_sent() {
    let project = project(&["says_every_level.py"]);
    let url = serve(&project, None).await;
    // The last line, `emergency`, passes every level: once it is in, all
    // the lines that were sent are.
    let call = json!({"tool": "says_every_level", "until_log": "emergency"});
    let warning = talk(&project, &url, json!({"level": "warning", "calls": [call]})).await;
    assert_eq!(
        log_data(&warning),
        ["warning", "error", "critical", "alert", "emergency"]
    );
    let line = &warning["logs"][0];
    assert_eq!(
        (&line["level"], &line["logger"]),
        (&json!("warning"), &json!("says_every_level"))
    );
    let debug = talk(&project, &url, json!({"level": "debug", "calls": [call]})).await;
    assert_eq!(log_data(&debug).len(), 8, "{debug}");
    let unset = talk(&project, &url, json!({"calls": [call]})).await;
    assert_eq!(
        log_data(&unset),
        [
            "info",
            "notice",
            "warning",
            "error",
            "critical",
            "alert",
            "emergency"
        ],
        "a client that sets no level hears info and above"
    );
}

#[tokio::test]
async fn images_and_resources_follow_the_text() {
    let project = project(&["test_multiple_content_types.py", "test_image_content.py"]);
    let url = serve(&project, None).await;
    let seen = talk(
        &project,
        &url,
        json!({"calls": [{"tool": "test_multiple_content_types"}, {"tool": "test_image_content"}]}),
    )
    .await;
    let red_pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
    assert_eq!(
        seen["calls"][0],
        json!({
            "isError": false,
            "text": "Multiple content types test:",
            "content": [
                {"type": "image", "data": red_pixel, "mimeType": "image/png"},
                {"type": "resource", "resource": {
                    "uri": "test://mixed-content-resource",
                    "mimeType": "application/json",
                    "text": "{\"test\":\"data\",\"value\":123}"}}
            ],
            "progress": []
        })
    );
    // A tool whose `data` is empty sends no text block.
    assert_eq!(seen["calls"][1]["text"], "");
    assert_eq!(seen["calls"][1]["content"].as_array().unwrap().len(), 1);
}

fn elicitation_call() -> Value {
    json!({"tool": "test_elicitation", "arguments": {"message": "Who are you?"}})
}

#[tokio::test]
async fn a_question_is_answered_by_a_client_that_offers_elicitation() {
    let project = project(&["test_elicitation.py"]);
    let url = serve(&project, None).await;
    let accept =
        json!({"action": "accept", "content": {"username": "ada", "email": "ada@example.com"}});
    let accepted = talk(
        &project,
        &url,
        json!({"elicitation": accept, "calls": [elicitation_call()]}),
    )
    .await;
    assert_eq!(
        accepted["calls"][0]["text"],
        r#"User response: action=accept, content={"username": "ada", "email": "ada@example.com"}"#
    );
    let asked = &accepted["asked"][0];
    assert_eq!(asked["message"], "Who are you?");
    assert_eq!(
        asked["requestedSchema"],
        json!({
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"}
            },
            "required": ["username", "email"]
        })
    );
    let declined = talk(
        &project,
        &url,
        json!({"elicitation": {"action": "decline"}, "calls": [elicitation_call()]}),
    )
    .await;
    assert_eq!(
        declined["calls"][0]["text"],
        "User response: action=decline, content={}"
    );
}

#[tokio::test]
async fn a_client_without_elicitation_is_not_asked_and_the_tool_hears_cancel() {
    let project = project(&["test_elicitation.py"]);
    let url = serve(&project, None).await;
    let seen = talk(&project, &url, json!({"calls": [elicitation_call()]})).await;
    assert_eq!(
        seen["calls"][0]["text"],
        "User response: action=cancel, content={}"
    );
    assert_eq!(seen["asked"], json!([]));
}

#[tokio::test]
async fn a_question_in_flight_is_withdrawn_when_its_call_is_cancelled() {
    let project = project(&["test_elicitation.py", "test_simple_text.py"]);
    let url = serve(&project, None).await;
    let mut cancelled = elicitation_call();
    cancelled["cancel_asked"] = json!(true);
    let seen = talk(
        &project,
        &url,
        json!({"elicitation": "hang", "calls": [cancelled, {"tool": "test_simple_text"}]}),
    )
    .await;
    assert_eq!(seen["withdrawn"], 1, "{seen}");
    assert_eq!(
        seen["calls"][1]["text"],
        "This is a simple text response for testing."
    );
}

fn sampling_call() -> Value {
    json!({"tool": "test_sampling", "arguments": {"prompt": "Capital of France?"}})
}

#[tokio::test]
async fn a_sample_goes_to_the_clients_llm_when_it_offers_sampling() {
    let project = project(&["test_sampling.py"]);
    // The server's own LLM is there too: the client's comes first.
    let url = serve(&project, Some(Arc::new(Echo))).await;
    let seen = talk(
        &project,
        &url,
        json!({"sampling": "Paris.", "calls": [sampling_call()]}),
    )
    .await;
    assert_eq!(seen["calls"][0]["text"], "LLM response: Paris.");
    let sampled = &seen["sampled"][0];
    assert_eq!(
        sampled["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "Capital of France?"}}])
    );
    assert_eq!(sampled["maxTokens"], 100);
}

#[tokio::test]
async fn a_sample_falls_back_to_the_servers_own_llm() {
    let project = project(&["test_sampling.py"]);
    let url = serve(&project, Some(Arc::new(Echo))).await;
    let seen = talk(&project, &url, json!({"calls": [sampling_call()]})).await;
    assert_eq!(
        seen["calls"][0]["text"],
        "LLM response: echo: Capital of France?"
    );
}

#[tokio::test]
async fn a_sample_with_no_llm_at_all_fails_with_the_reason() {
    let project = project(&["test_sampling.py"]);
    let url = serve(&project, None).await;
    let seen = talk(&project, &url, json!({"calls": [sampling_call()]})).await;
    assert_eq!(
        (&seen["calls"][0]["isError"], &seen["calls"][0]["text"]),
        (
            &json!(true),
            &json!(
                "sampling failed: no LLM to sample from: the MCP client offers no sampling, \
                 and this server has no LLM of its own"
            )
        )
    );
}

#[tokio::test]
async fn a_tool_that_logs_100_000_lines_finishes_and_the_client_hears_the_bound() {
    let project = project(&["floods_its_log.py"]);
    let url = serve(&project, None).await;
    let counted = "99000 more log lines were not shown (a call shows at most 1000)";
    let seen = talk(
        &project,
        &url,
        json!({"calls": [{"tool": "floods_its_log", "until_log": "99000 more"}]}),
    )
    .await;
    assert_eq!(seen["calls"][0]["text"], "flooded");
    let lines = log_data(&seen);
    assert!(
        lines.len() <= riverse_tool::MAX_LOG_LINES + 1,
        "{} lines",
        lines.len()
    );
    assert_eq!(lines.last().map(String::as_str), Some(counted));
}

#[tokio::test]
async fn a_question_mcp_cannot_ask_is_a_cancel_and_the_client_hears_why() {
    let project = project(&["asks_for_an_address.py"]);
    let url = serve(&project, None).await;
    let seen = talk(
        &project,
        &url,
        json!({
            "elicitation": {"action": "accept", "content": {}},
            "calls": [{"tool": "asks_for_an_address", "until_log": "a question was not asked"}]
        }),
    )
    .await;
    assert_eq!(seen["calls"][0]["text"], "cancel");
    assert_eq!(seen["asked"], json!([]));
    assert_eq!(
        log_data(&seen),
        [
            r#"a question was not asked: its schema is not one MCP elicitation can ask: field "address" is not a string, number, integer, boolean or enum: {"type":"object","properties":{"city":{"type":"string"}}}"#
        ]
    );
}
