//! `tools.<name>.approval` in `riverse serve`: a streamed conversation
//! message pauses on a call that asks, until the person approves or declines
//! it through `/v1/riverse/questions/{id}` or its deadline passes; whatever
//! has nobody to ask (a message not streamed, `/v1/chat/completions`)
//! refuses it, saying why; `deny` refuses without asking. The chat page's
//! Approve and Deny buttons, in headless Chromium, on the streamed card and
//! on the page opened again while the call waits.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use pretty_assertions::assert_eq;
use riverse_server::AppState;
use riverse_store::Liveness;
use riverse_test_support::Project;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call};
use riverse_test_support::venv::serve_python;
use serde_json::{Value, json};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::support::{
    Adjust, Backend, Events, Served, ask, create, get, kinds, post, serve_project, settings_yaml,
};
use super::talking_tools::quick_questions;

/// `mark`: writes `ran` to the file `path` names; what has run is what is
/// on disk.
const MARK: &str = r#"
from agent.tools import BaseTool, ToolManifest, ToolResult


class Mark(BaseTool):
    def manifest(self):
        return ToolManifest(name="mark", description="writes a marker file", parameters={"path": "Where to write it"})

    def execute(self, params):
        with open(params["path"], "w") as marker:
            marker.write("ran")
        return ToolResult(True, "marked")
"#;

/// A project with `mark`, whose approval is `approval`, its LLM at `llm`,
/// and the options `adjust` changes.
async fn served_marking(llm: &OpenAiServer, approval: &str, adjust: Adjust) -> Served {
    let project = Project::new();
    project.tool("mark.py", MARK);
    project.settings(&settings_yaml(
        &llm.url(),
        &format!("tools: {{mark: {{approval: {approval}}}}}"),
    ));
    serve_project(project, &Backend::Sqlite, Liveness::default(), adjust).await
}

/// Where `mark` writes in the project, named `name`.
fn marker(served: &Served, name: &str) -> PathBuf {
    served.project.path().join(name)
}

/// The model's turn: `mark` the file at `path` as call `c1`, then `answer`.
fn mark_then(llm: &OpenAiServer, path: &Path, answer: &str) {
    llm.push([
        ev_tool_call("c1", "mark", json!({"path": path})),
        ev_text(answer),
    ]);
}

/// The first call of the conversation's answer, as stored.
async fn stored_call(served: &Served, id: &str) -> Value {
    let conversation = get(served.app(), &format!("/v1/conversations/{id}"))
        .await
        .json();
    conversation["messages"][1]["tool_calls"][0].clone()
}

/// The tool result the model read in its second request.
fn told(llm: &OpenAiServer) -> Vec<(String, String)> {
    llm.requests()[1].tool_results()
}

/// Opens a streamed conversation message and reads up to its approval
/// question; the stream, the conversation's id, and the question.
async fn asked(served: &Served, content: &str) -> (Events, String, Value) {
    let id = create(served).await;
    let mut stream = Events::open(
        served.app(),
        &format!("/v1/conversations/{id}/messages"),
        json!({"content": content}),
    )
    .await;
    let (before, question) = stream.until("tool_call.question").await;
    assert_eq!(kinds(&before), vec!["tool_call.started"]);
    (stream, id, question)
}

fn question_route(question: &Value) -> String {
    format!(
        "/v1/riverse/questions/{}",
        question["question_id"].as_str().unwrap()
    )
}

