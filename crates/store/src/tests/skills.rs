//! The skills an answer's turn applied, kept with the answer.

use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

#[tokio::test]
async fn an_answer_keeps_the_skills_its_turn_applied() {
    for (_dir, store) in stores().await {
        let (conversation, answer) = running_answer(&store).await;
        let skills = vec![
            json!({"name": "explain_code", "trigger": "keyword"}),
            json!({"name": "packing", "trigger": "explicit",
                   "run": {"steps": [{"tool": "weather", "ok": true}]}}),
        ];
        store.keep_skills(&answer, &skills).await.unwrap();
        store
            .finish_message(&answer, "done", MessageStatus::Done, None)
            .await
            .unwrap();
        let stored = answer_of(&store, &conversation).await;
        assert_eq!(stored.skills, skills);
        let shown = serde_json::to_value(&stored).unwrap();
        assert_eq!(shown["skills"], json!(skills));
        store.keep_skills(&answer, &[]).await.unwrap();
        assert_eq!(
            answer_of(&store, &conversation).await.skills,
            Vec::<Value>::new()
        );
    }
}

#[tokio::test]
async fn an_answer_without_skills_shows_none() {
    for (_dir, store) in stores().await {
        let (conversation, answer) = running_answer(&store).await;
        store
            .finish_message(&answer, "plain", MessageStatus::Done, None)
            .await
            .unwrap();
        let stored = answer_of(&store, &conversation).await;
        assert!(stored.skills.is_empty());
        let shown = serde_json::to_value(&stored).unwrap();
        assert!(shown.get("skills").is_none(), "{shown}");
        let conversation = store.conversation(&conversation).await.unwrap().unwrap();
        let question = serde_json::to_value(&conversation.messages[0]).unwrap();
        assert!(question.get("skills").is_none(), "{question}");
    }
}

/// A database of the eighth schema, with an answer: the upgrade keeps it,
/// with no skills, and a damaged skills value reads as none.
#[tokio::test]
async fn an_answer_stored_before_skills_were_reads_with_none() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("riverse.db");
    sqlite_at_step(
        &path,
        8,
        "INSERT INTO conversations VALUES ('conv_old', 'old', 0, 0);
                 INSERT INTO messages (id, conversation_id, role, content, status, created_at)
                 VALUES ('msg_q', 'conv_old', 'user', 'q', 'done', 0),
                        ('msg_a', 'conv_old', 'assistant', 'a', 'done', 0);",
    );
    let upgraded = Store::Sqlite(SqliteStore::open_with(&path, PATIENT).await.unwrap());
    let answer = answer_of(&upgraded, "conv_old").await;
    assert_eq!((answer.content.as_str(), answer.skills.len()), ("a", 0));
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute(
            "UPDATE messages SET skills = '{\"not\": 1}' WHERE id = 'msg_a'",
            [],
        )
        .unwrap();
    assert!(answer_of(&upgraded, "conv_old").await.skills.is_empty());
}
