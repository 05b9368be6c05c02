//! Background tasks in `riverse serve` (docs/background.md).
//!
//! A call that becomes a task in a turn ([`TurnEvent::TaskStarted`]) is
//! adopted here: written to the store `working`, kept alive by this
//! server's heartbeat, and watched until it ends. Its end is written on its
//! row (the call's record as the result) and, unless it was cancelled, a
//! follow-up turn in the task's conversation answers from it: the call's
//! record is stored under the follow-up's answer, where the conversation
//! API and the page show it.
//!
//! A task whose server stopped (its heartbeat stale) is claimed by the next
//! server to look ([`keep_tasks`], at start and every heartbeat): run again
//! when its tool says `background.rerun: true`, else failed as
//! `interrupted`, and the conversation told so by a follow-up.
//!
//! [`TurnEvent::TaskStarted`]: riverse_agent::TurnEvent::TaskStarted

mod follow_up;
mod routes;
mod rows;

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use riverse_agent::{BackgroundTask, TaskEnd};
use riverse_store::{TASK_INTERRUPTED, Task, TaskState};
use riverse_tool::{FailureKind, Params, ToolResult};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::AppState;
use crate::activity::activity;
use crate::updates::Update;

pub(crate) use routes::{cancel, get, list};
pub use rows::TaskRows;

/// The tasks this server runs now, by id.
#[derive(Default)]
pub(crate) struct RunningTasks(Mutex<HashMap<String, BackgroundTask>>);

impl RunningTasks {
    fn insert(&self, task: &BackgroundTask) {
        self.0.lock().insert(task.id().to_owned(), task.clone());
    }

    fn remove(&self, id: &str) {
        self.0.lock().remove(id);
    }

    pub(crate) fn get(&self, id: &str) -> Option<BackgroundTask> {
        self.0.lock().get(id).cloned()
    }
}

/// Where a task's turn ran: its conversation and its stored answer, when
/// it had them.
pub(crate) struct Owner {
    pub conversation: Option<String>,
    pub answer: Option<String>,
}

/// Takes `task`, which a turn of `owner` started: writes it to the store
/// and watches it to its end.
pub(crate) fn adopt(state: &Arc<AppState>, task: BackgroundTask, owner: Owner) {
    state.tasks.insert(&task);
    let state = state.clone();
    tokio::spawn(async move {
        let (conversation, answer) = (owner.conversation.as_deref(), owner.answer.as_deref());
        rows::write_started(&state.store, &task, conversation, answer).await;
        watch(&state, task, owner.conversation).await;
    });
}

/// Waits for `task`'s end, keeping on its row meanwhile its progress, the
/// server's task its call became, and the question it waits on: what its
/// call asks once its turn has ended is a question of this server, answered
/// at `/v1/riverse/questions/{id}` as a streamed turn's is.
async fn ended(state: &AppState, task: &BackgroundTask) -> TaskEnd {
    let (asker, mut asked) = mpsc::unbounded_channel();
    task.ask_through(asker);
    let (updates, mut heard) = mpsc::unbounded_channel();
    // Dropped with this function: a question still open is cancelled.
    let questions = state.questions.for_turn(&updates);
    let kept = rows::kept_until_end(&state.store, task);
    tokio::pin!(kept);
    loop {
        tokio::select! {
            end = &mut kept => return end,
            Some((question, reply)) = asked.recv() => {
                let reply = Box::new(move |answer| reply.answer(answer));
                questions.ask(task.call_id().to_owned(), task.tool().to_owned(), question, reply);
            }
            Some(update) = heard.recv() => keep_question(state, task, &update).await,
        }
    }
}

/// A question of the task opened (the task is `input_required`, the
/// question on its row as a stream announces it) or closed (working again).
async fn keep_question(state: &AppState, task: &BackgroundTask, update: &Update) {
    let question = match update {
        Update::QuestionAsked(_) => activity(update),
        Update::QuestionClosed(_) => None,
        _ => return,
    };
    if let Err(err) = state
        .store
        .task_question(task.id(), question.as_ref())
        .await
    {
        tracing::warn!("can't store the question of task {}: {err}", task.id());
    }
}

