//! `/v1/conversations`: kept in SQLite, every step stored as it happens.

use pretty_assertions::assert_eq;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call};
use serde_json::{Value, json};

use super::support::{Served, get, post, send, served};

async fn create(served: &Served) -> String {
    let reply = post(served.app(), "/v1/conversations", json!({})).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.json()["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_conversation_keeps_messages_and_tool_calls_and_feeds_them_back() {
    let llm = OpenAiServer::start([
        ev_tool_call("c1", "weather", json!({"city": "Tokyo"})),
        ev_text("Sunny in Tokyo."),
        ev_text("You asked about Tokyo."),
    ]);
    let served = served(&llm, &[], "").await;
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

#[tokio::test]
async fn conversations_are_listed_newest_first_renamed_and_deleted() {
    let llm = OpenAiServer::start([ev_text("one"), ev_text("two")]);
    let served = served(&llm, &[], "").await;
    let older = create(&served).await;
    let newer = create(&served).await;
    // Order is by the millisecond of the last change.
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
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
    let served = served(&llm, &[], "").await;
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
