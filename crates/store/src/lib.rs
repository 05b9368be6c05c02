//! Riverse's conversations, as `riverse serve` keeps them.
//!
//! A [`Store`] holds [`Conversation`]s: their [`StoredMessage`]s in order,
//! and each answer's tool calls, each one [`CallRecord`] (with its content
//! blocks, log lines and approval) kept whole as JSON. Every change is written as it
//! happens (the user's message, each tool call as it starts and ends, the
//! answer), so a turn cut short by a crash keeps what it did. The schema is
//! created and upgraded by versioned migrations on open.
//!
//! It also keeps the responses of `/v1/responses` ([`StoredResponse`]):
//! each response object whole, with the conversation it ends as Responses
//! input items, for the requests that go on from it.
//!
//! And the runs of schedules ([`ScheduleRun`]): one row per run, claimed by
//! schedule and tick so that servers sharing a database run each tick once,
//! kept alive by heartbeats like answers; a schedule's own conversation is
//! marked with its name ([`ConversationSummary::schedule`]).
//!
//! And background tasks ([`Task`]): tool calls that outlived their turn,
//! owned and kept alive by heartbeats as answers are (the `tasks` module).
//!
//! Two backends: [`SqliteStore`] (`.riverse/riverse.db` in the project, WAL
//! mode) and [`PostgresStore`]. Neither keeps conversation state in memory
//! between calls, so any number of servers can share one PostgreSQL database.
//!
//! An answer in flight is owned: it records the id of the store that started
//! it (one per server process) and a heartbeat time, which its server
//! refreshes ([`Store::beat`]) every [`Liveness::heartbeat`]. An answer whose
//! heartbeat is older than [`Liveness::stale_after`] belongs to a server that
//! stopped without finishing it (killed, or its machine lost): it is marked
//! failed, with its unfinished tool calls, when a store opens and whenever the
//! conversation is read or the list is read. A live server's answers, on any
//! machine, keep beating and are never taken.

mod migrations;
mod postgres;
mod schedule_runs;
mod sqlite;
mod tasks;

use std::time::Duration;

use riverse_tool::{CallRecord, FailureKind};
use serde::Serialize;
use serde_json::Value;

pub use postgres::PostgresStore;
pub use schedule_runs::{Claim, RunKind, RunStatus, ScheduleRun};
pub use sqlite::SqliteStore;
pub use tasks::{NewTask, TASK_INTERRUPTED, Task, TaskState};

/// The most conversations one listing returns.
pub const MAX_PAGE: usize = 100;

/// The longest title a conversation may have, in characters: with
/// [`MAX_PAGE`], a list page weighs at most about 100 KB of titles.
pub const MAX_TITLE_CHARS: usize = 200;

/// Why an answer whose server stopped (or lost the database) mid-turn
/// failed, and what its unfinished tool calls say.
pub const INTERRUPTED: &str = "interrupted: the server stopped";

/// How a server shows that its answers in flight are still alive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Liveness {
    /// How often a running answer's heartbeat is refreshed.
    pub heartbeat: Duration,
    /// How old a running answer's heartbeat may grow before the answer is
    /// taken for interrupted. Several missed beats, so that a slow database
    /// or a busy machine does not fail a live turn.
    pub stale_after: Duration,
}

/// The interval between heartbeats of a running answer.
pub const HEARTBEAT_INTERVAL: Duration = Duration::from_secs(10);

/// Three missed heartbeats: an answer silent that long is interrupted.
pub const STALE_AFTER: Duration = Duration::from_secs(30);

impl Default for Liveness {
    fn default() -> Liveness {
        Liveness {
            heartbeat: HEARTBEAT_INTERVAL,
            stale_after: STALE_AFTER,
        }
    }
}

