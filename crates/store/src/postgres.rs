//! The PostgreSQL backend, for servers that share conversations.
//!
//! One connection carries every query (tokio-postgres pipelines concurrent
//! ones over it). Each change is one statement, so no transaction has to
//! hold the connection; only the migrations run in one, at connect time,
//! under an advisory lock so that servers starting together apply each step
//! once. A connection that was lost (the database restarted, the network
//! dropped it) is opened again by the next query that needs it.

#[path = "postgres_schedules.rs"]
mod schedules;
#[path = "postgres_tasks.rs"]
mod tasks;

use std::sync::Arc;

use tokio_postgres::{Client, NoTls, Row};

use crate::{
    Conversation, ConversationSummary, HANDED_BACK_KEPT_MILLIS, INTERRUPTED, Liveness,
    MessageStatus, Page, Role, StoreError, StoredMessage, StoredResponse, attach_tool_calls,
    bounded_title, migrations, new_id, now_millis, read_skills, title_from,
};

/// The database's clock in milliseconds since the Unix epoch. Heartbeats
/// are written and judged by it, never by a server's clock, so servers whose
/// clocks drift apart never take each other's live answers for stale.
const DATABASE_NOW: &str = "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT";

/// The advisory lock the migrations take: "riverse" in ASCII.
const MIGRATION_LOCK: i64 = 0x72_69_76_65_72_73_65;

/// Conversations in a PostgreSQL database. Cheap to clone.
#[derive(Clone)]
pub struct PostgresStore {
    connection: Arc<Connection>,
    /// Recorded with each answer this store starts: one per server process.
    owner: Arc<str>,
    liveness: Liveness,
}

impl PostgresStore {
    /// Connects to `url` (`postgres://user:password@host:port/name`),
    /// migrates the schema and fails the answers left interrupted. Errors
    /// name the database, never the password.
    pub async fn connect(url: &str) -> Result<PostgresStore, StoreError> {
        PostgresStore::connect_with(url, Liveness::default()).await
    }

    /// As [`PostgresStore::connect`], with answers kept alive by `liveness`.
    pub async fn connect_with(url: &str, liveness: Liveness) -> Result<PostgresStore, StoreError> {
        let config: tokio_postgres::Config = url.parse().map_err(|err| StoreError::Open {
            path: "the PostgreSQL URL".to_owned(),
            cause: format!("{err}"),
        })?;
        let mut client = open(&config).await?;
        migrate(&mut client).await?;
        let store = PostgresStore {
            connection: Arc::new(Connection {
                config,
                client: tokio::sync::Mutex::new(Arc::new(client)),
            }),
            owner: new_id("owner").into(),
            liveness,
        };
        store.fail_interrupted(None).await?;
        Ok(store)
    }

    pub fn liveness(&self) -> Liveness {
        self.liveness
    }

    pub async fn keep_handed_back(&self, call_id: &str, messages: &str) -> Result<(), StoreError> {
        let client = self.client().await?;
        client
            .execute(
                &format!("DELETE FROM handed_back WHERE created_at < {DATABASE_NOW} - $1"),
                &[&HANDED_BACK_KEPT_MILLIS],
            )
            .await?;
        client
            .execute(
                &format!(
                    "INSERT INTO handed_back (call_id, created_at, messages)
                     VALUES ($1, {DATABASE_NOW}, $2)
                     ON CONFLICT (call_id) DO UPDATE SET created_at = {DATABASE_NOW}, messages = $2"
                ),
                &[&call_id, &messages],
            )
            .await?;
        Ok(())
    }

    pub async fn handed_back(
        &self,
        call_ids: &[String],
    ) -> Result<Vec<(String, String)>, StoreError> {
        let rows = self
            .client()
            .await?
            .query(
                &format!(
                    "SELECT call_id, messages FROM handed_back
                     WHERE call_id = ANY($1) AND created_at >= {DATABASE_NOW} - $2"
                ),
                &[&call_ids, &HANDED_BACK_KEPT_MILLIS],
            )
            .await?;
        Ok(rows.iter().map(|row| (row.get(0), row.get(1))).collect())
    }

    /// Whether the database answers, reconnecting first if needed.
    pub async fn ping(&self) -> Result<(), StoreError> {
        self.client().await?.simple_query("SELECT 1").await?;
        Ok(())
    }

