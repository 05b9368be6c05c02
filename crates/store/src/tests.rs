use pretty_assertions::assert_eq;
use riverse_tool::{
    ApprovalRecord, Arguments, CallApproval, Content, Decision, LogLevel, LogLine, ToolResult,
};
use serde_json::json;

use super::*;

/// Records the start of call `call_id` of `tool` under `answer`; the record.
async fn start_call(
    store: &Store,
    answer: &str,
    call_id: &str,
    tool: &str,
    params: Value,
) -> CallRecord {
    let record = CallRecord::started(call_id, tool, Arguments::from_value(params));
    store.record_tool_call(answer, &record).await.unwrap();
    record
}

/// Records `record` ended with `result` after `millis`.
async fn finish_call(
    store: &Store,
    answer: &str,
    mut record: CallRecord,
    result: ToolResult,
    millis: u64,
) -> CallRecord {
    record.finish(result, Duration::from_millis(millis));
    store.record_tool_call(answer, &record).await.unwrap();
    record
}

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
        let weather = start_call(&store, &answer, "c1", "weather", json!({"city": "Tokyo"})).await;
        let mut clock = start_call(&store, &answer, "c2", "clock", json!({})).await;
        let slow = start_call(&store, &answer, "c3", "slow", json!({})).await;
        clock.approval = Some(CallApproval::pending("tools.clock.approval", "q1", 1234));
        store.record_tool_call(&answer, &clock).await.unwrap();
        let mut sunny = ToolResult::ok("sunny");
        sunny.content = vec![Content::image(b"\x89PNG", "image/png")];
        let mut weather = weather;
        weather.logs = vec![LogLine {
            level: LogLevel::Info,
            message: "asked the sky".into(),
        }];
        let weather = finish_call(&store, &answer, weather, sunny, 12).await;
        let mut too_slow = ToolResult::failed(FailureKind::Timeout, "too slow");
        too_slow.approval = Some(ApprovalRecord {
            decision: Decision::Approved,
            rule: "tools.slow.approval".into(),
        });
        let slow = finish_call(&store, &answer, slow, too_slow, 1000).await;
        // A start seen again after the end leaves the end as it was.
        let again = CallRecord::started("c1", "weather", Arguments::default());
        store.record_tool_call(&answer, &again).await.unwrap();
        let stored = store.conversation(&conversation.id).await.unwrap().unwrap();
        assert_eq!(stored.summary.title, "Weather in Tokyo?");
        assert_eq!(stored.messages.len(), 2);
        assert_eq!(stored.messages[1].status, MessageStatus::Running);
        assert_eq!(stored.messages[1].tool_calls, vec![weather, clock, slow]);
        let shown = json!(stored.messages[1].tool_calls[2]);
        assert_eq!(
            (&shown["failure"], &shown["approval"]),
            (
                &json!("timeout"),
                &json!({"decision": "approved", "rule": "tools.slow.approval"})
            )
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
            tokio::time::sleep(Duration::from_millis(3)).await;
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
        start_call(&store, &answer, "c1", "t", json!({})).await;
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

/// Where a database lives, so that several stores (several servers) can
/// open the same one.
enum Database {
    Sqlite(tempfile::TempDir),
    Postgres(String),
}

impl Database {
    async fn open(&self, liveness: Liveness) -> Store {
        match self {
            Database::Sqlite(dir) => Store::Sqlite(
                SqliteStore::open_with(&dir.path().join("riverse.db"), liveness)
                    .await
                    .unwrap(),
            ),
            Database::Postgres(url) => {
                Store::Postgres(PostgresStore::connect_with(url, liveness).await.unwrap())
            }
        }
    }
}

/// A fresh SQLite database, and a fresh PostgreSQL one when a server is
/// configured.
async fn databases() -> Vec<Database> {
    let mut databases = vec![Database::Sqlite(tempfile::tempdir().unwrap())];
    if let Some(url) = riverse_test_support::postgres::fresh_postgres_url().await {
        databases.push(Database::Postgres(url));
    }
    databases
}

/// Heartbeats judged stale after a fifth of a second.
const QUICK: Liveness = Liveness {
    heartbeat: Duration::from_millis(50),
    stale_after: Duration::from_millis(200),
};

/// Never stale within a test: a store that only looks.
const PATIENT: Liveness = Liveness {
    heartbeat: Duration::from_secs(3600),
    stale_after: Duration::from_secs(7200),
};

/// A conversation with a running answer started by `store`, one of whose
/// two tool calls has finished; the conversation's and the answer's ids.
async fn running_answer(store: &Store) -> (String, String) {
    let conversation = store.create_conversation().await.unwrap().id;
    store
        .add_message(&conversation, Role::User, "slow?", MessageStatus::Done)
        .await
        .unwrap();
    let answer = store
        .add_message(&conversation, Role::Assistant, "", MessageStatus::Running)
        .await
        .unwrap()
        .unwrap();
    let quick = start_call(store, &answer, "c1", "quick", json!({})).await;
    finish_call(store, &answer, quick, ToolResult::ok("ok"), 1).await;
    start_call(store, &answer, "c2", "slow", json!({})).await;
    (conversation, answer)
}

/// The answer of `conversation` as `store` reads it.
async fn answer_of(store: &Store, conversation: &str) -> StoredMessage {
    let stored = store.conversation(conversation).await.unwrap().unwrap();
    stored.messages[1].clone()
}

/// Waits past the stale bound of [`QUICK`].
async fn outlast_quick() {
    tokio::time::sleep(QUICK.stale_after * 2).await;
}

fn assert_interrupted(answer: &StoredMessage) {
    assert_eq!(answer.status, MessageStatus::Failed);
    assert_eq!(answer.error.as_deref(), Some(INTERRUPTED));
    let calls: Vec<(Option<bool>, &str, Option<FailureKind>)> = answer
        .tool_calls
        .iter()
        .map(|call| (call.success, call.error.as_str(), call.failure))
        .collect();
    // The finished call keeps its outcome; the other one fails: what ran it died.
    assert_eq!(
        calls,
        vec![
            (Some(true), "", None),
            (Some(false), INTERRUPTED, Some(FailureKind::Crashed))
        ]
    );
}

/// Issue 21, M6: a server killed mid-turn leaves its answer running; once
/// its heartbeat is stale, reading the conversation fails it.
#[tokio::test]
async fn a_silent_answer_is_failed_with_its_unfinished_calls_once_stale() {
    for database in databases().await {
        let crashed = database.open(QUICK).await;
        let (conversation, _answer) = running_answer(&crashed).await;
        drop(crashed);
        let reader = database.open(QUICK).await;
        outlast_quick().await;
        assert_interrupted(&answer_of(&reader, &conversation).await);
    }
}

#[tokio::test]
async fn listing_and_opening_fail_silent_answers_too() {
    for database in databases().await {
        let crashed = database.open(QUICK).await;
        let (listed, _) = running_answer(&crashed).await;
        let (reopened, _) = running_answer(&crashed).await;
        drop(crashed);
        let onlooker = database.open(PATIENT).await;
        outlast_quick().await;
        let lister = database.open(QUICK).await;
        lister.list_conversations(1, 0).await.unwrap();
        assert_interrupted(&answer_of(&onlooker, &listed).await);
        assert_interrupted(&answer_of(&onlooker, &reopened).await);

        let crashed = database.open(QUICK).await;
        let (at_start, _) = running_answer(&crashed).await;
        drop(crashed);
        outlast_quick().await;
        database.open(QUICK).await;
        assert_interrupted(&answer_of(&onlooker, &at_start).await);
    }
}

/// Several servers share one database: a live server's answer, beating,
/// outlives many stale bounds while others read it, and only its owner's
/// beats count.
#[tokio::test]
async fn a_beating_answer_is_never_taken_by_another_server() {
    for database in databases().await {
        let live = database.open(QUICK).await;
        let other = database.open(QUICK).await;
        let (conversation, answer) = running_answer(&live).await;
        for _ in 0..12 {
            tokio::time::sleep(QUICK.heartbeat).await;
            live.beat(&answer).await.unwrap();
            assert_eq!(
                answer_of(&other, &conversation).await.status,
                MessageStatus::Running
            );
            other.list_conversations(10, 0).await.unwrap();
        }
        for _ in 0..3 {
            other.beat(&answer).await.unwrap();
            tokio::time::sleep(QUICK.heartbeat).await;
        }
        outlast_quick().await;
        assert_interrupted(&answer_of(&other, &conversation).await);
        // A late beat does not bring it back, and the real end still wins.
        live.beat(&answer).await.unwrap();
        assert_eq!(
            answer_of(&other, &conversation).await.status,
            MessageStatus::Failed
        );
        live.finish_message(&answer, "done late", MessageStatus::Done, None)
            .await
            .unwrap();
        assert_eq!(
            answer_of(&other, &conversation).await.status,
            MessageStatus::Done
        );
    }
}

#[tokio::test]
async fn finished_answers_are_never_failed() {
    for database in databases().await {
        let store = database.open(QUICK).await;
        let (conversation, answer) = running_answer(&store).await;
        store
            .finish_message(&answer, "fine", MessageStatus::Done, None)
            .await
            .unwrap();
        outlast_quick().await;
        let stored = answer_of(&store, &conversation).await;
        assert_eq!(
            (stored.status, stored.tool_calls[1].success),
            (MessageStatus::Done, None)
        );
        assert_eq!(store.fail_interrupted().await.unwrap(), 0);
    }
}

/// Issue 21, L5: an offset past `i64::MAX` is an empty page, never the
/// first one, on both backends.
#[tokio::test]
async fn a_huge_offset_is_past_the_end() {
    for (_dir, store) in stores().await {
        store.create_conversation().await.unwrap();
        for offset in [usize::MAX, i64::MAX as usize, i64::MAX as usize + 1] {
            let page = store.list_conversations(10, offset).await.unwrap();
            assert_eq!(
                page,
                Page {
                    conversations: vec![],
                    has_more: false
                },
                "{offset}"
            );
        }
        let page = store.list_conversations(usize::MAX, 0).await.unwrap();
        assert_eq!(page.conversations.len(), 1);
    }
}

/// Issue 21, L4: the store itself keeps titles within the bound.
#[tokio::test]
async fn a_long_title_is_cut_to_the_bound() {
    for (_dir, store) in stores().await {
        let id = store.create_conversation().await.unwrap().id;
        let long = "é".repeat(MAX_TITLE_CHARS * 50);
        assert!(store.rename_conversation(&id, &long).await.unwrap());
        let title = store
            .conversation(&id)
            .await
            .unwrap()
            .unwrap()
            .summary
            .title;
        assert_eq!(title, "é".repeat(MAX_TITLE_CHARS));
    }
}

/// A database made by the first schema, left with an answer running: the
/// upgrade gives that answer the stale bound from the upgrade on (a server
/// of the previous version may still be finishing it), then it fails.
#[tokio::test]
async fn an_answer_running_before_the_upgrade_fails_once_stale() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("riverse.db");
    sqlite_at_step(
        &path,
        1,
        "INSERT INTO conversations VALUES ('conv_old', 'old', 0, 0);
                 INSERT INTO messages (id, conversation_id, role, content, status, created_at)
                 VALUES ('msg_q', 'conv_old', 'user', 'q', 'done', 0),
                        ('msg_a', 'conv_old', 'assistant', '', 'running', 0);",
    );
    let upgraded = Store::Sqlite(SqliteStore::open_with(&path, PATIENT).await.unwrap());
    assert_eq!(
        answer_of(&upgraded, "conv_old").await.status,
        MessageStatus::Running
    );
    outlast_quick().await;
    // The upgrade's heartbeat has a resolution of a second.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let later = Store::Sqlite(SqliteStore::open_with(&path, QUICK).await.unwrap());
    let answer = answer_of(&later, "conv_old").await;
    assert_eq!(
        (answer.status, answer.error.as_deref()),
        (MessageStatus::Failed, Some(INTERRUPTED))
    );
}

