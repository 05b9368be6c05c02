//! The skills a turn applied: streamed as `skill.applied`, stored with the
//! answer, shown by `GET /v1/conversations/{id}` and in completions.

use pretty_assertions::assert_eq;
use riverse_store::Liveness;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call};
use riverse_test_support::postgres::fresh_postgres_url;
use riverse_test_support::{Project, chromium_or_skip};
use serde_json::{Value, json};

use super::clients::{Listening, python};
use super::support::{
    Backend, Reply, Served, ask, create, get, post, serve_project, settings_yaml,
};

/// A project with the weather tool, a `travel` keyword skill and a
/// `pdf-forms` skill offered to the model, served on
/// `backend` with its LLM at `llm`.
async fn served_with_skills(backend: &Backend, llm: &OpenAiServer) -> Served {
    let project = Project::new();
    project.fixture("weather.py");
    project.settings(&settings_yaml(&llm.url(), ""));
    project.file(
        "agent/skills/travel.yaml",
        "name: travel\n\
         description: Plan a trip\n\
         trigger: {type: keyword, keywords: [trip, 旅行]}\n\
         instruction: Plan it day by day.\n",
    );
    project.file(
        "agent/skills/pdf-forms/SKILL.md",
        "---\nname: pdf-forms\ndescription: Fill in PDF forms\n---\nFill each field.\n",
    );
    serve_project(project, backend, Liveness::default(), |_| {}).await
}

#[tokio::test]
async fn an_answer_keeps_and_shows_its_skills_on_sqlite() {
    an_answer_keeps_and_shows_its_skills(Backend::Sqlite).await;
}

#[tokio::test]
async fn an_answer_keeps_and_shows_its_skills_on_postgres() {
    if let Some(url) = fresh_postgres_url().await {
        an_answer_keeps_and_shows_its_skills(Backend::Postgres(url)).await;
    }
}