    /// The connection, opened again if it was lost.
    async fn client(&self) -> Result<Arc<Client>, StoreError> {
        let mut client = self.connection.client.lock().await;
        if client.is_closed() {
            *client = Arc::new(open(&self.connection.config).await?);
            tracing::info!("reconnected to {}", describe(&self.connection.config));
        }
        Ok(client.clone())
    }

    /// Refreshes the heartbeat of a running answer this store started.
    pub async fn beat(&self, message_id: &str) -> Result<(), StoreError> {
        self.client()
            .await?
            .execute(
                &format!(
                    "UPDATE messages SET heartbeat_at = {DATABASE_NOW}
                     WHERE id = $1 AND owner = $2 AND status = 'running'"
                ),
                &[&message_id, &&*self.owner],
            )
            .await?;
        Ok(())
    }

    /// Marks failed the running answers (of one conversation, or all) whose
    /// heartbeat is stale, and their unfinished tool calls, in one
    /// statement. Two servers doing it at once fail each answer once: the
    /// second finds it no longer running.
    pub async fn fail_interrupted(&self, conversation: Option<&str>) -> Result<u64, StoreError> {
        let row = self
            .client()
            .await?
            .query_one(
                &format!(
                    "WITH failed AS (
                         UPDATE messages SET status = 'failed', error = $1
                         WHERE status = 'running'
                             AND COALESCE(heartbeat_at, 0) < {DATABASE_NOW} - $2
                             AND ($3::TEXT IS NULL OR conversation_id = $3)
                         RETURNING id),
                     calls AS (
                         UPDATE tool_calls
                         SET record = (record::jsonb || jsonb_build_object(
                             'success', FALSE, 'error', $1::TEXT, 'failure', 'crashed'))::TEXT
                         WHERE (record::jsonb -> 'success') = 'null'::jsonb
                             AND message_id IN (SELECT id FROM failed))
                     SELECT COUNT(*) FROM failed"
                ),
                &[&INTERRUPTED, &self.liveness.stale_millis(), &conversation],
            )
            .await?;
        let failed = row.get::<_, i64>(0).max(0) as u64;
        if failed > 0 {
            tracing::warn!("marked {failed} interrupted answers failed");
        }
        Ok(failed)
    }

    pub async fn create_conversation(&self) -> Result<ConversationSummary, StoreError> {
        let now = now_millis();
        let summary = ConversationSummary {
            id: new_id("conv"),
            title: String::new(),
            created_at: now,
            updated_at: now,
            schedule: None,
        };
        self.client().await?
            .execute(
                "INSERT INTO conversations (id, title, created_at, updated_at) VALUES ($1, $2, $3, $3)",
                &[&summary.id, &summary.title, &now],
            )
            .await?;
        Ok(summary)
    }

    pub async fn list_conversations(
        &self,
        limit: usize,
        offset: usize,
    ) -> Result<Page, StoreError> {
        let limit = limit.clamp(1, crate::MAX_PAGE);
        let offset = i64::try_from(offset).unwrap_or(i64::MAX);
        self.fail_interrupted(None).await?;
        let rows = self
            .client()
            .await?
            .query(
                "SELECT id, title, created_at, updated_at, schedule FROM conversations
                 ORDER BY updated_at DESC, id LIMIT $1 OFFSET $2",
                &[&(limit as i64 + 1), &offset],
            )
            .await?;
        let mut conversations: Vec<ConversationSummary> = rows.iter().map(summary_row).collect();
        let has_more = conversations.len() > limit;
        conversations.truncate(limit);
        Ok(Page {
            conversations,
            has_more,
        })
    }

    pub async fn conversation(&self, id: &str) -> Result<Option<Conversation>, StoreError> {
        self.fail_interrupted(Some(id)).await?;
        let Some(row) = self
            .client()
            .await?
            .query_opt(
                "SELECT id, title, created_at, updated_at, schedule FROM conversations WHERE id = $1",
                &[&id],
            )
            .await?
        else {
            return Ok(None);
        };
        let summary = summary_row(&row);
        let mut messages: Vec<StoredMessage> = self
            .client()
            .await?
            .query(
                "SELECT id, role, content, status, error, created_at, skills FROM messages
                 WHERE conversation_id = $1 ORDER BY seq",
                &[&id],
            )
            .await?
            .iter()
            .map(|row| StoredMessage {
                id: row.get(0),
                role: Role::parse(row.get(1)),
                content: row.get(2),
                status: MessageStatus::parse(row.get(3)),
                error: row.get(4),
                created_at: row.get(5),
                tool_calls: Vec::new(),
                skills: read_skills(row.get(6)),
            })
            .collect();
        let calls = self
            .client()
            .await?
            .query(
                "SELECT t.message_id, t.record
                 FROM tool_calls t JOIN messages m ON m.id = t.message_id
                 WHERE m.conversation_id = $1 ORDER BY t.seq",
                &[&id],
            )
            .await?
            .iter()
            .map(|row| (row.get(0), row.get(1)))
            .collect();
        attach_tool_calls(&mut messages, calls);
        Ok(Some(Conversation { summary, messages }))
    }

    pub async fn rename_conversation(&self, id: &str, title: &str) -> Result<bool, StoreError> {
        let changed = self
            .client()
            .await?
            .execute(
                "UPDATE conversations SET title = $2 WHERE id = $1",
                &[&id, &bounded_title(title)],
            )
            .await?;
        Ok(changed > 0)
    }

    pub async fn delete_conversation(&self, id: &str) -> Result<bool, StoreError> {
        let deleted = self
            .client()
            .await?
            .execute("DELETE FROM conversations WHERE id = $1", &[&id])
            .await?;
        Ok(deleted > 0)
    }

    pub async fn add_message(
        &self,
        conversation_id: &str,
        role: Role,
        content: &str,
        status: MessageStatus,
    ) -> Result<Option<String>, StoreError> {
        let now = now_millis();
        let title = match role {
            Role::User => title_from(content),
            Role::Assistant => String::new(),
        };
        let id = new_id("msg");
        let owner = (status == MessageStatus::Running).then_some(&*self.owner);
        // One statement: the conversation is touched and the message added
        // together, or neither when the conversation is gone.
        let row = self
            .client()
            .await?
            .query_opt(
                &format!(
                    "WITH touched AS (
                         UPDATE conversations SET updated_at = GREATEST(updated_at, $2),
                             title = CASE WHEN title = '' THEN $3 ELSE title END
                         WHERE id = $1 RETURNING id)
                     INSERT INTO messages
                         (id, conversation_id, role, content, status, created_at, owner, heartbeat_at)
                     SELECT $4, id, $5, $6, $7, $2, $8::TEXT,
                         CASE WHEN $8::TEXT IS NULL THEN NULL ELSE {DATABASE_NOW} END
                     FROM touched RETURNING id"
                ),
                &[
                    &conversation_id,
                    &now,
                    &title,
                    &id,
                    &role.as_str(),
                    &content,
                    &status.as_str(),
                    &owner,
                ],
            )
            .await?;
        Ok(row.map(|row| row.get(0)))
    }

    pub async fn finish_message(
        &self,
        message_id: &str,
        content: &str,
        status: MessageStatus,
        error: Option<&str>,
    ) -> Result<(), StoreError> {
        self.client()
            .await?
            .execute(
                "UPDATE messages SET content = $2, status = $3, error = $4 WHERE id = $1",
                &[&message_id, &content, &status.as_str(), &error],
            )
            .await?;
        Ok(())
    }

    /// Sets an answer's skills, a JSON array or NULL.
    pub async fn keep_skills(
        &self,
        message_id: &str,
        skills: Option<&str>,
    ) -> Result<(), StoreError> {
        self.client()
            .await?
            .execute(
                "UPDATE messages SET skills = $2 WHERE id = $1",
                &[&message_id, &skills],
            )
            .await?;
        Ok(())
    }

    /// Records a call as it stands now; one recorded as ended stays so.
    pub async fn record_tool_call(
        &self,
        message_id: &str,
        call_id: &str,
        record: &str,
    ) -> Result<(), StoreError> {
        self.client()
            .await?
            .execute(
                "INSERT INTO tool_calls (message_id, call_id, record) VALUES ($1, $2, $3)
                 ON CONFLICT (message_id, call_id) DO UPDATE SET record = excluded.record
                 WHERE (tool_calls.record::jsonb -> 'success') = 'null'::jsonb",
                &[&message_id, &call_id, &record],
            )
            .await?;
        Ok(())
    }

    pub async fn save_response(&self, response: &StoredResponse) -> Result<(), StoreError> {
        let (text, items) = response.json_columns();
        self.client()
            .await?
            .execute(
                "INSERT INTO responses (id, previous_id, created_at, response, items)
                 VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (id) DO UPDATE SET previous_id = $2, created_at = $3,
                     response = $4, items = $5",
                &[
                    &response.id,
                    &response.previous_id,
                    &response.created_at,
                    &text,
                    &items,
                ],
            )
            .await?;
        Ok(())
    }

    pub async fn response(&self, id: &str) -> Result<Option<StoredResponse>, StoreError> {
        let Some(row) = self
            .client()
            .await?
            .query_opt(
                "SELECT id, previous_id, created_at, response, items FROM responses WHERE id = $1",
                &[&id],
            )
            .await?
        else {
            return Ok(None);
        };
        StoredResponse::from_row(row.get(0), row.get(1), row.get(2), row.get(3), row.get(4))
            .map(Some)
    }

    pub async fn delete_response(&self, id: &str) -> Result<bool, StoreError> {
        let deleted = self
            .client()
            .await?
            .execute("DELETE FROM responses WHERE id = $1", &[&id])
            .await?;
        Ok(deleted > 0)
    }
}

