//! Background tasks: tool calls that outlived their turn, one row each.
//!
//! A task is written when its call becomes one, `working`, owned by the
//! server that runs it and kept alive by that server's heartbeat, as a
//! running answer is ([`crate::Liveness`]). It ends once: `completed` or
//! `failed` with the call's record as its result, or `cancelled`; a later
//! end is ignored, so a cancel and the call's own end can race safely. A
//! task whose heartbeat went stale belongs to a server that stopped: the
//! next server to look claims it ([`Store::claim_stale_tasks`]) and runs it
//! again or fails it as interrupted.

use serde::Serialize;
use serde_json::Value;

use crate::{Store, StoreError};

/// Why a task whose server stopped failed.
pub const TASK_INTERRUPTED: &str = "interrupted";

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskState {
    Working,
    /// Its call waits for a person's answer to a question.
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl TaskState {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskState::Working => "working",
            TaskState::InputRequired => "input_required",
            TaskState::Completed => "completed",
            TaskState::Failed => "failed",
            TaskState::Cancelled => "cancelled",
        }
    }

    pub(crate) fn parse(text: &str) -> TaskState {
        match text {
            "working" => TaskState::Working,
            "input_required" => TaskState::InputRequired,
            "completed" => TaskState::Completed,
            "cancelled" => TaskState::Cancelled,
            _ => TaskState::Failed,
        }
    }

    /// Whether the task has ended.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskState::Completed | TaskState::Failed | TaskState::Cancelled
        )
    }
}

/// A task as stored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Task {
    pub id: String,
    /// The conversation it belongs to, and the answer whose call it runs.
    pub conversation_id: Option<String>,
    pub message_id: Option<String>,
    /// The model's id for the call.
    pub call_id: String,
    pub tool: String,
    pub arguments: Value,
    pub state: TaskState,
    /// The call's last progress (`{"progress", "total", "message"}`).
    pub progress: Option<Value>,
    /// The call's record once it ended (as a conversation's tool calls).
    pub result: Option<Value>,
    /// Why it failed or was cancelled.
    pub error: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
    pub updated_at: i64,
    pub ended_at: Option<i64>,
    /// The id of the task of the tool's MCP server that the call became,
    /// once it did.
    pub handed_over: Option<String>,
    /// The question an `input_required` task waits on, as a stream
    /// announces it.
    pub question: Option<Value>,
}

/// A task to write, `working`.
#[derive(Debug, Clone, PartialEq)]
pub struct NewTask<'a> {
    pub id: &'a str,
    pub conversation_id: Option<&'a str>,
    pub message_id: Option<&'a str>,
    pub call_id: &'a str,
    pub tool: &'a str,
    pub arguments: &'a Value,
}

/// The columns each backend's row reader takes, in its order.
pub(crate) const TASK_COLUMNS: &str = "id, conversation_id, message_id, call_id, tool, arguments,
    state, progress, result, error, created_at, updated_at, ended_at, handed_over, question";

/// A column an unended task's server keeps up to date.
#[derive(Debug, Clone, Copy)]
pub(crate) enum TaskColumn {
    Progress,
    HandedOver,
}

impl TaskColumn {
    pub(crate) fn name(self) -> &'static str {
        match self {
            TaskColumn::Progress => "progress",
            TaskColumn::HandedOver => "handed_over",
        }
    }
}

/// The state of an unended task that waits on `question`, or on none.
pub(crate) fn waiting_state(question: Option<&str>) -> &'static str {
    match question {
        Some(_) => TaskState::InputRequired.as_str(),
        None => TaskState::Working.as_str(),
    }
}

/// A JSON column read back; text that does not read (written by a newer
/// version, or damaged) is kept as a string rather than lost.
pub(crate) fn json_column(text: Option<String>) -> Option<Value> {
    text.map(|text| serde_json::from_str(&text).unwrap_or(Value::String(text)))
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
    /// Writes `task`, `working`, owned by this store's server; `false` when
    /// a task of that id exists already.
    pub async fn create_task(&self, task: &NewTask<'_>) -> Result<bool, StoreError> {
        on_backend!(self, store => store.create_task(task))
    }

    /// The task of that id.
    pub async fn task(&self, id: &str) -> Result<Option<Task>, StoreError> {
        on_backend!(self, store => store.task(id))
    }

    /// Tasks, newest first, at most `limit` (capped at [`crate::MAX_PAGE`]).
    pub async fn tasks(&self, limit: usize) -> Result<Vec<Task>, StoreError> {
        let limit = i64::try_from(limit.clamp(1, crate::MAX_PAGE)).unwrap_or(1);
        on_backend!(self, store => store.tasks(limit))
    }

    /// Refreshes the heartbeat of every unended task this store's server
    /// owns.
    pub async fn beat_tasks(&self) -> Result<(), StoreError> {
        on_backend!(self, store => store.beat_tasks())
    }

    /// Keeps a working task's last progress.
    pub async fn task_progress(&self, id: &str, progress: &Value) -> Result<(), StoreError> {
        let text = progress.to_string();
        on_backend!(self, store => store.set_task_column(id, TaskColumn::Progress, &text))
    }

    /// Notes that a working task's call became the task `handed_over` of
    /// its tool's MCP server.
    pub async fn task_handed_over(&self, id: &str, handed_over: &str) -> Result<(), StoreError> {
        on_backend!(self, store => store.set_task_column(id, TaskColumn::HandedOver, handed_over))
    }

    /// Marks a working task `input_required`, waiting on `question`, or,
    /// with `None`, working again.
    pub async fn task_question(
        &self,
        id: &str,
        question: Option<&Value>,
    ) -> Result<(), StoreError> {
        let text = question.map(Value::to_string);
        on_backend!(self, store => store.task_question(id, text.as_deref()))
    }

    /// Ends a task in `state` (one of the terminal ones), with the call's
    /// record and why it failed; `false` when it had ended already (that
    /// end stands) or does not exist.
    pub async fn finish_task(
        &self,
        id: &str,
        state: TaskState,
        result: Option<&Value>,
        error: Option<&str>,
    ) -> Result<bool, StoreError> {
        let text = result.map(Value::to_string);
        on_backend!(self, store => store.finish_task(id, state, text.as_deref(), error))
    }

    /// Lets go of this store's server's unended tasks, as a stopping server
    /// does: their heartbeats are made stale, so the next server to look
    /// takes them at once rather than after [`crate::Liveness::stale_after`].
    pub async fn release_tasks(&self) -> Result<u64, StoreError> {
        on_backend!(self, store => store.release_tasks())
    }

    /// Takes for this store's server every unended task whose heartbeat is
    /// stale (its server stopped), so that it is run again or failed here
    /// and nowhere else: of servers looking at once, each task goes to one.
    pub async fn claim_stale_tasks(&self) -> Result<Vec<Task>, StoreError> {
        on_backend!(self, store => store.claim_stale_tasks())
    }
}
