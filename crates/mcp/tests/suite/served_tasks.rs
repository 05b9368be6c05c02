//! `/mcp` to a client of the sessionless 2026-07-28 protocol: a tool's
//! question as an `input_required` result the client answers by calling
//! again, and a long call as a task of the tasks extension (polled with
//! `tasks/get`, answered with `tasks/update`, stopped with `tasks/cancel`).
//! The client is this file's: JSON-RPC over HTTP, as the protocol's text
//! writes it (the headers, `_meta` on every request).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use nix::sys::signal::kill;
use nix::unistd::Pid;
use pretty_assertions::assert_eq;
use riverse_test_support::{Project, eventually_async};
use serde_json::{Value, json};

use super::served::{project, serve, talk};

const TASKS: &str = "io.modelcontextprotocol/tasks";

/// A tool that writes its process id to `pidfile`, then works for good.
const STUCK: &str = r#"
import os, time
from agent.tools import BaseTool, ToolManifest, ToolResult

class Stuck(BaseTool):
    def manifest(self):
        return ToolManifest(name="stuck", description="Never ends", parameters={"pidfile": "Where to write the pid"})

    def execute(self, params):
        with open(params["pidfile"], "w") as file:
            file.write(str(os.getpid()))
        while True:
            time.sleep(1)
"#;

/// A client of the 2026-07-28 protocol, with the capabilities it declares
/// on each request.
struct Client {
    url: String,
    http: reqwest::Client,
    capabilities: Value,
    next: AtomicU64,
}

impl Client {
    fn new(url: &str, capabilities: Value) -> Self {
        // reqwest is built without a TLS provider of its own; plain HTTP
        // needs none, but the client is built with one.
        let _ = rustls::crypto::ring::default_provider().install_default();
        Client {
            url: url.to_owned(),
            http: reqwest::Client::new(),
            capabilities,
            next: AtomicU64::new(1),
        }
    }