fn summary_row(row: &Row) -> ConversationSummary {
    ConversationSummary {
        id: row.get(0),
        title: row.get(1),
        created_at: row.get(2),
        updated_at: row.get(3),
        schedule: row.get(4),
    }
}

/// `PostgreSQL database NAME on HOST`, for errors: no user, no password.
fn describe(config: &tokio_postgres::Config) -> String {
    let name = config.get_dbname().unwrap_or("(default)");
    let host = config
        .get_hosts()
        .first()
        .map(|host| match host {
            tokio_postgres::config::Host::Tcp(name) => name.clone(),
            tokio_postgres::config::Host::Unix(path) => path.display().to_string(),
        })
        .unwrap_or_else(|| "localhost".to_owned());
    format!("PostgreSQL database {name} on {host}")
}

/// Where a store connects, and the connection it holds.
struct Connection {
    config: tokio_postgres::Config,
    client: tokio::sync::Mutex<Arc<Client>>,
}

/// A new connection to `config`'s database, driven by a task of its own.
async fn open(config: &tokio_postgres::Config) -> Result<Client, StoreError> {
    let described = describe(config);
    let (client, connection) = config
        .connect(NoTls)
        .await
        .map_err(|err| StoreError::Open {
            path: described.clone(),
            cause: err.to_string(),
        })?;
    tokio::spawn(async move {
        if let Err(err) = connection.await {
            tracing::error!("lost the connection to {described}: {err}");
        }
    });
    Ok(client)
}

async fn migrate(client: &mut Client) -> Result<(), StoreError> {
    let failed = |version: u32| {
        move |err: tokio_postgres::Error| StoreError::Migration {
            version,
            cause: err.to_string(),
        }
    };
    let transaction = client.transaction().await.map_err(failed(0))?;
    transaction
        .execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(failed(0))?;
    transaction
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS riverse_migrations (
                 version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)",
        )
        .await
        .map_err(failed(0))?;
    for &(version, sql) in migrations::POSTGRES {
        let number = i32::try_from(version).unwrap_or(i32::MAX);
        let applied = transaction
            .query_opt(
                "SELECT 1 FROM riverse_migrations WHERE version = $1",
                &[&number],
            )
            .await
            .map_err(failed(version))?
            .is_some();
        if !applied {
            transaction
                .batch_execute(sql)
                .await
                .map_err(failed(version))?;
            transaction
                .execute(
                    "INSERT INTO riverse_migrations (version, applied_at) VALUES ($1, $2)",
                    &[&number, &now_millis()],
                )
                .await
                .map_err(failed(version))?;
        }
    }
    transaction.commit().await.map_err(failed(0))?;
    Ok(())
}