impl Liveness {
    /// The stale bound in milliseconds, as the databases compare it.
    fn stale_millis(self) -> i64 {
        i64::try_from(self.stale_after.as_millis()).unwrap_or(i64::MAX)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("can't open the conversation database {path}: {cause}")]
    Open { path: String, cause: String },
    #[error("conversation database migration {version} failed: {cause}")]
    Migration { version: u32, cause: String },
    #[error("conversation database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("conversation database: {0}")]
    Postgres(#[from] tokio_postgres::Error),
    #[error("conversation database task stopped: {0}")]
    Task(String),
    #[error("stored response {id} does not read: {cause}")]
    UnreadableResponse { id: String, cause: String },
    #[error("tool call {call_id} can't be written: {cause}")]
    UnwritableCall { call_id: String, cause: String },
}

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

impl Role {
    fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }

    fn parse(text: &str) -> Role {
        match text {
            "user" => Role::User,
            _ => Role::Assistant,
        }
    }
}

/// Where an answer stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MessageStatus {
    /// The turn is running (until its server's heartbeat goes stale).
    Running,
    Done,
    Failed,
}

impl MessageStatus {
    fn as_str(self) -> &'static str {
        match self {
            MessageStatus::Running => "running",
            MessageStatus::Done => "done",
            MessageStatus::Failed => "failed",
        }
    }

    fn parse(text: &str) -> MessageStatus {
        match text {
            "running" => MessageStatus::Running,
            "failed" => MessageStatus::Failed,
            _ => MessageStatus::Done,
        }
    }
}

/// A conversation without its messages, as listed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConversationSummary {
    pub id: String,
    /// The first message's start until renamed; empty before any message.
    pub title: String,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
    /// Changes with every message.
    pub updated_at: i64,
    /// The schedule whose runs it holds, for a schedule's own conversation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Conversation {
    #[serde(flatten)]
    pub summary: ConversationSummary,
    pub messages: Vec<StoredMessage>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoredMessage {
    pub id: String,
    pub role: Role,
    pub content: String,
    pub status: MessageStatus,
    /// Why the turn failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub created_at: i64,
    /// The calls made while answering, in the order they started.
    pub tool_calls: Vec<CallRecord>,
    /// The skills the answer's turn applied, in the order they applied, each
    /// as the turn reported it (`name`, `trigger`, and `run` for steps).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skills: Vec<Value>,
}

/// A response of `/v1/responses`, as `GET /v1/responses/{id}` returns it
/// and as a request naming it in `previous_response_id` goes on from it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredResponse {
    pub id: String,
    /// The response it went on from.
    pub previous_id: Option<String>,
    /// Seconds since the Unix epoch, as the response object says.
    pub created_at: i64,
    /// The response object.
    pub response: Value,
    /// The conversation up to and including this response's output, as
    /// Responses input items (the instructions aside: they are not carried on).
    pub items: Vec<Value>,
}

impl StoredResponse {
    /// The text of its `response` and `items` columns.
    fn json_columns(&self) -> (String, String) {
        (
            self.response.to_string(),
            Value::from(self.items.clone()).to_string(),
        )
    }

    /// A row read back; the JSON columns must read, as this store wrote them.
    fn from_row(
        id: String,
        previous_id: Option<String>,
        created_at: i64,
        response: &str,
        items: &str,
    ) -> Result<StoredResponse, StoreError> {
        let unreadable = |err: serde_json::Error| StoreError::UnreadableResponse {
            id: id.clone(),
            cause: err.to_string(),
        };
        let response = serde_json::from_str(response).map_err(unreadable)?;
        let items = serde_json::from_str(items).map_err(unreadable)?;
        Ok(StoredResponse {
            id,
            previous_id,
            created_at,
            response,
            items,
        })
    }
}

/// One page of the conversation list.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    pub conversations: Vec<ConversationSummary>,
    pub has_more: bool,
}

/// Conversations in either backend. Cheap to clone.
#[derive(Clone)]
pub enum Store {
    Sqlite(SqliteStore),
    Postgres(PostgresStore),
}

/// Runs the same method on whichever backend `self` holds.
macro_rules! on_backend {
    ($self:ident, $store:ident => $call:expr) => {
        match $self {
            Store::Sqlite($store) => $call.await,
            Store::Postgres($store) => $call.await,
        }
    };
}

