//! A call its server runs as a task (the tasks extension of 2026-07-28,
//! SEP-2663, `io.modelcontextprotocol/tasks`, which Riverse declares).
//!
//! The server decides: a task-capable tool answers `tools/call` with a
//! `task` result in place of the call's result. Riverse then asks
//! `tasks/get` at the interval the server suggests until the task ends;
//! what the task asks for on the way (`input_required`) is answered by the
//! call's front end, as the questions of an `input_required` result are,
//! and sent with `tasks/update`; its status message is logged as the call's
//! line. A completed task's inlined result is the
//! call's result. When the call is dropped before the task ended (its
//! deadline, Ctrl-C, a cancelled background task), the server is sent
//! `tasks/cancel`.

use std::time::Duration;

use riverse_tool::{CallContext, LogLevel};
use rmcp::model::{
    CallToolResult, CancelTaskParams, CancelTaskRequest, ClientRequest, GetTaskParams,
    GetTaskRequest, ServerResult, Task, TaskPayload, UpdateTaskParams, UpdateTaskRequest,
};
use rmcp::service::{Peer, RoleClient};
use serde_json::Value;

use super::rounds::{RoundsFailed, answers};

/// How often a task is polled when its server suggests nothing.
const DEFAULT_POLL: Duration = Duration::from_millis(500);
/// The bounds of a server's suggestion: not so often that polling is all
/// the server hears, not so seldom that an ended task waits long.
const FASTEST_POLL: Duration = Duration::from_millis(20);
const SLOWEST_POLL: Duration = Duration::from_secs(5);

/// Follows the task `created` to its end; the call's result, as its server
/// gave it.
pub(super) async fn follow(
    peer: &Peer<RoleClient>,
    created: Task,
    context: &CallContext,
) -> Result<ServerResult, RoundsFailed> {
    context.handed_over(&created.task_id);
    let pause = poll_interval(&created);
    poll(
        peer,
        created.task_id,
        pause,
        created.status_message,
        context,
    )
    .await
}

/// Follows again the task `id` of this server, which a Riverse that stopped
/// was following (its call's result, as [`follow`] gives it).
pub(super) async fn resume(
    peer: &Peer<RoleClient>,
    id: &str,
    context: &CallContext,
) -> Result<ServerResult, RoundsFailed> {
    poll(peer, id.to_owned(), FASTEST_POLL, None, context).await
}

/// Asks `tasks/get` about the task `id` until it ends, first after `pause`;
/// `said` is its status message already passed on.
async fn poll(
    peer: &Peer<RoleClient>,
    id: String,
    mut pause: Duration,
    mut said: Option<String>,
    context: &CallContext,
) -> Result<ServerResult, RoundsFailed> {
    let mut cancel = CancelOnDrop {
        peer: peer.clone(),
        task_id: Some(id.clone()),
    };
    tracing::debug!(target: "mcp", task = %id, "the call goes on as a task of its server");
    // Input requests already answered, by key: each is answered once.
    let mut answered = std::collections::HashSet::new();
    loop {
        tokio::time::sleep(pause).await;
        let request = ClientRequest::GetTaskRequest(GetTaskRequest::new(GetTaskParams::new(&id)));
        let reply = peer.send_request(request).await?;
        let ServerResult::GetTaskResult(got) = reply else {
            return Err(RoundsFailed::Input(format!(
                "answered tasks/get for task {id} with something else: {reply:?}"
            )));
        };
        pause = poll_interval(&got.task.task);
        // What the server says of its task reaches the front end as a line
        // the call logged, once each time it changes.
        if let Some(message) = &got.task.task.status_message
            && said.as_ref() != Some(message)
        {
            context.log(LogLevel::Info, message);
            said = Some(message.clone());
        }
        match got.task.payload {
            TaskPayload::Working => {}
            TaskPayload::InputRequired { input_requests } => {
                let new: rmcp::model::InputRequests = input_requests
                    .into_iter()
                    .filter(|(key, _)| !answered.contains(key))
                    .collect();
                if new.is_empty() {
                    continue;
                }
                answered.extend(new.keys().cloned());
                let responses = answers(new, context).await.map_err(RoundsFailed::Input)?;
                let update = UpdateTaskParams::new(&id, responses);
                let request = ClientRequest::UpdateTaskRequest(UpdateTaskRequest::new(update));
                peer.send_request(request).await?;
                // The task goes on with the answers: look again soon.
                pause = FASTEST_POLL;
            }
            TaskPayload::Completed { result } => {
                cancel.task_id = None;
                return completed(&id, result);
            }
            TaskPayload::Failed { error } => {
                cancel.task_id = None;
                let message = error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("no message");
                return Err(RoundsFailed::Input(format!("failed task {id}: {message}")));
            }
            TaskPayload::Cancelled => {
                cancel.task_id = None;
                return Err(RoundsFailed::Input(format!("cancelled task {id}")));
            }
            _ => {}
        }
    }
}

/// A completed task's result: a `tools/call` result.
fn completed(id: &str, result: rmcp::model::JsonObject) -> Result<ServerResult, RoundsFailed> {
    serde_json::from_value::<CallToolResult>(Value::Object(result))
        .map(ServerResult::CallToolResult)
        .map_err(|err| {
            RoundsFailed::Input(format!(
                "ended task {id} with a result that is not a tool's result: {err}"
            ))
        })
}

/// The server's suggested interval, within bounds.
fn poll_interval(task: &Task) -> Duration {
    task.poll_interval_ms
        .map(Duration::from_millis)
        .unwrap_or(DEFAULT_POLL)
        .clamp(FASTEST_POLL, SLOWEST_POLL)
}

/// Sends `tasks/cancel` for a task that had not ended when its call was
/// dropped.
struct CancelOnDrop {
    peer: Peer<RoleClient>,
    /// `None` once the task ended.
    task_id: Option<String>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.task_id.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let peer = self.peer.clone();
        runtime.spawn(async move {
            let request = ClientRequest::CancelTaskRequest(CancelTaskRequest::new(
                CancelTaskParams::new(&id),
            ));
            match peer.send_request(request).await {
                Ok(_) => tracing::debug!(target: "mcp", task = %id, "task cancelled"),
                Err(err) => {
                    tracing::warn!(target: "mcp", task = %id, "can't cancel the task: {err}");
                }
            }
        });
    }
}
