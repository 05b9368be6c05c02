//! `/v1/conversations`: kept in SQLite, every step stored as it happens.

use std::time::Duration;

use pretty_assertions::assert_eq;
use riverse_store::{Liveness, MAX_TITLE_CHARS, MessageStatus};
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call};
use riverse_test_support::postgres::fresh_postgres_url;
use serde_json::{Value, json};

use super::faults::leave_after_first_chunk;
use super::support::{Backend, create, get, open_store, post, send, served_living, served_on};

/// Runs each named check once on SQLite and once on PostgreSQL (when a
/// server is configured).
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

on_both_backends!(
    a_conversation_keeps_messages_and_tool_calls_and_feeds_them_back,
    conversations_are_listed_newest_first_renamed_and_deleted,
    a_client_leaving_mid_stream_does_not_lose_the_turn,
    a_running_answer_keeps_beating_so_no_other_server_takes_it,
    paging_refuses_what_is_not_a_whole_number_and_saturates_huge_ones,
    titles_over_the_bound_are_refused_naming_the_field,
);

async fn a_conversation_keeps_messages_and_tool_calls_and_feeds_them_back(backend: Backend) {
    let llm = OpenAiServer::start([
        ev_tool_call("c1", "weather", json!({"city": "Tokyo"})),
        ev_text("Sunny in Tokyo."),
        ev_text("You asked about Tokyo."),
    ]);
    let served = served_on(&backend, &llm.url(), &[], "").await;
    let id = create(&served).await;
    let first = post(
        served.app(),
        &format!("/v1/conversations/{id}/messages"),
        json!({"content": "Weather in Tokyo?"}),
    )
    .await;
    assert_eq!(first.status, 200, "{}", first.body);
    assert_eq!(first.streamed_text(), "Sunny in Tokyo.");
    assert_eq!(first.events().last().map(String::as_str), Some("[DONE]"));

    let conversation = get(served.app(), &format!("/v1/conversations/{id}"))
        .await
        .json();
    assert_eq!(conversation["title"], "Weather in Tokyo?");
    let messages = conversation["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(
        (messages[0]["role"].clone(), messages[0]["content"].clone()),
        (json!("user"), json!("Weather in Tokyo?"))
    );
    assert_eq!(messages[1]["content"], "Sunny in Tokyo.");
    assert_eq!(messages[1]["status"], "done");
    let call = &messages[1]["tool_calls"][0];
    assert_eq!(
        without_duration(call),
        json!({"call_id": "c1", "tool": "weather", "params": {"city": "Tokyo"}, "success": true,
               "data": "Tokyo: 21°C, sunny", "error": ""})
    );
    assert!(call["duration_ms"].is_u64());

    let second = post(
        served.app(),
        &format!("/v1/conversations/{id}/messages"),
        json!({"content": "What did I ask?", "stream": false}),
    )
    .await;
    assert_eq!(second.status, 200, "{}", second.body);
    assert_eq!(second.json()["content"], "You asked about Tokyo.");
    assert_eq!(second.json()["role"], "assistant");
    let last = llm.requests().pop().unwrap().roles_and_contents();
    assert_eq!(
        last[1..].to_vec(),
        vec![
            ("user".to_owned(), "Weather in Tokyo?".to_owned()),
            ("assistant".to_owned(), "Sunny in Tokyo.".to_owned()),
            ("user".to_owned(), "What did I ask?".to_owned()),
        ]
    );
}

fn without_duration(call: &Value) -> Value {
    let mut call = call.clone();
    call.as_object_mut().unwrap().remove("duration_ms");
    call
}

