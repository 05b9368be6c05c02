//! `tools.<name>.approval` in `riverse serve`: a streamed conversation
//! message pauses on a call that asks, until the person approves or declines
//! it through `/v1/riverse/questions/{id}` or its deadline passes; whatever
//! has nobody to ask (a message not streamed, `/v1/chat/completions`)
//! refuses it, saying why; `deny` refuses without asking. The chat page's
//! Approve and Deny buttons, in headless Chromium, on the streamed card and
//! on the page opened again while the call waits.

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use riverse_store::Liveness;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call};
use riverse_test_support::{Project, chromium_or_skip};
use serde_json::{Value, json};

use super::clients::{Listening, python};
use super::support::{
    Adjust, Backend, Events, Reply, Served, ask, create, get, kinds, post, serve_project,
    settings_yaml,
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

/// [`served_marking`] with a model whose one turn marks the file `name`
/// and then says `answer`: the model, the server, and where the marker
/// goes.
async fn marking_once(
    approval: &str,
    adjust: Adjust,
    name: &str,
    answer: &str,
) -> (OpenAiServer, Served, PathBuf) {
    let llm = OpenAiServer::start([]);
    let served = served_marking(&llm, approval, adjust).await;
    let path = marker(&served, name);
    mark_then(&llm, &path, answer);
    (llm, served, path)
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

/// The model was told of its one call that it failed with `error`.
#[track_caller]
fn assert_told_failed(llm: &OpenAiServer, error: &str) {
    let told = told(llm);
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(told[0].1.contains(error), "{told:?}");
}

/// The approval a call of `mark` records: `decision`, by its rule.
fn decided(decision: &str) -> Value {
    json!({"decision": decision, "rule": "tools.mark.approval"})
}

/// `call` (an event, or a call as stored) was refused, with `error`, and
/// records its approval's `decision`; `context` opens the messages.
#[track_caller]
fn assert_refused(call: &Value, error: &str, decision: &str, context: &str) {
    assert_eq!(
        (
            call["success"].clone(),
            call["failure"].clone(),
            call["error"].clone()
        ),
        (json!(false), json!("denied"), json!(error)),
        "{context}{call}"
    );
    assert_eq!(call["approval"], decided(decision), "{context}{call}");
}

/// Posts `body` as the first message of a new conversation, not read as a
/// stream: the conversation's id and the reply, which is a 200.
async fn posted(served: &Served, body: Value) -> (String, Reply) {
    let id = create(served).await;
    let reply = post(
        served.app(),
        &format!("/v1/conversations/{id}/messages"),
        body,
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    (id, reply)
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

/// Answers `question` with `answer`, which is taken, and reads the rest of
/// `stream`: the question closes, the call finishes, the turn is done. What
/// the answer was told, and the rest.
async fn answer(
    served: &Served,
    stream: &mut Events,
    question: &Value,
    answer: Value,
) -> (Value, Vec<Value>) {
    let answered = post(served.app(), &question_route(question), answer).await;
    assert_eq!(answered.status, 200, "{}", answered.body);
    let rest = stream.rest().await;
    assert_eq!(
        kinds(&rest),
        vec!["tool_call.question_closed", "tool_call.finished", "done"]
    );
    (answered.json(), rest)
}

/// An answer to `question` now finds it closed.
async fn assert_closed(served: &Served, question: &Value) {
    let late = post(
        served.app(),
        &question_route(question),
        json!({"action": "accept"}),
    )
    .await;
    assert_eq!(late.status, 404, "{}", late.body);
}

#[tokio::test]
async fn an_approved_call_runs_once_the_answer_comes_and_the_conversation_keeps_the_decision() {
    let (llm, served, path) = marking_once("ask", |_| {}, "approved.txt", "Marked.").await;
    let (mut stream, id, question) = asked(&served, "Mark it").await;
    let question_id = question["question_id"].as_str().unwrap().to_owned();
    let deadline = question["deadline"].as_i64().unwrap();
    assert!(deadline > 0, "{question}");
    assert_eq!(
        question,
        json!({
            "type": "tool_call.question", "call_id": "c1", "tool": "mark",
            "question_id": question_id,
            "message": format!("Allow mark to run with these arguments? \
                                (tools.mark.approval is ask)\npath: {}", json!(path)),
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

    let (answered, rest) = answer(
        &served,
        &mut stream,
        &question,
        json!({"action": "accept", "content": {}}),
    )
    .await;
    assert_eq!(
        answered,
        json!({"id": question_id, "object": "question.answer", "action": "accept"})
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
    assert_eq!(finished["approval"], decided("approved"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "ran");
    assert_eq!(told(&llm), vec![("c1".to_owned(), "marked".to_owned())]);

    let stored = stored_call(&served, &id).await;
    assert_eq!(stored["success"], true, "{stored}");
    assert_eq!(stored["approval"], decided("approved"));
    // Answered is closed.
    assert_closed(&served, &question).await;
    assert_eq!(served.state.open_questions(), 0);
}

#[tokio::test]
async fn a_declined_call_is_denied_and_the_model_is_told_so() {
    let (llm, served, path) = marking_once("ask", |_| {}, "declined.txt", "Not marked.").await;
    let (mut stream, id, question) = asked(&served, "Mark it").await;
    let (declined, rest) = answer(
        &served,
        &mut stream,
        &question,
        json!({"action": "decline"}),
    )
    .await;
    assert_eq!(declined["action"], "decline");
    let error = "mark was not run: the user declined it";
    assert_refused(&rest[1], error, "declined", "");
    assert!(!path.exists(), "a declined call ran");
    assert_told_failed(&llm, error);
    assert_refused(&stored_call(&served, &id).await, error, "declined", "");
}

#[tokio::test]
async fn a_call_nobody_approves_by_the_deadline_is_unanswered() {
    let (llm, served, path) =
        marking_once("ask", quick_questions, "unanswered.txt", "Nobody answered.").await;
    let (id, reply) = posted(&served, json!({"content": "Mark it"})).await;
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
    assert_refused(&activity[3], error, "unanswered", "");
    assert!(!path.exists(), "an unanswered call ran");
    assert_told_failed(&llm, error);
    assert_refused(&stored_call(&served, &id).await, error, "unanswered", "");
    // Too late: the question is closed.
    assert_closed(&served, &activity[1]).await;
}

#[tokio::test]
async fn a_conversation_message_not_streamed_refuses_a_call_that_asks() {
    let (llm, served, path) = marking_once("ask", |_| {}, "not-streamed.txt", "Refused.").await;
    let (_, reply) = posted(&served, json!({"content": "Mark it", "stream": false})).await;
    let error = "mark was not run: it needs approval (tools.mark.approval is ask) \
                 and a message posted with stream: false has nobody to ask: stream it to be asked";
    assert_refused(&reply.json()["tool_calls"][0], error, "unanswered", "");
    assert!(!path.exists(), "a refused call ran");
    assert_told_failed(&llm, error);
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
        assert_refused(
            &finished,
            error,
            "unanswered",
            &format!("stream {stream}: "),
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
    let (llm, served, path) = marking_once("deny", |_| {}, "denied.txt", "Refused.").await;
    let (id, reply) = posted(&served, json!({"content": "Mark it"})).await;
    let activity = reply.riverse_events();
    assert_eq!(
        kinds(&activity),
        vec!["tool_call.started", "tool_call.finished", "done"]
    );
    let error = "mark was not run: tools.mark.approval is deny";
    assert_refused(&activity[1], error, "denied", "");
    assert!(!path.exists(), "a denied call ran");
    assert_told_failed(&llm, error);
    assert_refused(&stored_call(&served, &id).await, error, "denied", "");
    assert_eq!(served.state.open_questions(), 0);
}

/// Where the page test leaves its screenshots.
fn screenshots() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("page-approvals")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_approves_and_denies_a_call_with_the_buttons_on_its_card() {
    if !chromium_or_skip() {
        return;
    }
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