#[tokio::test]
async fn an_approved_call_runs_once_the_answer_comes_and_the_conversation_keeps_the_decision() {
    let llm = OpenAiServer::start([]);
    let served = served_marking(&llm, "ask", |_| {}).await;
    let path = marker(&served, "approved.txt");
    mark_then(&llm, &path, "Marked.");
    let (mut stream, id, question) = asked(&served, "Mark it").await;
    let question_id = question["question_id"].as_str().unwrap().to_owned();
    let deadline = question["deadline"].as_i64().unwrap();
    assert!(deadline > 0, "{question}");
    assert_eq!(
        question,
        json!({
            "type": "tool_call.question", "call_id": "c1", "tool": "mark",
            "question_id": question_id,
            "message": format!("Allow mark to run with {}? (tools.mark.approval is ask)",
                               json!({"path": path})),
            "schema": {"type": "object", "properties": {}},
            "deadline": deadline,
            "approval": {"tool": "mark", "arguments": {"path": path},
                         "rule": "tools.mark.approval"},
        })
    );
    // Waiting for the answer, the call has not run, and the stored call
    // says what it waits for.
    assert!(!path.exists(), "mark ran before it was approved");
    let pending = stored_call(&served, &id).await;
    assert_eq!(pending["tool"], "mark");
    assert!(pending["success"].is_null(), "{pending}");
    assert_eq!(
        pending["approval"],
        json!({"decision": null, "rule": "tools.mark.approval",
               "question_id": question_id, "deadline": deadline})
    );
    assert_eq!(served.state.open_questions(), 1);

    let answered = post(
        served.app(),
        &question_route(&question),
        json!({"action": "accept", "content": {}}),
    )
    .await;
    assert_eq!(answered.status, 200, "{}", answered.body);
    assert_eq!(
        answered.json(),
        json!({"id": question_id, "object": "question.answer", "action": "accept"})
    );
    let rest = stream.rest().await;
    assert_eq!(
        kinds(&rest),
        vec!["tool_call.question_closed", "tool_call.finished", "done"]
    );
    assert_eq!(
        (rest[0]["action"].clone(), rest[0]["reason"].clone()),
        (json!("accept"), json!("answered"))
    );
    let finished = &rest[1];
    assert_eq!(
        (finished["success"].clone(), finished["data"].clone()),
        (json!(true), json!("marked")),
        "{finished}"
    );
    assert_eq!(
        finished["approval"],
        json!({"decision": "approved", "rule": "tools.mark.approval"})
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "ran");
    assert_eq!(told(&llm), vec![("c1".to_owned(), "marked".to_owned())]);

    let stored = stored_call(&served, &id).await;
    assert_eq!(stored["success"], true, "{stored}");
    assert_eq!(
        stored["approval"],
        json!({"decision": "approved", "rule": "tools.mark.approval"})
    );
    // Answered is closed.
    let again = post(
        served.app(),
        &question_route(&question),
        json!({"action": "accept"}),
    )
    .await;
    assert_eq!(again.status, 404, "{}", again.body);
    assert_eq!(served.state.open_questions(), 0);
}

#[tokio::test]
async fn a_declined_call_is_denied_and_the_model_is_told_so() {
    let llm = OpenAiServer::start([]);
    let served = served_marking(&llm, "ask", |_| {}).await;
    let path = marker(&served, "declined.txt");
    mark_then(&llm, &path, "Not marked.");
    let (mut stream, id, question) = asked(&served, "Mark it").await;
    let declined = post(
        served.app(),
        &question_route(&question),
        json!({"action": "decline"}),
    )
    .await;
    assert_eq!(declined.status, 200, "{}", declined.body);
    assert_eq!(declined.json()["action"], "decline");
    let rest = stream.rest().await;
    assert_eq!(
        kinds(&rest),
        vec!["tool_call.question_closed", "tool_call.finished", "done"]
    );
    let error = "mark was not run: the user declined it";
    let finished = &rest[1];
    assert_eq!(
        (
            finished["success"].clone(),
            finished["failure"].clone(),
            finished["error"].clone()
        ),
        (json!(false), json!("denied"), json!(error)),
        "{finished}"
    );
    assert_eq!(
        finished["approval"],
        json!({"decision": "declined", "rule": "tools.mark.approval"})
    );
    assert!(!path.exists(), "a declined call ran");
    let told = told(&llm);
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(told[0].1.contains(error), "{told:?}");

    let stored = stored_call(&served, &id).await;
    assert_eq!(
        (
            stored["success"].clone(),
            stored["failure"].clone(),
            stored["error"].clone()
        ),
        (json!(false), json!("denied"), json!(error)),
        "{stored}"
    );
    assert_eq!(
        stored["approval"],
        json!({"decision": "declined", "rule": "tools.mark.approval"})
    );
}