/// A call's content blocks and log lines, as a server restarted on the
/// same database reads them back: every kind of block, whole.
#[tokio::test]
async fn content_and_logs_outlast_the_store_that_wrote_them() {
    for database in databases().await {
        let blocks = vec![
            Content::image(&[0x89, b'P', b'N', b'G', 0, 255], "image/png"),
            Content::Audio {
                data: "UklGRg==".into(),
                mime_type: "audio/wav".into(),
            },
            Content::Resource {
                uri: "file:///srv/report.pdf".into(),
                text: None,
                blob: Some("JVBERi0=".into()),
                mime_type: Some("application/pdf".into()),
            },
            Content::Resource {
                uri: "file:///srv/notes.txt".into(),
                text: Some("notes, \"quoted\" and ünïcode".into()),
                blob: None,
                mime_type: None,
            },
        ];
        let logs = vec![
            LogLine {
                level: LogLevel::Info,
                message: "page 1".into(),
            },
            LogLine {
                level: LogLevel::Warning,
                message: "page 2 was slow".into(),
            },
        ];
        let (conversation, answer) = {
            let writer = database.open(PATIENT).await;
            let (conversation, answer) = running_answer(&writer).await;
            let mut slow = CallRecord::started("c2", "slow", Arguments::default());
            slow.logs = logs.clone();
            let mut drawn = ToolResult::ok("drawn");
            drawn.content = blocks.clone();
            finish_call(&writer, &answer, slow, drawn, 5).await;
            (conversation, answer)
        };
        let reader = database.open(PATIENT).await;
        let stored = answer_of(&reader, &conversation).await;
        assert_eq!(stored.id, answer);
        let slow = &stored.tool_calls[1];
        assert_eq!((&slow.content, &slow.logs), (&blocks, &logs));
        // The call that gave none has none, and says nothing of them.
        let quick = &stored.tool_calls[0];
        assert_eq!((quick.content.len(), quick.logs.len()), (0, 0));
        let shown = json!(quick);
        assert_eq!((shown.get("content"), shown.get("logs")), (None, None));
        assert_eq!(json!(slow)["content"][0]["type"], "image");
    }
}

