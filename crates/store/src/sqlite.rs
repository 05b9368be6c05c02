//! The SQLite backend: one connection in WAL mode, used from blocking
//! threads so the async runtime never waits on the disk.

#[path = "sqlite_schedules.rs"]
mod schedules;
#[path = "sqlite_tasks.rs"]
mod tasks;

use std::path::Path;
use std::sync::Arc;

use parking_lot::Mutex;

use rusqlite::{Connection, OptionalExtension, params};

use crate::{
    Conversation, ConversationSummary, HANDED_BACK_KEPT_MILLIS, INTERRUPTED, Liveness,
    MessageStatus, Page, Role, StoreError, StoredMessage, StoredResponse, attach_tool_calls,
    bounded_title, migrations, new_id, now_millis, read_skills, title_from,
};

/// How long a statement waits for a lock held by another process (another
/// server on the same file) before failing.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Conversations in one SQLite file. Cheap to clone.
#[derive(Clone)]
pub struct SqliteStore {
    connection: Arc<Mutex<Connection>>,
    /// Recorded with each answer this store starts: one per server process.
    owner: Arc<str>,
    liveness: Liveness,
}

impl SqliteStore {
    /// Opens (creating it and its directory if needed) and migrates the
    /// database at `path`, and fails the answers left interrupted.
    pub async fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        SqliteStore::open_with(path, Liveness::default()).await
    }

    /// As [`SqliteStore::open`], with answers kept alive by `liveness`.
    pub async fn open_with(path: &Path, liveness: Liveness) -> Result<SqliteStore, StoreError> {
        let path = path.to_owned();
        let opened = tokio::task::spawn_blocking(move || {
            let failed = |cause: String| StoreError::Open {
                path: path.display().to_string(),
                cause,
            };
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|err| failed(err.to_string()))?;
            }
            let connection = Connection::open(&path).map_err(|err| failed(err.to_string()))?;
            prepare(connection).map_err(|err| failed(err.to_string()))
        })
        .await
        .map_err(|err| StoreError::Task(err.to_string()))??;
        let store = SqliteStore {
            connection: Arc::new(Mutex::new(opened)),
            owner: new_id("owner").into(),
            liveness,
        };
        store.run(migrate).await?;
        store.fail_interrupted(None).await?;
        Ok(store)
    }

    pub fn liveness(&self) -> Liveness {
        self.liveness
    }

    pub async fn keep_handed_back(&self, call_id: &str, messages: &str) -> Result<(), StoreError> {
        let (call_id, messages) = (call_id.to_owned(), messages.to_owned());
        self.run(move |connection| {
            let now = now_millis();
            connection.execute(
                "DELETE FROM handed_back WHERE created_at < ?1",
                params![now - HANDED_BACK_KEPT_MILLIS],
            )?;
            connection.execute(
                "INSERT OR REPLACE INTO handed_back (call_id, created_at, messages)
                 VALUES (?1, ?2, ?3)",
                params![call_id, now, messages],
            )?;
            Ok(())
        })
        .await
    }

    pub async fn handed_back(
        &self,
        call_ids: &[String],
    ) -> Result<Vec<(String, String)>, StoreError> {
        let call_ids = call_ids.to_vec();
        self.run(move |connection| {
            let since = now_millis() - HANDED_BACK_KEPT_MILLIS;
            let mut query = connection.prepare_cached(
                "SELECT call_id, messages FROM handed_back WHERE call_id = ?1 AND created_at >= ?2",
            )?;
            let mut found = Vec::new();
            for call_id in &call_ids {
                let row = query
                    .query_row(params![call_id, since], |row| {
                        Ok((row.get(0)?, row.get(1)?))
                    })
                    .optional()?;
                found.extend(row);
            }
            Ok(found)
        })
        .await
    }

    /// Whether the database file answers a query.
    pub async fn ping(&self) -> Result<(), StoreError> {
        self.run(|connection| {
            connection.query_row("SELECT 1", [], |_| Ok(()))?;
            Ok(())
        })
        .await
    }

    /// Refreshes the heartbeat of a running answer this store started.
    pub async fn beat(&self, message_id: &str) -> Result<(), StoreError> {
        let (message_id, owner) = (message_id.to_owned(), self.owner.clone());
        self.run(move |connection| {
            connection.execute(
                "UPDATE messages SET heartbeat_at = ?3
                 WHERE id = ?1 AND owner = ?2 AND status = 'running'",
                params![message_id, &*owner, now_millis()],
            )?;
            Ok(())
        })
        .await
    }

    /// Marks failed the running answers (of one conversation, or all) whose
    /// heartbeat is stale, and their unfinished tool calls.
    pub async fn fail_interrupted(&self, conversation: Option<&str>) -> Result<u64, StoreError> {
        let conversation = conversation.map(str::to_owned);
        let stale_millis = self.liveness.stale_millis();
        self.run(move |connection| {
            let bound = now_millis().saturating_sub(stale_millis);
            fail_stale_answers(connection, bound, conversation.as_deref())
        })
        .await
    }

    /// Runs `job` on the connection on a blocking thread.
    async fn run<T, F>(&self, job: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let connection = self.connection.clone();
        tokio::task::spawn_blocking(move || {
            // A job that panicked left no half-done transaction behind
            // (rusqlite rolls back on drop), so the connection stays usable.
            let mut connection = connection.lock();
            job(&mut connection)
        })
        .await
        .map_err(|err| StoreError::Task(err.to_string()))?
    }

    pub async fn create_conversation(&self) -> Result<ConversationSummary, StoreError> {
        self.run(|connection| {
            let now = now_millis();
            let summary = ConversationSummary {
                id: new_id("conv"),
                title: String::new(),
                created_at: now,
                updated_at: now,
                schedule: None,
            };
            connection.execute(
                "INSERT INTO conversations (id, title, created_at, updated_at) VALUES (?1, ?2, ?3, ?3)",
                params![summary.id, summary.title, now],
            )?;
            Ok(summary)
        })
        .await
    }

    /// Newest first (by last change); `limit` is capped at [`crate::MAX_PAGE`].
    pub async fn list_conversations(
        &self,
        limit: usize,
        offset: usize,
    ) -> Result<Page, StoreError> {
        let limit = limit.clamp(1, crate::MAX_PAGE);
        let offset = i64::try_from(offset).unwrap_or(i64::MAX);
        self.fail_interrupted(None).await?;
        self.run(move |connection| {
            let mut statement = connection.prepare_cached(
                "SELECT id, title, created_at, updated_at, schedule FROM conversations
                 ORDER BY updated_at DESC, id LIMIT ?1 OFFSET ?2",
            )?;
            let mut conversations = statement
                .query_map(params![limit as i64 + 1, offset], summary_row)?
                .collect::<Result<Vec<_>, _>>()?;
            let has_more = conversations.len() > limit;
            conversations.truncate(limit);
            Ok(Page {
                conversations,
                has_more,
            })
        })
        .await
    }

    /// The conversation and every message, each with its tool calls.
    pub async fn conversation(&self, id: &str) -> Result<Option<Conversation>, StoreError> {
        self.fail_interrupted(Some(id)).await?;
        let id = id.to_owned();
        self.run(move |connection| {
            let transaction = connection.transaction()?;
            let summary = transaction
                .query_row(
                    "SELECT id, title, created_at, updated_at, schedule FROM conversations WHERE id = ?1",
                    params![id],
                    summary_row,
                )
                .optional()?;
            let Some(summary) = summary else {
                return Ok(None);
            };
            let mut messages = {
                let mut statement = transaction.prepare_cached(
                    "SELECT id, role, content, status, error, created_at, skills FROM messages
                     WHERE conversation_id = ?1 ORDER BY seq",
                )?;
                statement
                    .query_map(params![id], |row| {
                        Ok(StoredMessage {
                            id: row.get(0)?,
                            role: Role::parse(&row.get::<_, String>(1)?),
                            content: row.get(2)?,
                            status: MessageStatus::parse(&row.get::<_, String>(3)?),
                            error: row.get(4)?,
                            created_at: row.get(5)?,
                            tool_calls: Vec::new(),
                            skills: read_skills(row.get(6)?),
                        })
                    })?
                    .collect::<Result<Vec<_>, _>>()?
            };
            let calls = {
                let mut statement = transaction.prepare_cached(
                    "SELECT t.message_id, t.record
                     FROM tool_calls t JOIN messages m ON m.id = t.message_id
                     WHERE m.conversation_id = ?1 ORDER BY t.seq",
                )?;
                statement
                    .query_map(params![id], |row| Ok((row.get(0)?, row.get(1)?)))?
                    .collect::<Result<Vec<_>, _>>()?
            };
            attach_tool_calls(&mut messages, calls);
            Ok(Some(Conversation { summary, messages }))
        })
        .await
    }

    /// `false` when there is no such conversation.
    pub async fn rename_conversation(&self, id: &str, title: &str) -> Result<bool, StoreError> {
        let (id, title) = (id.to_owned(), bounded_title(title));
        self.run(move |connection| {
            let changed = connection.execute(
                "UPDATE conversations SET title = ?2 WHERE id = ?1",
                params![id, title],
            )?;
            Ok(changed > 0)
        })
        .await
    }

    /// `false` when there is no such conversation.
    pub async fn delete_conversation(&self, id: &str) -> Result<bool, StoreError> {
        let id = id.to_owned();
        self.run(move |connection| {
            let deleted =
                connection.execute("DELETE FROM conversations WHERE id = ?1", params![id])?;
            Ok(deleted > 0)
        })
        .await
    }

    /// Adds a message and returns its id, or `None` when there is no such
    /// conversation. The first user message titles an untitled conversation.
    pub async fn add_message(
        &self,
        conversation_id: &str,
        role: Role,
        content: &str,
        status: MessageStatus,
    ) -> Result<Option<String>, StoreError> {
        let (conversation_id, content) = (conversation_id.to_owned(), content.to_owned());
        let owner = self.owner.clone();
        self.run(move |connection| {
            let transaction = connection.transaction()?;
            let now = now_millis();
            let title = match role {
                Role::User => title_from(&content),
                Role::Assistant => String::new(),
            };
            let touched = transaction.execute(
                "UPDATE conversations SET updated_at = MAX(updated_at, ?2),
                     title = CASE WHEN title = '' THEN ?3 ELSE title END
                 WHERE id = ?1",
                params![conversation_id, now, title],
            )?;
            if touched == 0 {
                return Ok(None);
            }
            let id = new_id("msg");
            let owner = (status == MessageStatus::Running).then_some(&*owner);
            transaction.execute(
                "INSERT INTO messages
                     (id, conversation_id, role, content, status, created_at, owner, heartbeat_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, CASE WHEN ?7 IS NULL THEN NULL ELSE ?6 END)",
                params![
                    id,
                    conversation_id,
                    role.as_str(),
                    content,
                    status.as_str(),
                    now,
                    owner
                ],
            )?;
            transaction.commit()?;
            Ok(Some(id))
        })
        .await
    }

    /// Sets a message's final text and status.
    pub async fn finish_message(
        &self,
        message_id: &str,
        content: &str,
        status: MessageStatus,
        error: Option<&str>,
    ) -> Result<(), StoreError> {
        let (message_id, content) = (message_id.to_owned(), content.to_owned());
        let error = error.map(str::to_owned);
        self.run(move |connection| {
            connection.execute(
                "UPDATE messages SET content = ?2, status = ?3, error = ?4 WHERE id = ?1",
                params![message_id, content, status.as_str(), error],
            )?;
            Ok(())
        })
        .await
    }

    /// Sets an answer's skills, a JSON array or NULL.
    pub async fn keep_skills(
        &self,
        message_id: &str,
        skills: Option<&str>,
    ) -> Result<(), StoreError> {
        let (message_id, skills) = (message_id.to_owned(), skills.map(str::to_owned));
        self.run(move |connection| {
            connection.execute(
                "UPDATE messages SET skills = ?2 WHERE id = ?1",
                params![message_id, skills],
            )?;
            Ok(())
        })
        .await
    }

    /// Records a call as it stands now; one recorded as ended stays so.
    pub async fn record_tool_call(
        &self,
        message_id: &str,
        call_id: &str,
        record: &str,
    ) -> Result<(), StoreError> {
        let (message_id, call_id, record) =
            (message_id.to_owned(), call_id.to_owned(), record.to_owned());
        self.run(move |connection| {
            connection.execute(
                "INSERT INTO tool_calls (message_id, call_id, record) VALUES (?1, ?2, ?3)
                 ON CONFLICT (message_id, call_id) DO UPDATE SET record = excluded.record
                 WHERE json_extract(tool_calls.record, '$.success') IS NULL",
                params![message_id, call_id, record],
            )?;
            Ok(())
        })
        .await
    }

    pub async fn save_response(&self, response: &StoredResponse) -> Result<(), StoreError> {
        let (text, items) = response.json_columns();
        let (id, previous_id, created_at) = (
            response.id.clone(),
            response.previous_id.clone(),
            response.created_at,
        );
        self.run(move |connection| {
            connection.execute(
                "INSERT OR REPLACE INTO responses (id, previous_id, created_at, response, items)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![id, previous_id, created_at, text, items],
            )?;
            Ok(())
        })
        .await
    }

    pub async fn response(&self, id: &str) -> Result<Option<StoredResponse>, StoreError> {
        let id = id.to_owned();
        self.run(move |connection| {
            let row = connection
                .query_row(
                    "SELECT id, previous_id, created_at, response, items FROM responses
                     WHERE id = ?1",
                    params![id],
                    |row| {
                        Ok((
                            row.get::<_, String>(0)?,
                            row.get::<_, Option<String>>(1)?,
                            row.get::<_, i64>(2)?,
                            row.get::<_, String>(3)?,
                            row.get::<_, String>(4)?,
                        ))
                    },
                )
                .optional()?;
            row.map(|(id, previous_id, created_at, response, items)| {
                StoredResponse::from_row(id, previous_id, created_at, &response, &items)
            })
            .transpose()
        })
        .await
    }

    /// `false` when there is no such response.
    pub async fn delete_response(&self, id: &str) -> Result<bool, StoreError> {
        let id = id.to_owned();
        self.run(move |connection| {
            let deleted = connection.execute("DELETE FROM responses WHERE id = ?1", params![id])?;
            Ok(deleted > 0)
        })
        .await
    }
}

