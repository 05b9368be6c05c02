//! What a running tool says and asks, on the stream: progress, log lines,
//! questions answered through `/v1/riverse/questions/{id}` or expired, and
//! the content it gives, kept with the conversation.

use pretty_assertions::assert_eq;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call};
use riverse_test_support::postgres::fresh_postgres_url;
use serde_json::{Value, json};

use super::support::{Backend, Events, ask, create, get, kinds, post, send_with, served};
use super::talking_tools::{quick_questions, served_talking};

/// The answer to `report`'s question that the tests give.
fn accepted() -> Value {
    json!({"action": "accept", "content": {"title": "Q3", "format": "html", "overwrite": false}})
}

#[tokio::test]
async fn a_streamed_question_waits_for_the_answer_posted_to_its_route() {
    let llm = OpenAiServer::start([ev_tool_call("c1", "report", json!({})), ev_text("Written.")]);
    let served = served_talking(&Backend::Sqlite, &llm.url(), "", |_| {}).await;
    let mut stream = Events::open(served.app(), "/v1/chat/completions", ask("Report?", true)).await;
    let (before, question) = stream.until("tool_call.question").await;
    assert_eq!(
        kinds(&before),
        vec![
            "tool_call.started",
            "tool_call.log",
            "tool_call.progress",
            "tool_call.log",
            "tool_call.progress"
        ]
    );
    assert_eq!(
        before[1],
        json!({"type": "tool_call.log", "call_id": "c1", "tool": "report",
               "level": "info", "message": "reading 3 pages"})
    );
    assert_eq!(
        before[2],
        json!({"type": "tool_call.progress", "call_id": "c1", "tool": "report",
               "progress": 1.0, "total": 3.0, "message": "page 1 of 3"})
    );
    assert_eq!(before[3]["level"], "warning");
    assert_eq!(before[4]["message"], "all pages read");
    assert_eq!(
        (
            question["call_id"].clone(),
            question["tool"].clone(),
            question["message"].clone()
        ),
        (
            json!("c1"),
            json!("report"),
            json!("How should the report be written?")
        )
    );
    assert_eq!(
        question["schema"]["properties"]["format"]["enum"],
        json!(["pdf", "html"])
    );
    assert!(question["deadline"].as_i64().unwrap() > 0, "{question}");
    let id = question["question_id"].as_str().unwrap().to_owned();
    let route = format!("/v1/riverse/questions/{id}");

    // Answers that don't fit are refused, naming the field; the question
    // stays open.
    for (body, field) in [
        (json!({"action": "maybe"}), "action"),
        (json!({}), "action"),
        (json!({"action": "accept", "content": "Q3"}), "content"),
        (
            json!({"action": "accept", "content": {"format": "html"}}),
            "content.title",
        ),
        (
            json!({"action": "accept", "content": {"title": "Q3", "format": "doc"}}),
            "content.format",
        ),
        (
            json!({"action": "accept", "content": {"title": "Q3", "format": "pdf", "overwrite": "no"}}),
            "content.overwrite",
        ),
    ] {
        let refused = post(served.app(), &route, body.clone()).await;
        assert_eq!(refused.status, 400, "{body}: {}", refused.body);
        assert_eq!(refused.json()["error"]["param"], field, "{body}");
    }
    assert_eq!(served.state.open_questions(), 1);

    let answered = post(served.app(), &route, accepted()).await;
    assert_eq!(answered.status, 200, "{}", answered.body);
    assert_eq!(
        answered.json(),
        json!({"id": id, "object": "question.answer", "action": "accept"})
    );
    let rest = stream.rest().await;
    assert_eq!(
        kinds(&rest),
        vec!["tool_call.question_closed", "tool_call.finished", "done"]
    );
    assert_eq!(
        rest[0],
        json!({"type": "tool_call.question_closed", "call_id": "c1", "tool": "report",
               "question_id": id, "action": "accept", "reason": "answered"})
    );
    let finished = &rest[1];
    assert_eq!(finished["data"], "written: Q3 as html, overwrite=False");
    assert_eq!(
        finished["content"],
        json!([{"type": "resource", "uri": "file:///srv/Q3.html",
                "blob": "JVBERi0xLjQgcmVwb3J0", "mime_type": "application/pdf"}])
    );
    assert_eq!(stream.seen.last().map(String::as_str), Some("[DONE]"));

    // Answered is closed.
    let again = post(served.app(), &route, accepted()).await;
    assert_eq!(again.status, 404, "{}", again.body);
    assert_eq!(served.state.open_questions(), 0);
    // The model read the answer in the result, and the file by its summary.
    assert_eq!(
        llm.requests()[1].tool_results(),
        vec![(
            "c1".to_owned(),
            "written: Q3 as html, overwrite=False\n[resource file:///srv/Q3.html application/pdf, 15 B]"
                .to_owned()
        )]
    );
}