/// A database of the third schema, with a finished call: the upgrade keeps
/// the call, with no content and no log lines.
#[tokio::test]
async fn a_call_stored_before_content_was_reads_with_none() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("riverse.db");
    sqlite_at_step(&path, 3, "INSERT INTO conversations VALUES ('conv_old', 'old', 0, 0);
                 INSERT INTO messages (id, conversation_id, role, content, status, created_at)
                 VALUES ('msg_q', 'conv_old', 'user', 'q', 'done', 0),
                        ('msg_a', 'conv_old', 'assistant', 'a', 'done', 0);
                 INSERT INTO tool_calls (message_id, call_id, tool, params, success, data, duration_ms)
                 VALUES ('msg_a', 'c1', 'weather', '{}', 1, 'sunny', 3);");
    let upgraded = Store::Sqlite(SqliteStore::open_with(&path, PATIENT).await.unwrap());
    let call = &answer_of(&upgraded, "conv_old").await.tool_calls[0];
    assert_eq!(
        (call.data.as_str(), call.content.len(), call.logs.len()),
        ("sunny", 0, 0)
    );
}

/// Rows of the seventh schema, where each field of a call had a column.
const CALLS_IN_COLUMNS: &str = "INSERT INTO conversations VALUES ('conv_old', 'old', 0, 0);
    INSERT INTO messages (id, conversation_id, role, content, status, created_at)
    VALUES ('msg_q', 'conv_old', 'user', 'q', 'done', 0),
           ('msg_a', 'conv_old', 'assistant', 'a', 'done', 0);
    INSERT INTO tool_calls (message_id, call_id, tool, params, success, data, error,
                            duration_ms, failure, content, logs, approval)
    VALUES ('msg_a', 'c1', 'weather', '{\"n\": 123456789012345678901234567890}', TRUE,
            'sunny', '', 3, NULL, NULL, '[{\"level\": \"info\", \"message\": \"hi\"}]', NULL),
           ('msg_a', 'c2', 'deploy', '\"go now\"', FALSE, '', 'boom', 9, NULL, NULL, NULL,
            '{\"decision\": \"approved\", \"rule\": \"tools.deploy.approval\"}'),
           ('msg_a', 'c3', 'slow', '{}', NULL, '', '', NULL, NULL, NULL, NULL, NULL);";