async fn conversations_are_listed_newest_first_renamed_and_deleted(backend: Backend) {
    let llm = OpenAiServer::start([ev_text("one")]);
    let served = served_on(&backend, &llm.url(), &[], "").await;
    let older = create(&served).await;
    let newer = create(&served).await;
    // Order is by the millisecond of the last change.
    tokio::time::sleep(Duration::from_millis(5)).await;
    // A message makes the older one the newest.
    let reply = post(
        served.app(),
        &format!("/v1/conversations/{older}/messages"),
        json!({"content": "hi", "stream": false}),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let list = get(served.app(), "/v1/conversations?limit=1").await.json();
    assert_eq!(list["data"][0]["id"], json!(older));
    assert_eq!(list["has_more"], true);
    let rest = get(served.app(), "/v1/conversations?limit=1&offset=1")
        .await
        .json();
    assert_eq!(rest["data"][0]["id"], json!(newer));
    assert_eq!(rest["has_more"], false);
    let bad = get(served.app(), "/v1/conversations?limit=many").await;
    assert_eq!(bad.status, 400);
    assert_eq!(bad.json()["error"]["param"], "limit");

    let renamed = send(
        served.app(),
        "PATCH",
        &format!("/v1/conversations/{newer}"),
        Some(json!({"title": "Trip"}).to_string()),
        None,
    )
    .await;
    assert_eq!(renamed.json()["title"], "Trip");
    let deleted = send(
        served.app(),
        "DELETE",
        &format!("/v1/conversations/{newer}"),
        None,
        None,
    )
    .await;
    assert_eq!(deleted.json()["deleted"], true);
    for (method, path) in [
        ("GET", format!("/v1/conversations/{newer}")),
        ("DELETE", format!("/v1/conversations/{newer}")),
        ("POST", format!("/v1/conversations/{newer}/messages")),
    ] {
        let body = (method == "POST").then(|| json!({"content": "hi"}).to_string());
        let reply = send(served.app(), method, &path, body, None).await;
        assert_eq!(reply.status, 404, "{method} {path}");
        assert_eq!(
            reply.json()["error"]["message"],
            format!("conversation \"{newer}\" not found")
        );
    }
}

#[tokio::test]
async fn conversations_survive_a_new_server_on_the_same_project() {
    let llm = OpenAiServer::start([ev_text("kept")]);
    let served = served_on(&Backend::Sqlite, &llm.url(), &[], "").await;
    let id = create(&served).await;
    post(
        served.app(),
        &format!("/v1/conversations/{id}/messages"),
        json!({"content": "remember", "stream": false}),
    )
    .await;
    let store =
        riverse_store::SqliteStore::open(&served.project.path().join(".riverse/riverse.db"))
            .await
            .unwrap();
    let reopened = store.conversation(&id).await.unwrap().unwrap();
    let contents: Vec<&str> = reopened
        .messages
        .iter()
        .map(|m| m.content.as_str())
        .collect();
    assert_eq!(contents, vec!["remember", "kept"]);
}

async fn a_client_leaving_mid_stream_does_not_lose_the_turn(backend: Backend) {
    let llm = OpenAiServer::start([
        ev_tool_call("c1", "weather", json!({"city": "Rome"})),
        ev_text("Rome is sunny.").delay(Duration::from_millis(500)),
    ]);
    let served = served_on(&backend, &llm.url(), &[], "").await;
    let id = create(&served).await;
    let first = leave_after_first_chunk(
        served.app(),
        &format!("/v1/conversations/{id}/messages"),
        json!({"content": "Rome?"}),
    )
    .await;
    assert!(first.contains("tool_call.started"), "{first}");
    assert!(served.state.turns_finished(Duration::from_secs(10)).await);
    let conversation = get(served.app(), &format!("/v1/conversations/{id}"))
        .await
        .json();
    let answer = &conversation["messages"][1];
    assert_eq!(answer["status"], "done");
    assert_eq!(answer["content"], "Rome is sunny.");
    assert_eq!(answer["tool_calls"][0]["data"], "Rome: 21°C, sunny");
}

#[tokio::test]
async fn two_servers_on_one_postgres_database_continue_one_conversation() {
    let Some(url) = fresh_postgres_url().await else {
        return;
    };
    let llm = OpenAiServer::start([
        ev_tool_call("c1", "weather", json!({"city": "Tokyo"})),
        ev_text("Sunny in Tokyo."),
        ev_text("You asked about Tokyo."),
    ]);
    let first = served_on(&Backend::Postgres(url.clone()), &llm.url(), &[], "").await;
    let second = served_on(&Backend::Postgres(url), &llm.url(), &[], "").await;
    let id = create(&first).await;
    let reply = post(
        first.app(),
        &format!("/v1/conversations/{id}/messages"),
        json!({"content": "Weather in Tokyo?", "stream": false}),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let reply = post(
        second.app(),
        &format!("/v1/conversations/{id}/messages"),
        json!({"content": "What did I ask?", "stream": false}),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.json()["content"], "You asked about Tokyo.");
    let asked = llm.requests().pop().unwrap().roles_and_contents();
    assert_eq!(
        asked[1..].to_vec(),
        vec![
            ("user".to_owned(), "Weather in Tokyo?".to_owned()),
            ("assistant".to_owned(), "Sunny in Tokyo.".to_owned()),
            ("user".to_owned(), "What did I ask?".to_owned()),
        ]
    );
    let seen_by_first = get(first.app(), &format!("/v1/conversations/{id}"))
        .await
        .json();
    let contents: Vec<&str> = seen_by_first["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(
        contents,
        vec![
            "Weather in Tokyo?",
            "Sunny in Tokyo.",
            "What did I ask?",
            "You asked about Tokyo."
        ]
    );
    assert_eq!(
        seen_by_first["messages"][1]["tool_calls"][0]["data"],
        "Tokyo: 21°C, sunny"
    );
    let listed = get(second.app(), "/v1/conversations").await.json();
    assert_eq!(listed["data"][0]["id"], json!(id));
}

/// Heartbeats a tenth of a second apart, stale after a second.
const QUICK: Liveness = Liveness {
    heartbeat: Duration::from_millis(100),
    stale_after: Duration::from_secs(1),
};

/// Issue 21, M6: a turn that runs for many stale bounds (the LLM is slow)
/// keeps its answer alive; another server reading and listing all along
/// never takes it for interrupted.
async fn a_running_answer_keeps_beating_so_no_other_server_takes_it(backend: Backend) {
    let llm = OpenAiServer::start([ev_text("Slow but done.").delay(QUICK.stale_after * 4)]);
    let served = served_living(&backend, &llm.url(), &[], "", QUICK).await;
    let other = open_store(&backend, &served.project, QUICK).await;
    let id = create(&served).await;
    let app = served.app();
    let uri = format!("/v1/conversations/{id}/messages");
    let turn = tokio::spawn(async move {
        post(
            app,
            &uri,
            json!({"content": "take your time", "stream": false}),
        )
        .await
    });
    let mut seen_running = 0;
    for _ in 0..400 {
        if turn.is_finished() {
            break;
        }
        other.list_conversations(10, 0).await.unwrap();
        let conversation = other.conversation(&id).await.unwrap().unwrap();
        if let Some(answer) = conversation.messages.get(1) {
            match answer.status {
                MessageStatus::Running => seen_running += 1,
                MessageStatus::Failed => panic!("a live turn was taken: {answer:?}"),
                MessageStatus::Done => break,
            }
        }
        tokio::time::sleep(QUICK.heartbeat).await;
    }
    let reply = turn.await.unwrap();
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.json()["content"], "Slow but done.");
    assert_eq!(reply.json()["status"], "done");
    assert!(seen_running > 0);
    let answer = &other.conversation(&id).await.unwrap().unwrap().messages[1];
    assert_eq!(
        (answer.status, answer.content.as_str()),
        (MessageStatus::Done, "Slow but done.")
    );
}

/// Issue 21, L5: `offset` and `limit` are whole numbers; one past what the
/// machine holds is past the end, never the first page again.
async fn paging_refuses_what_is_not_a_whole_number_and_saturates_huge_ones(backend: Backend) {
    let llm = OpenAiServer::start([]);
    let served = served_on(&backend, &llm.url(), &[], "").await;
    let id = create(&served).await;
    for offset in [
        "18446744073709551615",
        "9223372036854775807",
        "9223372036854775808",
        "99999999999999999999999999",
    ] {
        let page = get(served.app(), &format!("/v1/conversations?offset={offset}")).await;
        assert_eq!(page.status, 200, "offset {offset}: {}", page.body);
        assert_eq!(
            (page.json()["data"].clone(), page.json()["has_more"].clone()),
            (json!([]), json!(false)),
            "offset {offset}"
        );
    }
    let huge_limit = get(
        served.app(),
        "/v1/conversations?limit=99999999999999999999999",
    )
    .await
    .json();
    assert_eq!(huge_limit["data"][0]["id"], json!(id));
    for (name, value) in [
        ("offset", "-1"),
        ("limit", "-1"),
        ("limit", "-9223372036854775808"),
        ("offset", "1.5"),
        ("limit", "%2B1"),
        ("offset", "%201"),
        ("limit", ""),
        ("offset", "0x10"),
        ("limit", "ten"),
    ] {
        let reply = get(served.app(), &format!("/v1/conversations?{name}={value}")).await;
        assert_eq!(reply.status, 400, "{name}={value}: {}", reply.body);
        assert_eq!(reply.json()["error"]["param"], name, "{name}={value}");
        let message = reply.json()["error"]["message"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(message.contains("whole number"), "{message}");
    }
}

/// Issue 21, L4: a title is at most `MAX_TITLE_CHARS` characters (not
/// bytes); a longer one is refused and the old title kept.
async fn titles_over_the_bound_are_refused_naming_the_field(backend: Backend) {
    let llm = OpenAiServer::start([]);
    let served = served_on(&backend, &llm.url(), &[], "").await;
    let id = create(&served).await;
    let uri = format!("/v1/conversations/{id}");
    let rename = |title: String| {
        send(
            served.app(),
            "PATCH",
            &uri,
            Some(json!({ "title": title }).to_string()),
            None,
        )
    };
    let longest = "é".repeat(MAX_TITLE_CHARS);
    let kept = rename(format!("  {longest}  ")).await;
    assert_eq!(kept.status, 200, "{}", kept.body);
    assert_eq!(kept.json()["title"], json!(longest));
    for title in [
        "é".repeat(MAX_TITLE_CHARS + 1),
        "x".repeat(100_000),
        "\u{1F600}".repeat(MAX_TITLE_CHARS * 3),
    ] {
        let refused = rename(title).await;
        assert_eq!(refused.status, 400, "{}", refused.body);
        assert_eq!(refused.json()["error"]["param"], "title");
        let message = refused.json()["error"]["message"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(
            message.contains(&format!("at most {MAX_TITLE_CHARS}")),
            "{message}"
        );
    }
    let listed = get(served.app(), "/v1/conversations").await.json();
    assert_eq!(listed["data"][0]["title"], json!(longest));
}