#[tokio::test]
async fn a_declined_question_is_read_as_a_decline() {
    let llm = OpenAiServer::start([
        ev_tool_call("c1", "report", json!({})),
        ev_text("Not written."),
    ]);
    let served = served_talking(&Backend::Sqlite, &llm.url(), "", |_| {}).await;
    let mut stream = Events::open(served.app(), "/v1/chat/completions", ask("Report?", true)).await;
    let (_, question) = stream.until("tool_call.question").await;
    let route = format!(
        "/v1/riverse/questions/{}",
        question["question_id"].as_str().unwrap()
    );
    let declined = post(served.app(), &route, json!({"action": "decline"})).await;
    assert_eq!(declined.json()["action"], "decline", "{}", declined.body);
    let rest = stream.rest().await;
    assert_eq!(
        (rest[0]["action"].clone(), rest[0]["reason"].clone()),
        (json!("decline"), json!("answered"))
    );
    assert_eq!(rest[1]["data"], "not written: decline");
}

#[tokio::test]
async fn a_question_unanswered_by_its_deadline_is_a_cancel() {
    let llm = OpenAiServer::start([
        ev_tool_call("c1", "report", json!({})),
        ev_text("Nobody answered."),
    ]);
    let served = served_talking(&Backend::Sqlite, &llm.url(), "", quick_questions).await;
    let reply = post(served.app(), "/v1/chat/completions", ask("Report?", true)).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let activity = reply.riverse_events();
    let questions: Vec<&Value> = activity
        .iter()
        .filter(|event| {
            event["type"]
                .as_str()
                .unwrap()
                .starts_with("tool_call.question")
        })
        .collect();
    assert_eq!(questions.len(), 2, "{activity:?}");
    assert_eq!(questions[0]["question_id"], questions[1]["question_id"]);
    assert_eq!(
        (
            questions[1]["action"].clone(),
            questions[1]["reason"].clone()
        ),
        (json!("cancel"), json!("expired"))
    );
    let finished = activity
        .iter()
        .find(|event| event["type"] == "tool_call.finished")
        .unwrap();
    assert_eq!(finished["data"], "not written: cancel");
    let late = post(
        served.app(),
        &format!(
            "/v1/riverse/questions/{}",
            questions[0]["question_id"].as_str().unwrap()
        ),
        accepted(),
    )
    .await;
    assert_eq!(late.status, 404, "{}", late.body);
}

#[tokio::test]
async fn a_question_closes_when_its_turn_ends_first() {
    let llm = OpenAiServer::start([ev_tool_call("c1", "report", json!({}))]);
    // Waiting on the person is not the tool's time, so the tool's own
    // deadline does not end the call; the turn's does.
    let served = served_talking(
        &Backend::Sqlite,
        &llm.url(),
        "tools: {report: {timeout: 1}}",
        |options| options.turn_timeout = std::time::Duration::from_millis(1500),
    )
    .await;
    let reply = post(served.app(), "/v1/chat/completions", ask("Report?", true)).await;
    let activity = reply.riverse_events();
    assert!(
        activity
            .iter()
            .any(|event| event["type"] == "tool_call.question"),
        "{activity:?}"
    );
    assert!(
        !activity
            .iter()
            .any(|event| event["type"] == "tool_call.finished"),
        "the call did not time out while its question waited: {activity:?}"
    );
    assert!(reply.body.contains("turn_timeout"), "{}", reply.body);
    assert_eq!(served.state.open_questions(), 0);
}

/// Nobody reads a reply that comes only once the turn is over in time to
/// answer: its questions are cancels at once, and none is left open.
#[tokio::test]
async fn nobody_answers_a_question_of_a_request_not_streamed() {
    let llm = OpenAiServer::start([
        ev_tool_call("c1", "report", json!({})),
        ev_text("Nobody answered."),
        ev_tool_call("c2", "report", json!({})),
        ev_text("Nobody answered again."),
    ]);
    let served = served_talking(&Backend::Sqlite, &llm.url(), "", |_| {}).await;
    let reply = post(served.app(), "/v1/chat/completions", ask("Report?", false)).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(
        reply.json()["riverse"]["tool_calls"][0]["data"],
        "not written: cancel"
    );
    let id = create(&served).await;
    let stored = post(
        served.app(),
        &format!("/v1/conversations/{id}/messages"),
        json!({"content": "Report?", "stream": false}),
    )
    .await;
    assert_eq!(stored.status, 200, "{}", stored.body);
    assert_eq!(
        stored.json()["tool_calls"][0]["data"],
        "not written: cancel"
    );
    assert_eq!(served.state.open_questions(), 0);
}