/// The stale running answers (heartbeat before `bound`, in one
/// conversation or any) failed with their unfinished tool calls, in one
/// transaction; how many answers. A read that finds none writes nothing, so
/// reading never waits on another server's write lock for nothing.
fn fail_stale_answers(
    connection: &mut Connection,
    bound: i64,
    conversation: Option<&str>,
) -> Result<u64, StoreError> {
    const STALE: &str = "status = 'running' AND COALESCE(heartbeat_at, 0) < ?1
         AND (?2 IS NULL OR conversation_id = ?2)";
    let any: bool = connection.query_row(
        &format!("SELECT EXISTS (SELECT 1 FROM messages WHERE {STALE})"),
        params![bound, conversation],
        |row| row.get(0),
    )?;
    if !any {
        return Ok(0);
    }
    let transaction =
        connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    transaction.execute(
        &format!(
            "UPDATE tool_calls
             SET record = json_set(record, '$.success', json('false'), '$.error', ?3,
                                   '$.failure', 'crashed')
             WHERE json_extract(record, '$.success') IS NULL
                 AND message_id IN (SELECT id FROM messages WHERE {STALE})"
        ),
        params![bound, conversation, INTERRUPTED],
    )?;
    let failed = transaction.execute(
        &format!("UPDATE messages SET status = 'failed', error = ?3 WHERE {STALE}"),
        params![bound, conversation, INTERRUPTED],
    )?;
    transaction.commit()?;
    if failed > 0 {
        tracing::warn!("marked {failed} interrupted answers failed");
    }
    Ok(failed as u64)
}