#[tokio::test]
async fn a_call_nobody_approves_by_the_deadline_is_unanswered() {
    let llm = OpenAiServer::start([]);
    let served = served_marking(&llm, "ask", quick_questions).await;
    let path = marker(&served, "unanswered.txt");
    mark_then(&llm, &path, "Nobody answered.");
    let id = create(&served).await;
    let reply = post(
        served.app(),
        &format!("/v1/conversations/{id}/messages"),
        json!({"content": "Mark it"}),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let activity = reply.riverse_events();
    assert_eq!(
        kinds(&activity),
        vec![
            "tool_call.started",
            "tool_call.question",
            "tool_call.question_closed",
            "tool_call.finished",
            "done"
        ]
    );
    assert_eq!(
        (activity[2]["action"].clone(), activity[2]["reason"].clone()),
        (json!("cancel"), json!("expired"))
    );
    let error = "mark was not run: it needs approval (tools.mark.approval is ask) \
                 and nobody answered within serve.question_timeout (0.05s)";
    let finished = &activity[3];
    assert_eq!(
        (finished["failure"].clone(), finished["error"].clone()),
        (json!("denied"), json!(error)),
        "{finished}"
    );
    assert_eq!(
        finished["approval"],
        json!({"decision": "unanswered", "rule": "tools.mark.approval"})
    );
    assert!(!path.exists(), "an unanswered call ran");
    assert!(told(&llm)[0].1.contains(error), "{:?}", told(&llm));
    let stored = stored_call(&served, &id).await;
    assert_eq!(stored["error"], error, "{stored}");
    assert_eq!(
        stored["approval"],
        json!({"decision": "unanswered", "rule": "tools.mark.approval"})
    );
    // Too late: the question is closed.
    let late = post(
        served.app(),
        &question_route(&activity[1]),
        json!({"action": "accept"}),
    )
    .await;
    assert_eq!(late.status, 404, "{}", late.body);
}

#[tokio::test]
async fn a_conversation_message_not_streamed_refuses_a_call_that_asks() {
    let llm = OpenAiServer::start([]);
    let served = served_marking(&llm, "ask", |_| {}).await;
    let path = marker(&served, "not-streamed.txt");
    mark_then(&llm, &path, "Refused.");
    let id = create(&served).await;
    let reply = post(
        served.app(),
        &format!("/v1/conversations/{id}/messages"),
        json!({"content": "Mark it", "stream": false}),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let error = "mark was not run: it needs approval (tools.mark.approval is ask) \
                 and a message posted with stream: false has nobody to ask: stream it to be asked";
    let call = &reply.json()["tool_calls"][0];
    assert_eq!(
        (
            call["success"].clone(),
            call["failure"].clone(),
            call["error"].clone()
        ),
        (json!(false), json!("denied"), json!(error)),
        "{call}"
    );
    assert_eq!(
        call["approval"],
        json!({"decision": "unanswered", "rule": "tools.mark.approval"})
    );
    assert!(!path.exists(), "a refused call ran");
    assert!(told(&llm)[0].1.contains(error), "{:?}", told(&llm));
    assert_eq!(served.state.open_questions(), 0);
}

#[tokio::test]
async fn chat_completions_refuse_a_call_that_asks_streamed_or_not() {
    let llm = OpenAiServer::start([]);
    let served = served_marking(&llm, "ask", |_| {}).await;
    let error = "mark was not run: it needs approval (tools.mark.approval is ask) and \
                 /v1/chat/completions has no conversation to hold an approval: post the message \
                 to a conversation (POST /v1/conversations/{id}/messages, streamed) to be \
                 asked, or set the tool's approval to auto";
    for stream in [true, false] {
        let path = marker(&served, &format!("completion-{stream}.txt"));
        mark_then(&llm, &path, "Refused.");
        let reply = post(served.app(), "/v1/chat/completions", ask("Mark it", stream)).await;
        assert_eq!(reply.status, 200, "stream {stream}: {}", reply.body);
        let finished = if stream {
            let activity = reply.riverse_events();
            assert_eq!(
                kinds(&activity),
                vec!["tool_call.started", "tool_call.finished", "done"],
                "no question on the stream"
            );
            activity[1].clone()
        } else {
            reply.json()["riverse"]["tool_calls"][0].clone()
        };
        assert_eq!(
            (
                finished["success"].clone(),
                finished["failure"].clone(),
                finished["error"].clone()
            ),
            (json!(false), json!("denied"), json!(error)),
            "stream {stream}: {finished}"
        );
        assert_eq!(
            finished["approval"],
            json!({"decision": "unanswered", "rule": "tools.mark.approval"}),
            "stream {stream}"
        );
        assert!(!path.exists(), "stream {stream}: a refused call ran");
        let requests = llm.take_requests();
        assert!(
            requests[1].tool_results()[0].1.contains(error),
            "stream {stream}: {:?}",
            requests[1].tool_results()
        );
        assert_eq!(served.state.open_questions(), 0);
    }
}

#[tokio::test]
async fn a_call_the_settings_deny_is_refused_without_a_question() {
    let llm = OpenAiServer::start([]);
    let served = served_marking(&llm, "deny", |_| {}).await;
    let path = marker(&served, "denied.txt");
    mark_then(&llm, &path, "Refused.");
    let id = create(&served).await;
    let reply = post(
        served.app(),
        &format!("/v1/conversations/{id}/messages"),
        json!({"content": "Mark it"}),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let activity = reply.riverse_events();
    assert_eq!(
        kinds(&activity),
        vec!["tool_call.started", "tool_call.finished", "done"]
    );
    let error = "mark was not run: tools.mark.approval is deny";
    let finished = &activity[1];
    assert_eq!(
        (
            finished["success"].clone(),
            finished["failure"].clone(),
            finished["error"].clone()
        ),
        (json!(false), json!("denied"), json!(error)),
        "{finished}"
    );
    assert_eq!(
        finished["approval"],
        json!({"decision": "denied", "rule": "tools.mark.approval"})
    );
    assert!(!path.exists(), "a denied call ran");
    assert!(told(&llm)[0].1.contains(error), "{:?}", told(&llm));
    let stored = stored_call(&served, &id).await;
    assert_eq!(
        stored["approval"],
        json!({"decision": "denied", "rule": "tools.mark.approval"})
    );
    assert_eq!(served.state.open_questions(), 0);
}

/// A server on a loopback port, as `riverse serve` runs it.
struct Listening {
    /// `http://127.0.0.1:PORT`
    url: String,
    stop: oneshot::Sender<()>,
    serving: JoinHandle<std::io::Result<bool>>,
}

impl Listening {
    async fn start(state: Arc<AppState>) -> Listening {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let (stop, stopped) = oneshot::channel::<()>();
        let shutdown = async move {
            let _ = stopped.await;
        };
        let serving = tokio::spawn(riverse_server::serve(
            listener,
            state,
            shutdown,
            Duration::from_secs(10),
        ));
        Listening { url, stop, serving }
    }

    /// Stops it as Ctrl-C does; whether everything in flight finished.
    async fn stop(self) -> bool {
        let _ = self.stop.send(());
        self.serving.await.unwrap().unwrap()
    }
}

/// Runs `script` (in tests/python) with the serve test environment's Python,
/// off the runtime's threads; what it printed, as JSON.
async fn python(script: &str, args: Vec<String>) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/python")
        .join(script);
    let output = tokio::task::spawn_blocking(move || {
        Command::new(serve_python())
            .arg(path)
            .args(args)
            .env("NO_PROXY", "127.0.0.1,localhost")
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{script} failed:\n{stdout}\n{stderr}"
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|err| panic!("{err}: {stdout}\n{stderr}"))
}

/// Where the page test leaves its screenshots.
fn screenshots() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("page-approvals")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_approves_and_denies_a_call_with_the_buttons_on_its_card() {
    let llm = OpenAiServer::start([]);
    let served = served_marking(&llm, "ask", |_| {}).await;
    let approved = marker(&served, "approved.txt");
    let denied = marker(&served, "denied.txt");
    let reopened = marker(&served, "reopened.txt");
    llm.push([
        ev_tool_call("c1", "mark", json!({"path": approved})),
        ev_text("Marked."),
        ev_tool_call("c2", "mark", json!({"path": denied})),
        ev_text("Not marked."),
        ev_tool_call("c3", "mark", json!({"path": reopened})),
        ev_text("Marked again."),
    ]);
    let server = Listening::start(served.state.clone()).await;
    let out = screenshots();
    let seen = python(
        "page_approvals.py",
        vec![
            format!("{}/", server.url),
            out.display().to_string(),
            approved.display().to_string(),
            denied.display().to_string(),
            reopened.display().to_string(),
        ],
    )
    .await;
    assert_eq!(
        seen["asked"],
        json!({
            "text": "mark wants to run (tools.mark.approval)",
            "buttons": [["primary approve", "Approve"], ["decline deny", "Deny"]],
            "ran_before_approving": false,
        })
    );
    assert_eq!(
        seen["approved"],
        json!({
            "ran": true,
            "forms_left": 0,
            "decision": "approved (tools.mark.approval)",
            "result": "result: marked",
        })
    );
    assert_eq!(
        seen["denied"],
        json!({
            "ran": false,
            "forms_left": 0,
            "kind": ["denied", "denied"],
            "error": "error: mark was not run: the user declined it",
            "decision": "declined (tools.mark.approval)",
        })
    );
    // Opened again, the cards show what the store kept.
    assert_eq!(
        seen["after_reload"],
        json!({
            "decisions": ["approved (tools.mark.approval)", "declined (tools.mark.approval)"],
            "forms": 0,
        })
    );
    // A call that waits shows its buttons again on the page opened anew.
    assert_eq!(
        seen["reopened"],
        json!({
            "text": "mark wants to run (tools.mark.approval)",
            "ran_before_approving": false,
            "ran": true,
            "decisions": ["approved (tools.mark.approval)", "declined (tools.mark.approval)",
                          "approved (tools.mark.approval)"],
            "forms": 0,
        })
    );
    for screenshot in ["asked.png", "decided.png"] {
        assert!(out.join(screenshot).is_file(), "{screenshot}");
    }
    assert!(server.stop().await);
}
