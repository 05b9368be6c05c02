//! A background task that asks a question after its turn ended (issue 45):
//! in `riverse serve` the task is `input_required`, its question on its row
//! as a stream announces it; the answer posted to the question's route
//! reaches the tool, the task works on and its result is followed up.

use pretty_assertions::assert_eq;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call};
use riverse_test_support::{Project, eventually};
use serde_json::{Value, json};

use super::serve::{Server, http};
use super::tasks::{LONG, get_json, post_message, task_when};

/// Works a while, then asks who signs the report, and writes it.
const SIGNED: &str = r#"import time
from agent.tools import BaseTool, ToolResult, ToolManifest

class Signed(BaseTool):
    def manifest(self):
        return ToolManifest(name="signed_report", description="Writes the signed report",
                            parameters={"title": "the report's title"})

    def execute(self, params):
        time.sleep(2)
        answer = self.ask("Who signs the report?", {"signer": "the signer's name"})
        if answer.action != "accept":
            return ToolResult(False, error=f"not signed: {answer.action}")
        return ToolResult(True, f"{params['title']} signed by {answer.content['signer']}")
"#;

fn signing_project(llm: &OpenAiServer) -> Project {
    let project = Project::new();
    project.tool("signed.py", SIGNED).settings(&format!(
        "llm_provider: openai\nopenai: {{api_base: \"{}\", api_key: sk-file, max_retries: 0}}\n\
         tools:\n  signed_report: {{timeout: 300, background: {{after: 1}}}}\n",
        llm.url()
    ));
    project
}

/// The one task the server lists, once it is there.
fn the_task(server: &Server) -> String {
    eventually(LONG, "the task's row", || {
        let list = get_json(server, "/v1/tasks");
        list["data"][0]["id"].as_str().map(str::to_owned)
    })
}

#[test]
fn a_tasks_question_is_on_its_row_and_its_answer_reaches_the_tool() {
    let llm = OpenAiServer::start([]).fallback(ev_text("Noted."));
    let project = signing_project(&llm);
    llm.push([
        ev_tool_call("c1", "signed_report", json!({"title": "Q4"})),
        ev_text("Writing it."),
    ]);
    let server = Server::start(&project, &[]);
    let (conversation, answer) = post_message(&server, "Write the Q4 report");
    assert_eq!(answer["content"], "Writing it.", "{answer}");
    let id = the_task(&server);

    let waiting = task_when(&server, &id, "the task's question", |task| {
        task["state"] == "input_required"
    });
    let question = &waiting["question"];
    assert_eq!(
        (&question["type"], &question["message"], &question["tool"]),
        (
            &json!("tool_call.question"),
            &json!("Who signs the report?"),
            &json!("signed_report")
        ),
        "{waiting}"
    );
    let route = format!(
        "/v1/riverse/questions/{}",
        question["question_id"].as_str().unwrap()
    );
    // An answer that does not fit the question is refused, and it stays open.
    let wrong = json!({"action": "accept", "content": {"signature": "Ada"}});
    let (status, body) = http(&server.url, "POST", &route, Some(&wrong));
    assert_eq!(status, 400, "{body}");
    let right = json!({"action": "accept", "content": {"signer": "Ada"}});
    let (status, body) = http(&server.url, "POST", &route, Some(&right));
    assert_eq!(status, 200, "{body}");

    let ended = task_when(&server, &id, "the task's end", |task| {
        task["state"] != "working" && task["state"] != "input_required"
    });
    assert_eq!(ended["state"], "completed", "{ended}");
    assert_eq!(ended["result"]["data"], "Q4 signed by Ada");
    assert_eq!(ended["question"], Value::Null);
    eventually(LONG, "the follow-up", || {
        let stored = get_json(&server, &format!("/v1/conversations/{conversation}"));
        let messages = stored["messages"].as_array().unwrap().clone();
        (messages.len() == 3 && messages[2]["status"] == "done").then_some(())
    });
    // The same question can't be answered twice.
    let (status, _) = http(&server.url, "POST", &route, Some(&right));
    assert_eq!(status, 404);
}

/// A task cancelled while it waits on its question: the question closes
/// and the task ends cancelled.
#[test]
fn a_task_cancelled_while_it_waits_closes_its_question() {
    let llm = OpenAiServer::start([]).fallback(ev_text("Noted."));
    let project = signing_project(&llm);
    llm.push([
        ev_tool_call("c1", "signed_report", json!({"title": "Q1"})),
        ev_text("Writing it."),
    ]);
    let server = Server::start(&project, &[]);
    post_message(&server, "Write the Q1 report");
    let id = the_task(&server);
    let waiting = task_when(&server, &id, "the task's question", |task| {
        task["state"] == "input_required"
    });
    let route = format!(
        "/v1/riverse/questions/{}",
        waiting["question"]["question_id"].as_str().unwrap()
    );
    let (status, body) = http(&server.url, "POST", &format!("/v1/tasks/{id}/cancel"), None);
    assert_eq!(status, 200, "{body}");
    let ended = get_json(&server, &format!("/v1/tasks/{id}"));
    assert_eq!(ended["state"], "cancelled", "{ended}");
    eventually(LONG, "the question closed", || {
        let answer = json!({"action": "accept", "content": {"signer": "Ada"}});
        let (status, _) = http(&server.url, "POST", &route, Some(&answer));
        (status == 404).then_some(())
    });
}

/// The page shows a task's question on the call's card, takes the answer,
/// and shows the answer that follows from the task.
#[test]
fn the_page_shows_a_tasks_question_and_takes_its_answer() {
    if !riverse_test_support::chromium_or_skip() {
        return;
    }
    let llm = OpenAiServer::start([]).fallback(ev_text("Q4 is signed."));
    let project = signing_project(&llm);
    llm.push([
        ev_tool_call("c1", "signed_report", json!({"title": "Q4"})),
        ev_text("Writing it."),
    ]);
    let server = Server::start(&project, &[]);
    let seen = super::serve::python("page_task_question.py", &[&server.url]);
    assert_eq!(seen["question"], "Who signs the report?", "{seen:#}");
    assert_eq!(seen["on_the_task_card"], true, "{seen:#}");
    assert_eq!(seen["answers"], json!(["Writing it.", "Q4 is signed."]));
    let card = seen["follow_up_card"].as_str().unwrap();
    assert!(card.contains("Q4 signed by Ada"), "{card}");
}
