//! A background task's row, kept as its call runs, whichever front end
//! runs it: written `working` when the call becomes a task, its progress
//! and the MCP server's task it became kept on it meanwhile, its end
//! written once.
//!
//! `serve` keeps its tasks' rows (the `tasks` module, which also opens their
//! questions); `chat` and `ask` keep theirs with [`TaskRows`], so that
//! `riverse tasks` lists them and a task whose process was killed is taken
//! over by the next `riverse serve` as any other.

use std::time::Duration;

use parking_lot::Mutex;
use riverse_agent::{BackgroundTask, TaskEnd};
use riverse_store::{NewTask, Store, TaskState};
use riverse_tool::Progress;
use serde_json::Value;
use tokio::task::JoinHandle;

/// Writes `task`, `working`, as a call of the turn whose conversation and
/// stored answer are given, when it had them.
pub(crate) async fn write_started(
    store: &Store,
    task: &BackgroundTask,
    conversation: Option<&str>,
    answer: Option<&str>,
) {
    let arguments = Value::Object(task.params().clone());
    let row = NewTask {
        id: task.id(),
        conversation_id: conversation,
        message_id: answer,
        call_id: task.call_id(),
        tool: task.tool(),
        arguments: &arguments,
    };
    if let Err(err) = store.create_task(&row).await {
        tracing::error!("can't store task {}: {err}", task.id());
    }
}

async fn keep_progress(store: &Store, task: &BackgroundTask, last: Option<Progress>) {
    let Some(last) = last else { return };
    let value = serde_json::to_value(&last).unwrap_or_default();
    if let Err(err) = store.task_progress(task.id(), &value).await {
        tracing::warn!("can't store the progress of task {}: {err}", task.id());
    }
}

async fn keep_handed_over(store: &Store, task: &BackgroundTask, server_task: Option<String>) {
    let Some(server_task) = server_task else {
        return;
    };
    if let Err(err) = store.task_handed_over(task.id(), &server_task).await {
        tracing::warn!(
            "can't store the server's task {server_task} of task {}: {err}",
            task.id()
        );
    }
}

/// Writes how `task` ended; `false` when it had ended already (a cancel
/// through the API wrote it) or the write failed.
pub(crate) async fn write_end(store: &Store, task: &BackgroundTask, end: &TaskEnd) -> bool {
    let (state, error) = outcome(end);
    let record = task.record(end);
    let result = serde_json::to_value(&record).unwrap_or_default();
    match store
        .finish_task(task.id(), state, Some(&result), error.as_deref())
        .await
    {
        Ok(written) => written,
        Err(err) => {
            tracing::error!("can't store the end of task {}: {err}", task.id());
            false
        }
    }
}

/// The state a task ends in, and why when it did not complete.
fn outcome(end: &TaskEnd) -> (TaskState, Option<String>) {
    if end.cancelled {
        (
            TaskState::Cancelled,
            Some(riverse_agent::CANCELLED.to_owned()),
        )
    } else if end.result.success {
        (TaskState::Completed, None)
    } else {
        (TaskState::Failed, Some(end.result.error.clone()))
    }
}

/// The rows of the tasks of a front end without a server (`chat`, `ask`):
/// each task written as it starts and kept to its end, and every unended
/// one kept alive by a heartbeat while this lives.
pub struct TaskRows {
    store: Store,
    keeping: Mutex<Vec<JoinHandle<()>>>,
    beating: JoinHandle<()>,
}

impl TaskRows {
    /// Rows in `store`, beating at its heartbeat.
    pub fn new(store: Store) -> TaskRows {
        let beating = tokio::spawn(beat(store.clone()));
        TaskRows {
            store,
            keeping: Mutex::new(Vec::new()),
            beating,
        }
    }

    /// Writes `task` and keeps its row until it ends.
    pub fn keep(&self, task: &BackgroundTask) {
        let (store, task) = (self.store.clone(), task.clone());
        let keeping = tokio::spawn(async move {
            write_started(&store, &task, None, None).await;
            let end = kept_until_end(&store, &task).await;
            write_end(&store, &task, &end).await;
        });
        let mut all = self.keeping.lock();
        all.retain(|handle| !handle.is_finished());
        all.push(keeping);
    }

    /// Waits until the end of every task kept is written (at most
    /// `within`), as the front end leaves.
    pub async fn written(&self, within: Duration) {
        let keeping = std::mem::take(&mut *self.keeping.lock());
        let all = futures_util::future::join_all(keeping);
        if tokio::time::timeout(within, all).await.is_err() {
            tracing::warn!("the ends of some background tasks were not written in time");
        }
    }
}

impl Drop for TaskRows {
    fn drop(&mut self) {
        self.beating.abort();
    }
}

/// Waits for `task`'s end, keeping its progress and the server's task its
/// call became on its row.
pub(crate) async fn kept_until_end(store: &Store, task: &BackgroundTask) -> TaskEnd {
    let mut progress = task.progress();
    let mut handed_over = task.handed_over();
    handed_over.mark_changed();
    loop {
        tokio::select! {
            end = task.ended() => return end,
            Ok(()) = progress.changed() => {
                let last = progress.borrow_and_update().clone();
                keep_progress(store, task, last).await;
            }
            Ok(()) = handed_over.changed() => {
                let server_task = handed_over.borrow_and_update().clone();
                keep_handed_over(store, task, server_task).await;
            }
        }
    }
}

/// Refreshes the heartbeat of this process's unended tasks, for good.
async fn beat(store: Store) {
    let mut beat = tokio::time::interval(store.liveness().heartbeat);
    beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        beat.tick().await;
        if let Err(err) = store.beat_tasks().await {
            tracing::warn!("can't refresh the heartbeat of the tasks: {err}");
        }
    }
}