    /// `method` with `params`: the reply's `result`, or its `error`.
    async fn request(&self, method: &str, mut params: Value) -> Result<Value, Value> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "served-tasks", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": self.capabilities,
        });
        let name = params
            .get("name")
            .or_else(|| params.get("taskId"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let mut request = self
            .http
            .post(&self.url)
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", method)
            .json(&body);
        if let Some(name) = name {
            request = request.header("Mcp-Name", name);
        }
        let text = request.send().await.unwrap().text().await.unwrap();
        let reply = reply_to(&text, id);
        match reply.get("error") {
            Some(error) => Err(error.clone()),
            None => Ok(reply["result"].clone()),
        }
    }

    async fn call(&self, params: Value) -> Value {
        self.request("tools/call", params).await.unwrap()
    }

    /// The task `id` once it reaches `status` or ends.
    async fn task_at(&self, id: &str, status: &str) -> Value {
        let mut last = Value::Null;
        for _ in 0..600 {
            last = self
                .request("tasks/get", json!({"taskId": id}))
                .await
                .unwrap();
            let now = last["status"].as_str().unwrap_or_default();
            if now == status || ["completed", "failed", "cancelled"].contains(&now) {
                return last;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("task {id} never reached {status}: {last}");
    }
}

/// The JSON-RPC reply with `id` in a body of JSON or of server-sent events.
fn reply_to(text: &str, id: u64) -> Value {
    if let Ok(reply) = serde_json::from_str::<Value>(text) {
        return reply;
    }
    text.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .find(|message| message["id"] == json!(id))
        .unwrap_or_else(|| panic!("no reply to request {id} in {text:?}"))
}

fn text_of(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn a_question_is_an_input_required_result_answered_by_calling_again() {
    let project = project(&["test_input_required_result_elicitation.py"]);
    let url = serve(&project, None).await;
    let client = Client::new(&url, json!({"elicitation": {}}));
    let name = "test_input_required_result_elicitation";

    let asked = client.call(json!({"name": name, "arguments": {}})).await;
    assert_eq!(asked["resultType"], "input_required");
    let request = &asked["inputRequests"]["user_name"];
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["message"], "What is your name?");
    let state = asked["requestState"].as_str().unwrap();

    let answer = json!({"user_name": {"action": "accept", "content": {"name": "Ada"}}});
    let done = client
        .call(
            json!({"name": name, "arguments": {}, "inputResponses": answer, "requestState": state}),
        )
        .await;
    assert_eq!(done["resultType"], "complete");
    assert_eq!(text_of(&done), "Hello, Ada!");

    // The state stood for that call, which has ended; one made up is
    // refused as well.
    for state in [state, "riverse-made-up"] {
        let again =
            json!({"name": name, "arguments": {}, "inputResponses": answer, "requestState": state});
        let refused = client.request("tools/call", again).await.unwrap_err();
        assert_eq!(refused["code"], -32602, "{refused}");
    }
}

#[tokio::test]
async fn a_client_without_elicitation_is_not_asked_and_the_tool_hears_cancel() {
    let project = project(&["test_input_required_result_elicitation.py"]);
    let url = serve(&project, None).await;
    let client = Client::new(&url, json!({}));
    let done = client
        .call(json!({"name": "test_input_required_result_elicitation", "arguments": {}}))
        .await;
    assert_eq!(done["resultType"], "complete");
    assert_eq!(text_of(&done), "Hello, nobody!");
}

#[tokio::test]
async fn a_long_call_becomes_a_task_polled_to_its_result() {
    let project = project(&["slow_compute.py", "greet.py"]);
    let url = serve(&project, None).await;
    let client = Client::new(&url, json!({"extensions": {TASKS: {}}}));

    let quick = client
        .call(json!({"name": "greet", "arguments": {"name": "Ada"}}))
        .await;
    assert_eq!(quick["resultType"], "complete");
    assert_eq!(text_of(&quick), "Hello, Ada!");

    let arguments = json!({"seconds": 2, "label": "report"});
    let task = client
        .call(json!({"name": "slow_compute", "arguments": arguments}))
        .await;
    assert_eq!(task["resultType"], "task", "{task}");
    assert_eq!(task["status"], "working");
    let id = task["taskId"].as_str().unwrap();
    let ended = client.task_at(id, "completed").await;
    assert_eq!(ended["status"], "completed", "{ended}");
    assert_eq!(text_of(&ended["result"]), "computed report");

    // Without the extension, the same call is answered in its request.
    let plain = Client::new(&url, json!({}));
    let arguments = json!({"seconds": 1, "label": "plain"});
    let done = plain
        .call(json!({"name": "slow_compute", "arguments": arguments}))
        .await;
    assert_eq!(done["resultType"], "complete");
    assert_eq!(text_of(&done), "computed plain");
    let refused = plain
        .request("tasks/get", json!({"taskId": id}))
        .await
        .unwrap_err();
    assert_eq!(refused["code"], -32021, "{refused}");
}

#[tokio::test]
async fn a_task_asks_its_question_and_goes_on_with_the_answer() {
    let project = project(&["confirm_delete.py"]);
    let url = serve(&project, None).await;
    let capabilities = json!({"elicitation": {}, "extensions": {TASKS: {}}});
    let client = Client::new(&url, capabilities);
    let arguments = json!({"filename": "old.txt"});
    let task = client
        .call(json!({"name": "confirm_delete", "arguments": arguments}))
        .await;
    let id = task["taskId"].as_str().unwrap();

    let waiting = client.task_at(id, "input_required").await;
    assert_eq!(waiting["status"], "input_required", "{waiting}");
    let requests = waiting["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1);
    let (key, request) = requests.iter().next().unwrap();
    assert_eq!(request["params"]["message"], "Delete old.txt?");

    let answer = json!({key.as_str(): {"action": "accept", "content": {"confirm": true}}});
    let ack = client
        .request(
            "tasks/update",
            json!({"taskId": id, "inputResponses": answer}),
        )
        .await
        .unwrap();
    assert_eq!(ack, json!({"resultType": "complete"}));
    let ended = client.task_at(id, "completed").await;
    assert_eq!(text_of(&ended["result"]), "deleted old.txt");
}

#[tokio::test]
async fn a_cancelled_task_stops_its_worker() {
    let project = Project::new();
    project.tool("stuck.py", STUCK);
    let url = serve(&project, None).await;
    let client = Client::new(&url, json!({"extensions": {TASKS: {}}}));
    let pidfile = project.path().join("pid");
    let task = client
        .call(json!({"name": "stuck", "arguments": {"pidfile": pidfile}}))
        .await;
    assert_eq!(task["resultType"], "task", "{task}");
    let id = task["taskId"].as_str().unwrap();
    let pid = eventually_async(Duration::from_secs(60), "the stuck tool to run", || {
        std::fs::read_to_string(&pidfile)
            .ok()
            .and_then(|text| text.parse::<i32>().ok())
    })
    .await;

    let ack = client
        .request("tasks/cancel", json!({"taskId": id}))
        .await
        .unwrap();
    assert_eq!(ack, json!({"resultType": "complete"}));
    let ended = client.task_at(id, "cancelled").await;
    assert_eq!(ended["status"], "cancelled", "{ended}");
    eventually_async(
        Duration::from_secs(20),
        "the cancelled tool's interpreter to end",
        || kill(Pid::from_raw(pid), None).is_err(),
    )
    .await;
}

/// The official Python SDK's client, speaking 2026-07-28 (its `auto` mode
/// finds the protocol by `server/discover`), answers a question through the
/// `input_required` round with its elicitation callback.
#[tokio::test]
async fn the_python_sdk_answers_a_question_through_input_required() {
    let project = project(&["test_elicitation.py"]);
    let url = serve(&project, None).await;
    let accept =
        json!({"action": "accept", "content": {"username": "ada", "email": "ada@example.com"}});
    let call = json!({"tool": "test_elicitation", "arguments": {"message": "Who are you?"}});
    let seen = talk(
        &project,
        &url,
        json!({"mode": "auto", "elicitation": accept, "calls": [call]}),
    )
    .await;
    assert_eq!(seen["protocol"], "2026-07-28");
    assert_eq!(seen["asked"][0]["message"], "Who are you?");
    assert_eq!(
        seen["calls"][0]["text"],
        r#"User response: action=accept, content={"username": "ada", "email": "ada@example.com"}"#
    );
}

#[tokio::test]
async fn twenty_tasks_at_once_each_end_with_their_own_result() {
    let project = project(&["slow_compute.py"]);
    let url = serve(&project, None).await;
    let client = Client::new(&url, json!({"extensions": {TASKS: {}}}));
    let calls = (0..20).map(|n| {
        let arguments = json!({"seconds": 1, "label": format!("run {n}")});
        client.call(json!({"name": "slow_compute", "arguments": arguments}))
    });
    let tasks = futures_util::future::join_all(calls).await;
    let mut ids = Vec::new();
    for task in &tasks {
        assert_eq!(task["resultType"], "task", "{task}");
        ids.push(task["taskId"].as_str().unwrap().to_owned());
    }
    for (n, id) in ids.iter().enumerate() {
        let ended = client.task_at(id, "completed").await;
        assert_eq!(ended["status"], "completed", "{ended}");
        assert_eq!(text_of(&ended["result"]), format!("computed run {n}"));
    }
}
