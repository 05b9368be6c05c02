//! Regression tests for issue 41, finding 6: an integer too long for Python to
//! read fails its call with a clear error, and the worker lives on.

use std::sync::Arc;

use pretty_assertions::assert_eq;
use riverse_tool::{Answer, CallContext, CallListener, FailureKind, Question};
use serde_json::{Value, json};

use super::support::{call, options, project, registry, standalone};

/// Half a million digits, as in the review's reproduction.
fn huge_integer() -> String {
    "1".repeat(500_000)
}

#[tokio::test]
async fn an_integer_too_long_for_python_is_refused_by_parameter_and_the_worker_serves_on() {
    let project = project(&["worker_pid.py"]);
    let registry = registry(options(&project)).await;
    let before = call(&registry, "worker_pid", json!({})).await;
    let huge: Value = serde_json::from_str(&huge_integer()).unwrap();
    let refused = call(&registry, "worker_pid", json!({"n": [1, huge]})).await;
    assert_eq!(refused.failure, Some(FailureKind::BadParameters));
    assert_eq!(
        refused.error,
        "tool \"worker_pid\": parameter \"n\": an integer of 500000 digits, more than the 4300 Python reads"
    );
    let after = call(&registry, "worker_pid", json!({})).await;
    assert!(before.success && after.success, "{before:?} {after:?}");
    assert_eq!(before.data, after.data, "the worker was replaced");
}

/// What reaches a worker all the same (a host of its own, a lower
/// `PYTHONINTMAXSTRDIGITS`) is answered for its id: the worker stays.
#[test]
fn a_request_the_worker_cannot_read_is_answered_with_an_error_for_its_id() {
    let project = project(&["worker_pid.py"]);
    let mut worker = standalone(&project);
    worker.initialize(json!({}));
    let pid = |reply: &Value| {
        reply["result"]["content"][0]["text"]
            .as_str()
            .map(str::to_owned)
    };
    let call = json!({"name": "worker_pid", "arguments": {}});
    assert_eq!(
        pid(&worker.request("tools/call", call.clone())),
        Some(worker.pid().to_string())
    );

    let unreadable = format!(
        r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"worker_pid","arguments":{{"id":5,"n":{}}}}},"id":3}}"#,
        huge_integer()
    );
    worker.send_line(&unreadable);
    let refused = worker.next_with_id();
    assert_eq!(refused["id"], json!(3), "{refused}");
    assert_eq!(refused["error"]["code"], json!(-32602));
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "its arguments can't be read: ValueError: Exceeds the limit (4300 digits) for integer string conversion"
        ),
        "{message}"
    );
    assert_eq!(
        pid(&worker.request("tools/call", call)),
        Some(worker.pid().to_string())
    );
    worker.close();
}

const ASKER: &str = r#"
import os

from agent.tools import BaseTool, ToolManifest, ToolResult


class Asker(BaseTool):
    def manifest(self):
        return ToolManifest(name="asker", description="asks for a number", parameters={})

    def execute(self, params):
        answer = self.ask("How many?", {"n": "a number"})
        return ToolResult(True, f"{answer.action} {os.getpid()}")
"#;

/// Answers every question with an integer too long for Python to read.
struct HugeAnswer;

#[async_trait::async_trait]
impl CallListener for HugeAnswer {
    async fn ask(&self, _question: Question) -> Answer {
        let mut content = serde_json::Map::new();
        content.insert("n".into(), serde_json::from_str(&huge_integer()).unwrap());
        Answer::accept(content)
    }
}

#[tokio::test]
async fn an_answer_the_worker_cannot_read_is_a_cancel_and_the_worker_serves_on() {
    let project = project(&[]);
    project.tool("asker.py", ASKER);
    let registry = registry(options(&project)).await;
    let context = CallContext::new(Arc::new(HugeAnswer));
    let first = registry
        .call_with("asker", serde_json::Map::new(), &context)
        .await
        .unwrap();
    let (action, pid) = first.data.split_once(' ').unwrap();
    assert_eq!(action, "cancel", "{first:?}");
    let context = CallContext::new(Arc::new(HugeAnswer));
    let second = registry
        .call_with("asker", serde_json::Map::new(), &context)
        .await
        .unwrap();
    assert_eq!(
        second.data,
        format!("cancel {pid}"),
        "the worker was replaced"
    );
}