#[tokio::test]
async fn an_unknown_question_is_a_404() {
    let llm = OpenAiServer::start([]);
    let served = served(&llm, &[], "").await;
    let reply = post(
        served.app(),
        "/v1/riverse/questions/q_0123456789abcdef0123456789abcdef",
        json!({"action": "accept", "content": {}}),
    )
    .await;
    assert_eq!(reply.status, 404, "{}", reply.body);
    assert_eq!(reply.json()["error"]["code"], "not_found");
    assert_eq!(
        reply.json()["error"]["message"],
        "question \"q_0123456789abcdef0123456789abcdef\" is not open (answered, expired, or never asked)"
    );
}

/// The question route passes the guard of every `/v1` route: a page of
/// another origin, a body that is not JSON, and a missing token are
/// refused, and the question stays open for the real answer.
#[tokio::test]
async fn the_question_route_is_guarded_like_every_v1_route() {
    let llm = OpenAiServer::start([ev_tool_call("c1", "report", json!({})), ev_text("Written.")]);
    let token = "tok-0123456789abcdef";
    let served = served_talking(
        &Backend::Sqlite,
        &llm.url(),
        &format!("serve: {{token: {token}}}"),
        |_| {},
    )
    .await;
    let bearer = format!("Bearer {token}");
    let response = tower::ServiceExt::oneshot(
        served.app(),
        axum::http::Request::post("/v1/chat/completions")
            .header("host", "127.0.0.1:8420")
            .header("content-type", "application/json")
            .header("authorization", &bearer)
            .body(axum::body::Body::from(ask("Report?", true).to_string()))
            .unwrap(),
    )
    .await
    .unwrap();
    let mut stream = Events::from_response(response);
    let (_, question) = stream.until("tool_call.question").await;
    let route = format!(
        "/v1/riverse/questions/{}",
        question["question_id"].as_str().unwrap()
    );
    let body = Some(accepted().to_string());
    let cross_origin = send_with(
        served.app(),
        "POST",
        &route,
        body.clone(),
        &[
            ("authorization", &bearer),
            ("origin", "https://evil.example"),
        ],
    )
    .await;
    assert_eq!(cross_origin.status, 403, "{}", cross_origin.body);
    let as_a_form = send_with(
        served.app(),
        "POST",
        &route,
        Some("action=accept".to_owned()),
        &[
            ("authorization", &bearer),
            ("content-type", "application/x-www-form-urlencoded"),
        ],
    )
    .await;
    assert_eq!(as_a_form.status, 415, "{}", as_a_form.body);
    let without_token = send_with(served.app(), "POST", &route, body.clone(), &[]).await;
    assert_eq!(without_token.status, 401, "{}", without_token.body);
    assert_eq!(served.state.open_questions(), 1);

    let answered = send_with(
        served.app(),
        "POST",
        &route,
        body,
        &[
            ("authorization", &bearer),
            ("origin", "http://127.0.0.1:8420"),
        ],
    )
    .await;
    assert_eq!(answered.status, 200, "{}", answered.body);
    let rest = stream.rest().await;
    assert_eq!(rest[1]["data"], "written: Q3 as html, overwrite=False");
}

macro_rules! on_both_backends {
    ($($check:ident),* $(,)?) => {
        $(mod $check {
            use super::*;

            #[tokio::test]
            async fn sqlite() {
                super::$check(Backend::Sqlite).await;
            }

            #[tokio::test]
            async fn postgres() {
                if let Some(url) = fresh_postgres_url().await {
                    super::$check(Backend::Postgres(url)).await;
                }
            }
        })*
    };
}

on_both_backends!(a_conversation_keeps_each_calls_content_and_log_lines_across_a_restart);

async fn a_conversation_keeps_each_calls_content_and_log_lines_across_a_restart(backend: Backend) {
    let llm = OpenAiServer::start([
        ev_tool_call("c1", "paint", json!({})),
        ev_text("A blue square."),
    ]);
    let served = served_talking(&backend, &llm.url(), "", |_| {}).await;
    let id = create(&served).await;
    let reply = post(
        served.app(),
        &format!("/v1/conversations/{id}/messages"),
        json!({"content": "Paint?"}),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let streamed = reply
        .riverse_events()
        .into_iter()
        .find(|event| event["type"] == "tool_call.finished")
        .unwrap();
    let restarted = served.restart().await;
    let conversation = get(restarted.app(), &format!("/v1/conversations/{id}"))
        .await
        .json();
    let call = &conversation["messages"][1]["tool_calls"][0];
    assert_eq!(call["content"], streamed["content"]);
    let content = call["content"].as_array().unwrap();
    assert_eq!(kinds(content), vec!["image", "audio", "resource"]);
    assert_eq!(content[0]["mime_type"], "image/png");
    assert!(
        content[0]["data"]
            .as_str()
            .unwrap()
            .starts_with("iVBORw0KGgo"),
        "a PNG: {}",
        content[0]["data"]
    );
    assert_eq!(content[2]["text"], "a blue square, 64 by 64");
    assert_eq!(
        call["logs"],
        json!([{"level": "info", "message": "mixing blue"},
               {"level": "info", "message": "drawing 64 by 64"}])
    );
}