impl Store {
    pub async fn create_conversation(&self) -> Result<ConversationSummary, StoreError> {
        on_backend!(self, store => store.create_conversation())
    }

    /// How this store's server keeps its answers alive.
    pub fn liveness(&self) -> Liveness {
        match self {
            Store::Sqlite(store) => store.liveness(),
            Store::Postgres(store) => store.liveness(),
        }
    }

    /// Keeps `messages` (a JSON array) for the request that answers the
    /// client call `call_id`, replacing what was kept for it; what was kept
    /// longer than [`HANDED_BACK_KEPT_MILLIS`] ago is forgotten.
    pub async fn keep_handed_back(
        &self,
        call_id: &str,
        messages: &Value,
    ) -> Result<(), StoreError> {
        let text = messages.to_string();
        on_backend!(self, store => store.keep_handed_back(call_id, &text))
    }

    /// What was kept for each of `call_ids` that has anything, and not
    /// longer ago than [`HANDED_BACK_KEPT_MILLIS`].
    pub async fn handed_back(
        &self,
        call_ids: &[String],
    ) -> Result<Vec<(String, Value)>, StoreError> {
        if call_ids.is_empty() {
            return Ok(Vec::new());
        }
        let rows = on_backend!(self, store => store.handed_back(call_ids))?;
        Ok(rows
            .into_iter()
            .filter_map(|(id, text)| Some((id, serde_json::from_str(&text).ok()?)))
            .collect())
    }

    /// Whether the database answers (a PostgreSQL store whose connection
    /// was lost connects again first).
    pub async fn ping(&self) -> Result<(), StoreError> {
        on_backend!(self, store => store.ping())
    }

    /// Refreshes the heartbeat of a running answer this store started; a
    /// no-op once it has finished or been taken for interrupted.
    pub async fn beat(&self, message_id: &str) -> Result<(), StoreError> {
        on_backend!(self, store => store.beat(message_id))
    }

    /// Marks failed every running answer whose heartbeat is stale, with its
    /// unfinished tool calls; how many answers that was.
    pub async fn fail_interrupted(&self) -> Result<u64, StoreError> {
        on_backend!(self, store => store.fail_interrupted(None))
    }

    /// Newest first (by last change); `limit` is capped at [`MAX_PAGE`].
    /// Interrupted answers are marked failed first.
    pub async fn list_conversations(
        &self,
        limit: usize,
        offset: usize,
    ) -> Result<Page, StoreError> {
        on_backend!(self, store => store.list_conversations(limit, offset))
    }

    /// The conversation and every message, each with its tool calls; its
    /// interrupted answers are marked failed first.
    pub async fn conversation(&self, id: &str) -> Result<Option<Conversation>, StoreError> {
        on_backend!(self, store => store.conversation(id))
    }

    /// `false` when there is no such conversation.
    pub async fn rename_conversation(&self, id: &str, title: &str) -> Result<bool, StoreError> {
        on_backend!(self, store => store.rename_conversation(id, title))
    }

    /// `false` when there is no such conversation.
    pub async fn delete_conversation(&self, id: &str) -> Result<bool, StoreError> {
        on_backend!(self, store => store.delete_conversation(id))
    }

    /// Adds a message and returns its id, or `None` when there is no such
    /// conversation. The first user message titles an untitled conversation.
    /// A running answer is owned by this store, its heartbeat set to now.
    pub async fn add_message(
        &self,
        conversation_id: &str,
        role: Role,
        content: &str,
        status: MessageStatus,
    ) -> Result<Option<String>, StoreError> {
        on_backend!(self, store => store.add_message(conversation_id, role, content, status))
    }

    /// Sets a message's final text and status.
    pub async fn finish_message(
        &self,
        message_id: &str,
        content: &str,
        status: MessageStatus,
        error: Option<&str>,
    ) -> Result<(), StoreError> {
        on_backend!(self, store => store.finish_message(message_id, content, status, error))
    }

