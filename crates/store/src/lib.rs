//! Riverse's conversations, as `riverse serve` keeps them.
//!
//! A [`Store`] holds [`Conversation`]s: their [`StoredMessage`]s in order,
//! and each answer's [`StoredToolCall`]s. Every change is written as it
//! happens (the user's message, each tool call as it starts and ends, the
//! answer), so a turn cut short by a crash keeps what it did. The schema is
//! created and upgraded by versioned migrations on open.
//!
//! SQLite (`.riverse/riverse.db` in the project, WAL mode) is the only
//! backend built in; the store keeps nothing in memory between calls, so any
//! number of servers can share one database.

mod migrations;
mod sqlite;

use serde::Serialize;
use serde_json::Value;

pub use sqlite::SqliteStore;

/// The most conversations one listing returns.
pub const MAX_PAGE: usize = 100;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("can't open the conversation database {path}: {cause}")]
    Open { path: String, cause: String },
    #[error("conversation database migration {version} failed: {cause}")]
    Migration { version: u32, cause: String },
    #[error("conversation database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("conversation database task stopped: {0}")]
    Task(String),
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
    /// The turn is running (or stopped without finishing, after a crash).
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
    pub tool_calls: Vec<StoredToolCall>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoredToolCall {
    pub call_id: String,
    pub tool: String,
    pub params: Value,
    /// `None` while the call runs.
    pub success: Option<bool>,
    pub data: String,
    pub error: String,
    pub duration_ms: Option<u64>,
}

/// How a tool call ended.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallOutcome {
    pub success: bool,
    pub data: String,
    pub error: String,
    pub duration_ms: u64,
}

/// One page of the conversation list.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    pub conversations: Vec<ConversationSummary>,
    pub has_more: bool,
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

fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", uuid::Uuid::new_v4().simple())
}

fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests;