/// A SQLite database at `path` as an older Riverse left it: made by the
/// first `steps` migrations, then `rows` inserted.
pub(super) fn sqlite_at_step(path: &std::path::Path, steps: usize, rows: &str) {
    let mut connection = rusqlite::Connection::open(path).unwrap();
    let transaction = connection.transaction().unwrap();
    transaction
        .execute_batch(
            "CREATE TABLE riverse_migrations (
                 version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)",
        )
        .unwrap();
    for &(version, sql) in &migrations::SQLITE[..steps] {
        transaction.execute_batch(sql).unwrap();
        transaction
            .execute(
                "INSERT INTO riverse_migrations VALUES (?1, 0)",
                rusqlite::params![version],
            )
            .unwrap();
    }
    transaction.execute_batch(rows).unwrap();
    transaction.commit().unwrap();
}

/// What [`CALLS_IN_COLUMNS`] reads as once each call is one record.
fn calls_as_records() -> Value {
    json!([
        {"call_id": "c1", "tool": "weather", "params": {"n": 123456789012345678901234567890u128},
         "success": true, "data": "sunny", "error": "", "duration_ms": 3,
         "logs": [{"level": "info", "message": "hi"}]},
        {"call_id": "c2", "tool": "deploy", "params": "go now", "success": false, "data": "",
         "error": "boom", "failure": "tool_error", "duration_ms": 9,
         "approval": {"decision": "approved", "rule": "tools.deploy.approval"}},
        {"call_id": "c3", "tool": "slow", "params": {}, "success": null, "data": "", "error": "",
         "duration_ms": null},
    ])
}