fn summary_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<ConversationSummary> {
    Ok(ConversationSummary {
        id: row.get(0)?,
        title: row.get(1)?,
        created_at: row.get(2)?,
        updated_at: row.get(3)?,
        schedule: row.get(4)?,
    })
}

fn prepare(connection: Connection) -> rusqlite::Result<Connection> {
    connection.busy_timeout(BUSY_TIMEOUT)?;
    // WAL lets readers go on while a turn writes; NORMAL sync is safe with
    // WAL (a power cut may lose the last commits, never corrupt the file).
    connection.pragma_update(None, "journal_mode", "WAL")?;
    connection.pragma_update(None, "synchronous", "NORMAL")?;
    connection.pragma_update(None, "foreign_keys", "ON")?;
    Ok(connection)
}

/// Applies the steps not yet recorded, each in its own transaction.
fn migrate(connection: &mut Connection) -> Result<(), StoreError> {
    connection.execute_batch(
        "CREATE TABLE IF NOT EXISTS riverse_migrations (
             version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)",
    )?;
    for &(version, sql) in migrations::SQLITE {
        let failed = |err: rusqlite::Error| StoreError::Migration {
            version,
            cause: err.to_string(),
        };
        // IMMEDIATE takes the write lock first, so two servers opening one
        // new file don't both apply a step.
        let transaction = connection
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(failed)?;
        let applied: bool = transaction
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM riverse_migrations WHERE version = ?1)",
                params![version],
                |row| row.get(0),
            )
            .map_err(failed)?;
        if !applied {
            transaction.execute_batch(sql).map_err(failed)?;
            transaction
                .execute(
                    "INSERT INTO riverse_migrations (version, applied_at) VALUES (?1, ?2)",
                    params![version, now_millis()],
                )
                .map_err(failed)?;
        }
        transaction.commit().map_err(failed)?;
    }
    Ok(())
}