/// Waits for `task`'s end, writes it, and has the conversation answer from it.
async fn watch(state: &Arc<AppState>, task: BackgroundTask, conversation: Option<String>) {
    let end = ended(state, &task).await;
    state.tasks.remove(task.id());
    // Not written: cancelled through the API, which wrote it already.
    if !rows::write_end(&state.store, &task, &end).await || end.cancelled {
        return;
    }
    if let Some(conversation) = conversation {
        let ended = follow_up::Ended {
            task_id: task.id().to_owned(),
            tool: task.tool().to_owned(),
            params: task.params().clone(),
            record: Some(task.record(&end)),
            result: end.result,
        };
        follow_up::answer(state, &conversation, ended).await;
    }
}

/// Keeps this server's tasks alive in the store and claims those of
/// servers that stopped, at once and then every heartbeat; stops when
/// dropped.
#[must_use = "tasks are not kept alive once this is dropped"]
pub struct TaskKeeper(JoinHandle<()>);

impl Drop for TaskKeeper {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Starts the [`TaskKeeper`] of `state`.
pub fn keep_tasks(state: &Arc<AppState>) -> TaskKeeper {
    let state = state.clone();
    TaskKeeper(tokio::spawn(async move {
        let mut beat = tokio::time::interval(state.store.liveness().heartbeat);
        beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            beat.tick().await;
            if let Err(err) = state.store.beat_tasks().await {
                tracing::warn!("can't refresh the heartbeat of the tasks: {err}");
            }
            match state.store.claim_stale_tasks().await {
                Ok(claimed) => {
                    for task in claimed {
                        take_over(&state, task).await;
                    }
                }
                Err(err) => tracing::warn!("can't look for interrupted tasks: {err}"),
            }
        }
    }))
}

/// Lets go of this server's unended tasks as it stops, so that the next
/// server to start takes them over at once.
pub async fn release_tasks(state: &AppState) {
    match state.store.release_tasks().await {
        Ok(0) => {}
        Ok(released) => tracing::info!(
            "{released} background tasks stop with the server; the next server takes them over"
        ),
        Err(err) => tracing::warn!("can't let go of the background tasks: {err}"),
    }
}

/// A task whose server stopped: followed again on its tool's MCP server
/// when its call had become a task there, else run again when its tool
/// says so, else failed as interrupted, and its conversation told.
async fn take_over(state: &Arc<AppState>, task: Task) {
    let params: Params = match &task.arguments {
        Value::Object(params) => params.clone(),
        _ => Params::new(),
    };
    let agent = &state.agent;
    let known = agent.registry().get(&task.tool).is_some();
    let origin = riverse_tool::CallOrigin::new("serve", task.conversation_id.as_deref());
    let running = match &task.handed_over {
        Some(server_task) if known => {
            tracing::info!(
                "task {} ({}) interrupted; asking its server about its task {server_task} again",
                task.id,
                task.tool
            );
            Some(origin.in_scope(|| {
                agent.resume(
                    task.id.clone(),
                    &task.call_id,
                    &task.tool,
                    params.clone(),
                    server_task,
                )
            }))
        }
        _ if known && agent.reruns(&task.tool) => {
            tracing::info!(
                "task {} ({}) interrupted; running it again",
                task.id,
                task.tool
            );
            Some(origin.in_scope(|| {
                agent.rerun(task.id.clone(), &task.call_id, &task.tool, params.clone())
            }))
        }
        _ => None,
    };
    if let Some(running) = running {
        state.tasks.insert(&running);
        let state = state.clone();
        tokio::spawn(async move { watch(&state, running, task.conversation_id).await });
        return;
    }
    tracing::warn!(
        "task {} ({}) interrupted: its server stopped",
        task.id,
        task.tool
    );
    let failed = state
        .store
        .finish_task(&task.id, TaskState::Failed, None, Some(TASK_INTERRUPTED))
        .await;
    match failed {
        Ok(true) => {}
        Ok(false) => return,
        Err(err) => {
            tracing::error!("can't mark task {} interrupted: {err}", task.id);
            return;
        }
    }
    if let Some(conversation) = &task.conversation_id {
        let ended = follow_up::Ended {
            task_id: task.id.clone(),
            tool: task.tool.clone(),
            params,
            result: ToolResult::failed(
                FailureKind::Crashed,
                format!(
                    "{TASK_INTERRUPTED}: Riverse stopped while the task ran, and {} is not run again (tools.{}.background.rerun is not true)",
                    task.tool, task.tool
                ),
            ),
            record: None,
        };
        follow_up::answer(state, conversation, ended).await;
    }
}