/// A database of the seventh schema, each call's fields in columns of their
/// own: the upgrade writes each call into one record, as the columns read.
#[tokio::test]
async fn calls_stored_in_columns_become_records() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("riverse.db");
    sqlite_at_step(&path, 7, CALLS_IN_COLUMNS);
    let upgraded = Store::Sqlite(SqliteStore::open_with(&path, PATIENT).await.unwrap());
    let calls = answer_of(&upgraded, "conv_old").await.tool_calls;
    assert_eq!(json!(calls), calls_as_records());

    let Some(url) = riverse_test_support::postgres::fresh_postgres_url().await else {
        return;
    };
    let (mut client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    let transaction = client.transaction().await.unwrap();
    transaction
        .batch_execute(
            "CREATE TABLE riverse_migrations (
                 version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)",
        )
        .await
        .unwrap();
    for &(version, sql) in &migrations::POSTGRES[..7] {
        transaction.batch_execute(sql).await.unwrap();
        transaction
            .execute(
                "INSERT INTO riverse_migrations VALUES ($1, 0)",
                &[&(version as i32)],
            )
            .await
            .unwrap();
    }
    transaction.batch_execute(CALLS_IN_COLUMNS).await.unwrap();
    transaction.commit().await.unwrap();
    let upgraded = Store::Postgres(PostgresStore::connect(&url).await.unwrap());
    let calls = answer_of(&upgraded, "conv_old").await.tool_calls;
    assert_eq!(json!(calls), calls_as_records());
}