    /// Keeps the skills an answer's turn applied (see
    /// [`StoredMessage::skills`]), replacing any kept before; none clears them.
    pub async fn keep_skills(&self, message_id: &str, skills: &[Value]) -> Result<(), StoreError> {
        let text = (!skills.is_empty()).then(|| Value::from(skills.to_vec()).to_string());
        on_backend!(self, store => store.keep_skills(message_id, text.as_deref()))
    }

    /// Records a call as it stands now (started, waiting for its approval,
    /// ended), under the answer it belongs to. A call already recorded as
    /// ended stays as it ended.
    pub async fn record_tool_call(
        &self,
        message_id: &str,
        record: &CallRecord,
    ) -> Result<(), StoreError> {
        let text = serde_json::to_string(record).map_err(|err| StoreError::UnwritableCall {
            call_id: record.call_id.clone(),
            cause: err.to_string(),
        })?;
        on_backend!(self, store => store.record_tool_call(message_id, &record.call_id, &text))
    }

    /// Keeps `response`, replacing one of the same id.
    pub async fn save_response(&self, response: &StoredResponse) -> Result<(), StoreError> {
        on_backend!(self, store => store.save_response(response))
    }

    /// The response of that id, if one is kept.
    pub async fn response(&self, id: &str) -> Result<Option<StoredResponse>, StoreError> {
        on_backend!(self, store => store.response(id))
    }

    /// `false` when there is no such response.
    pub async fn delete_response(&self, id: &str) -> Result<bool, StoreError> {
        on_backend!(self, store => store.delete_response(id))
    }
}

/// Puts each `(message id, stored record)` under its message, keeping
/// their order.
fn attach_tool_calls(messages: &mut [StoredMessage], calls: Vec<(String, String)>) {
    for (message_id, text) in calls {
        if let Some(message) = messages.iter_mut().find(|m| m.id == message_id) {
            message.tool_calls.push(read_record(&text));
        }
    }
}

/// The skills column read back: NULL, or a value that is not an array
/// (written by a newer version, or damaged), is none.
fn read_skills(text: Option<String>) -> Vec<Value> {
    match text.map(|text| serde_json::from_str(&text)) {
        Some(Ok(Value::Array(skills))) => skills,
        Some(_) => {
            tracing::warn!("an answer's stored skills do not read");
            Vec::new()
        }
        None => Vec::new(),
    }
}

/// A stored call read back. One that does not read (written by a newer
/// version, or damaged) is shown as a failed call saying so, under the id
/// and tool it names, rather than dropped.
fn read_record(text: &str) -> CallRecord {
    serde_json::from_str(text).unwrap_or_else(|err| {
        tracing::warn!("a stored tool call does not read: {err}");
        let value: Value = serde_json::from_str(text).unwrap_or_default();
        let named = |key: &str| value[key].as_str().unwrap_or("?").to_owned();
        let mut record = CallRecord::started(named("call_id"), named("tool"), Default::default());
        record.success = Some(false);
        record.failure = Some(FailureKind::Unavailable);
        record.error = format!("this call's record does not read: {err}");
        record
    })
}

/// The longest title taken from a first message, in characters.
const TITLE_CHARS: usize = 60;

/// The title a conversation gets from its first message.
fn title_from(message: &str) -> String {
    let line = message
        .lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or("");
    let line = line.trim();
    if line.chars().count() > TITLE_CHARS {
        let cut: String = line.chars().take(TITLE_CHARS).collect();
        format!("{cut}…")
    } else {
        line.to_owned()
    }
}

/// A title cut to [`MAX_TITLE_CHARS`].
fn bounded_title(title: &str) -> String {
    title.chars().take(MAX_TITLE_CHARS).collect()
}

fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", uuid::Uuid::new_v4().simple())
}

/// How long what a turn handed back is kept: an hour.
pub const HANDED_BACK_KEPT_MILLIS: i64 = 3_600_000;

fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests;