async fn an_answer_keeps_and_shows_its_skills(backend: Backend) {
    let llm = OpenAiServer::start([
        ev_text("Pack a coat."),
        ev_text("Bergen: three days."),
        ev_text("Hello."),
    ]);
    let served = served_with_skills(&backend, &llm).await;
    let id = create(&served).await;
    let uri = format!("/v1/conversations/{id}/messages");
    let streamed = post(
        served.app(),
        &uri,
        json!({"content": "Plan my trip to Oslo"}),
    )
    .await;
    assert_eq!(streamed.status, 200, "{}", streamed.body);
    assert_eq!(streamed.streamed_text(), "Pack a coat.");
    assert_eq!(
        streamed.riverse_events(),
        [
            json!({"type": "skill.applied", "name": "travel", "trigger": "keyword"}),
            json!({"type": "done", "answer": "Pack a coat."}),
        ]
    );
    let whole = post(
        served.app(),
        &uri,
        json!({"content": "/TRAVEL Bergen", "stream": false}),
    )
    .await;
    assert_eq!(whole.status, 200, "{}", whole.body);
    assert_eq!(
        whole.json()["skills"],
        json!([{"name": "travel", "trigger": "explicit"}]),
        "the answer as stored"
    );
    let plain = post(
        served.app(),
        &uri,
        json!({"content": "Hi", "stream": false}),
    )
    .await;
    assert_eq!(plain.status, 200, "{}", plain.body);

    let conversation = get(served.app(), &format!("/v1/conversations/{id}"))
        .await
        .json();
    let skills: Vec<Option<Value>> = conversation["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|message| message.get("skills").cloned())
        .collect();
    assert_eq!(
        skills,
        [
            None,
            Some(json!([{"name": "travel", "trigger": "keyword"}])),
            None,
            Some(json!([{"name": "travel", "trigger": "explicit"}])),
            None,
            None,
        ]
    );
    // A new server on the same database reads them back.
    let served = served.restart().await;
    let again = get(served.app(), &format!("/v1/conversations/{id}"))
        .await
        .json();
    assert_eq!(
        again["messages"][1]["skills"],
        json!([{"name": "travel", "trigger": "keyword"}])
    );
}

#[tokio::test]
async fn completions_carry_the_skills_beside_the_tool_calls() {
    let llm = OpenAiServer::start([ev_text("Kyoto in spring."), ev_text("Hello.")]);
    let served = served_with_skills(&Backend::Sqlite, &llm).await;
    let reply = post(
        served.app(),
        "/v1/chat/completions",
        ask("京都旅行の計画", false),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(
        reply.json()["riverse"],
        json!({"tool_calls": [], "skills": [{"name": "travel", "trigger": "keyword"}]})
    );
    let plain = post(served.app(), "/v1/chat/completions", ask("Hi", false)).await;
    assert_eq!(
        plain.json()["riverse"],
        json!({"tool_calls": [], "skills": []})
    );
}

/// The `riverse` field of each object a streamed response sent, by event type.
fn streamed_riverse(reply: &Reply) -> Vec<(String, Value)> {
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply
        .body
        .split("\n\n")
        .filter_map(|event| event.lines().find_map(|line| line.strip_prefix("data: ")))
        .map(|data| serde_json::from_str::<Value>(data).unwrap())
        .filter(|event| event.get("response").is_some())
        .map(|event| {
            let kind = event["type"].as_str().unwrap_or_default().to_owned();
            (kind, event["response"]["riverse"].clone())
        })
        .collect()
}

#[tokio::test]
async fn responses_carry_the_skills_beside_the_tool_calls() {
    let llm = OpenAiServer::start([
        ev_text("Kyoto in spring."),
        ev_tool_call("c1", "skill", json!({"name": "pdf-forms"})),
        ev_text("Filled for your trip."),
        ev_text("Hello."),
    ]);
    let served = served_with_skills(&Backend::Sqlite, &llm).await;
    let whole = post(
        served.app(),
        "/v1/responses",
        json!({"input": "京都旅行の計画"}),
    )
    .await;
    assert_eq!(whole.status, 200, "{}", whole.body);
    let travel = json!({"tool_calls": [], "ignored_tools": [],
                        "skills": [{"name": "travel", "trigger": "keyword"}]});
    assert_eq!(whole.json()["riverse"], travel);
    let id = whole.json()["id"].as_str().unwrap().to_owned();
    let stored = get(served.app(), &format!("/v1/responses/{id}")).await;
    assert_eq!(stored.json()["riverse"], travel, "as stored");

    let streamed = post(
        served.app(),
        "/v1/responses",
        json!({"input": "Fill in the visa form for my trip", "stream": true}),
    )
    .await;
    let objects = streamed_riverse(&streamed);
    let kinds: Vec<&str> = objects.iter().map(|(kind, _)| kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "response.created",
            "response.in_progress",
            "response.completed"
        ]
    );
    assert_eq!(objects[0].1["skills"], json!([]), "not known while it runs");
    let completed = &objects[2].1;
    assert_eq!(
        completed["skills"],
        json!([{"name": "travel", "trigger": "keyword"},
               {"name": "pdf-forms", "trigger": "model"}])
    );
    assert_eq!(completed["tool_calls"][0]["tool"], "skill");

    let plain = post(served.app(), "/v1/responses", json!({"input": "Hi"})).await;
    assert_eq!(
        plain.json()["riverse"],
        json!({"tool_calls": [], "skills": [], "ignored_tools": []})
    );
}

/// Where the page test leaves its screenshots.
fn screenshots() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("page-skills")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_shows_the_skills_an_answer_applied_above_its_tool_cards() {
    if !chromium_or_skip() {
        return;
    }
    let llm = OpenAiServer::start([
        ev_tool_call("c1", "weather", json!({"city": "Tokyo"})),
        ev_text("Pack an umbrella."),
        ev_text("Hi."),
    ]);
    let served = served_with_skills(&Backend::Sqlite, &llm).await;
    let server = Listening::start(served.state.clone()).await;
    let seen = python(
        "page_skills.py",
        vec![
            format!("{}/", server.url),
            screenshots().display().to_string(),
        ],
    )
    .await;
    let travel = json!({"shown": true, "chips": [["travel · keyword", "keyword"]],
                        "above_cards": true, "cards": 1});
    let none = json!({"shown": false, "chips": [], "above_cards": true, "cards": 0});
    assert_eq!(seen["streamed"], json!([travel, none]));
    assert_eq!(seen["reloaded"], json!([travel, none]));
    assert!(server.stop().await);
}

#[tokio::test]
async fn a_streamed_completion_tells_each_skill_before_its_last_chunk() {
    let llm = OpenAiServer::start([
        ev_tool_call("c1", "skill", json!({"name": "pdf-forms"})),
        ev_text("Filled for your trip."),
    ]);
    let served = served_with_skills(&Backend::Sqlite, &llm).await;
    let reply = post(
        served.app(),
        "/v1/chat/completions",
        ask("Fill in the visa form for my trip", true),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let events = reply.riverse_events();
    let kinds: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
    assert_eq!(
        kinds,
        [
            "tool_call.started",
            "tool_call.finished",
            "skill.applied",
            "skill.applied",
            "done"
        ]
    );
    assert_eq!(
        events[2..4],
        [
            json!({"type": "skill.applied", "name": "travel", "trigger": "keyword"}),
            json!({"type": "skill.applied", "name": "pdf-forms", "trigger": "model"}),
        ]
    );
    assert_eq!(reply.events().last().map(String::as_str), Some("[DONE]"));
}