/// A response of `/v1/responses` as the server keeps it.
fn stored_response(id: &str, previous_id: Option<&str>, said: &str) -> StoredResponse {
    StoredResponse {
        id: id.into(),
        previous_id: previous_id.map(str::to_owned),
        created_at: 1_700_000_000,
        response: json!({"id": id, "object": "response", "status": "completed",
                         "output": [{"type": "message", "content": [{"type": "output_text", "text": said}]}]}),
        items: vec![
            json!({"type": "message", "role": "user", "content": "Weather in Tokyo?"}),
            json!({"type": "mcp_call", "id": "mcp_1", "name": "weather",
                   "arguments": "{\"city\":\"Tokyo\"}", "output": "Tokyo: 21°C, sunny", "error": null}),
            json!({"type": "message", "role": "assistant",
                   "content": [{"type": "output_text", "text": said}]}),
        ],
    }
}

/// What one server keeps, another on the same database reads whole; a
/// response saved again is replaced, and a deleted one is gone.
#[tokio::test]
async fn a_response_is_kept_whole_for_every_server_until_deleted() {
    for database in databases().await {
        let writer = database.open(PATIENT).await;
        let first = stored_response("resp_1", None, "Sunny, «21°C».");
        let second = stored_response("resp_2", Some("resp_1"), "You asked about Tokyo.");
        writer.save_response(&first).await.unwrap();
        writer.save_response(&second).await.unwrap();
        let reader = database.open(PATIENT).await;
        assert_eq!(reader.response("resp_1").await.unwrap(), Some(first));
        assert_eq!(
            reader.response("resp_2").await.unwrap(),
            Some(second.clone())
        );
        assert_eq!(reader.response("resp_none").await.unwrap(), None);
        let replaced = StoredResponse {
            items: Vec::new(),
            ..stored_response("resp_2", Some("resp_1"), "Again.")
        };
        reader.save_response(&replaced).await.unwrap();
        assert_eq!(writer.response("resp_2").await.unwrap(), Some(replaced));
        assert!(reader.delete_response("resp_1").await.unwrap());
        assert!(!writer.delete_response("resp_1").await.unwrap());
        assert_eq!(writer.response("resp_1").await.unwrap(), None);
        assert!(writer.response("resp_2").await.unwrap().is_some());
    }
}

/// A row this store could not have written is an error naming it, not a
/// response with parts missing.
#[tokio::test]
async fn a_stored_response_that_does_not_read_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("riverse.db");
    let store = Store::Sqlite(SqliteStore::open_with(&path, PATIENT).await.unwrap());
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch(
            "INSERT INTO responses (id, previous_id, created_at, response, items)
             VALUES ('resp_bad', NULL, 0, '{\"id\": \"resp_bad\"}', 'not json')",
        )
        .unwrap();
    let err = store.response("resp_bad").await.unwrap_err();
    assert!(
        err.to_string()
            .starts_with("stored response resp_bad does not read: "),
        "{err}"
    );
}

/// What one server keeps for a client call, another on the same database
/// finds by the call's id; keeping again replaces it.
#[tokio::test]
async fn what_a_turn_handed_back_is_found_by_its_first_call() {
    for database in databases().await {
        let writer = database.open(PATIENT).await;
        let own = json!([{"role": "assistant", "calls": [{"id": "m1", "name": "weather"}]},
                         {"role": "tool", "call_id": "m1", "content": "sunny"}]);
        writer.keep_handed_back("call_a", &own).await.unwrap();
        writer
            .keep_handed_back("call_b", &json!(["first"]))
            .await
            .unwrap();
        writer
            .keep_handed_back("call_b", &json!(["again"]))
            .await
            .unwrap();
        let reader = database.open(PATIENT).await;
        let ids = ["call_a", "call_none", "call_b"].map(str::to_owned);
        let mut found = reader.handed_back(&ids).await.unwrap();
        found.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            found,
            vec![
                ("call_a".to_owned(), own.clone()),
                ("call_b".to_owned(), json!(["again"]))
            ]
        );
        assert!(reader.handed_back(&[]).await.unwrap().is_empty());
    }
}

mod schedule_runs;
mod skills;
mod tasks;
