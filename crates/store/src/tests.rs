use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

/// A fresh SQLite store, and a fresh PostgreSQL one when a server is
/// configured: every test runs on both.
async fn stores() -> Vec<(tempfile::TempDir, Store)> {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = SqliteStore::open(&dir.path().join(".riverse/riverse.db"))
        .await
        .unwrap();
    let mut stores = vec![(dir, Store::Sqlite(sqlite))];
    if let Some(url) = riverse_test_support::postgres::fresh_postgres_url().await {
        let postgres = PostgresStore::connect(&url).await.unwrap();
        stores.push((tempfile::tempdir().unwrap(), Store::Postgres(postgres)));
    }
    stores
}

#[tokio::test]
async fn a_conversation_keeps_messages_and_tool_calls_in_order() {
    for (_dir, store) in stores().await {
        let conversation = store.create_conversation().await.unwrap();
        assert_eq!(conversation.title, "");
        store
            .add_message(
                &conversation.id,
                Role::User,
                "Weather in Tokyo?\nthanks",
                MessageStatus::Done,
            )
            .await
            .unwrap()
            .unwrap();
        let answer = store
            .add_message(
                &conversation.id,
                Role::Assistant,
                "",
                MessageStatus::Running,
            )
            .await
            .unwrap()
            .unwrap();
        store
            .start_tool_call(&answer, "c1", "weather", &json!({"city": "Tokyo"}))
            .await
            .unwrap();
        store
            .start_tool_call(&answer, "c2", "clock", &json!({}))
            .await
            .unwrap();
        let outcome = ToolCallOutcome {
            success: true,
            data: "sunny".into(),
            error: String::new(),
            duration_ms: 12,
        };
        store
            .finish_tool_call(&answer, "c1", &outcome)
            .await
            .unwrap();
        let stored = store.conversation(&conversation.id).await.unwrap().unwrap();
        assert_eq!(stored.summary.title, "Weather in Tokyo?");
        assert_eq!(stored.messages.len(), 2);
        assert_eq!(stored.messages[1].status, MessageStatus::Running);
        assert_eq!(
            stored.messages[1].tool_calls,
            vec![
                StoredToolCall {
                    call_id: "c1".into(),
                    tool: "weather".into(),
                    params: json!({"city": "Tokyo"}),
                    success: Some(true),
                    data: "sunny".into(),
                    error: String::new(),
                    duration_ms: Some(12),
                },
                StoredToolCall {
                    call_id: "c2".into(),
                    tool: "clock".into(),
                    params: json!({}),
                    success: None,
                    data: String::new(),
                    error: String::new(),
                    duration_ms: None,
                },
            ]
        );
        store
            .finish_message(&answer, "It is sunny.", MessageStatus::Done, None)
            .await
            .unwrap();
        let stored = store.conversation(&conversation.id).await.unwrap().unwrap();
        assert_eq!(stored.messages[1].content, "It is sunny.");
        assert_eq!(stored.messages[1].status, MessageStatus::Done);
    }
}

#[tokio::test]
async fn the_list_is_newest_first_and_paged() {
    for (_dir, store) in stores().await {
        let mut ids = Vec::new();
        for _ in 0..5 {
            ids.push(store.create_conversation().await.unwrap().id);
            tokio::time::sleep(std::time::Duration::from_millis(3)).await;
        }
        // A message moves the oldest conversation to the top.
        store
            .add_message(&ids[0], Role::User, "hi", MessageStatus::Done)
            .await
            .unwrap();
        let first = store.list_conversations(2, 0).await.unwrap();
        let listed: Vec<&str> = first.conversations.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(listed, vec![ids[0].as_str(), ids[4].as_str()]);
        assert!(first.has_more);
        let last = store.list_conversations(2, 4).await.unwrap();
        assert_eq!(last.conversations.len(), 1);
        assert!(!last.has_more);
    }
}

#[tokio::test]
async fn rename_and_delete_report_unknown_ids() {
    for (_dir, store) in stores().await {
        let id = store.create_conversation().await.unwrap().id;
        let answer = store
            .add_message(&id, Role::Assistant, "", MessageStatus::Running)
            .await
            .unwrap()
            .unwrap();
        store
            .start_tool_call(&answer, "c1", "t", &json!({}))
            .await
            .unwrap();
        assert!(store.rename_conversation(&id, "Trip").await.unwrap());
        assert!(!store.rename_conversation("conv_none", "x").await.unwrap());
        assert_eq!(
            store
                .conversation(&id)
                .await
                .unwrap()
                .unwrap()
                .summary
                .title,
            "Trip"
        );
        assert!(store.delete_conversation(&id).await.unwrap());
        assert!(!store.delete_conversation(&id).await.unwrap());
        assert_eq!(store.conversation(&id).await.unwrap(), None);
        assert_eq!(
            store
                .add_message(&id, Role::User, "late", MessageStatus::Done)
                .await
                .unwrap(),
            None
        );
    }
}

#[tokio::test]
async fn reopening_keeps_conversations_and_migrates_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("riverse.db");
    let id = {
        let store = SqliteStore::open(&path).await.unwrap();
        let id = store.create_conversation().await.unwrap().id;
        store
            .add_message(&id, Role::User, "kept", MessageStatus::Done)
            .await
            .unwrap();
        id
    };
    let store = SqliteStore::open(&path).await.unwrap();
    let stored = store.conversation(&id).await.unwrap().unwrap();
    assert_eq!(stored.messages[0].content, "kept");
    let connection = rusqlite::Connection::open(&path).unwrap();
    let mode: String = connection
        .query_row("PRAGMA journal_mode", [], |row| row.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    let versions: i64 = connection
        .query_row("SELECT COUNT(*) FROM riverse_migrations", [], |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(versions, migrations::SQLITE.len() as i64);
}

#[test]
fn titles_take_the_first_line_shortened() {
    assert_eq!(title_from("\n  hello there \nmore"), "hello there");
    let long = "x".repeat(70);
    assert_eq!(title_from(&long), format!("{}…", "x".repeat(60)));
}
