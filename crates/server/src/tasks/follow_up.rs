//! The turn that answers from a task's end, in the task's conversation.

use std::sync::Arc;

use riverse_store::{MessageStatus, Role};
use riverse_tool::{CallRecord, Params, ToolResult};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use crate::AppState;
use crate::conversation_events::TurnFrames;
use crate::conversations::{history_of, persist};
use crate::error::AppError;
use crate::prometheus::Api;
use crate::turns::{self, Asking, FollowUp, TurnRequest};
use crate::updates::Update;

/// Why a follow-up turn refuses calls whose approval asks.
const NOBODY_TO_ASK: &str =
    "the answer to a background task's end has nobody to ask: approve the call in a message";

/// A task that ended, as its conversation is told.
pub(crate) struct Ended {
    pub task_id: String,
    pub tool: String,
    pub params: Params,
    /// What the model reads of it.
    pub result: ToolResult,
    /// The call's record, stored under the follow-up's answer; none for a
    /// task that was interrupted (its call never ended).
    pub record: Option<CallRecord>,
}

/// Has `conversation` answer from `ended`: a running answer is added, the
/// call's record stored under it, and a turn (with a slot of
/// `serve.max_concurrent_turns`, waited for) writes it as any turn does,
/// each of its events streamed, once stored, to the conversation's open
/// `/v1/conversations/{id}/events` streams.
pub(crate) async fn answer(state: &Arc<AppState>, conversation: &str, ended: Ended) {
    let task_id = ended.task_id.clone();
    if let Err(err) = start(state, conversation, ended).await {
        tracing::warn!(
            "task {task_id}: can't answer from its end in conversation {conversation}: {}",
            err.message
        );
    }
}

async fn start(state: &Arc<AppState>, conversation: &str, ended: Ended) -> Result<(), AppError> {
    let store = &state.store;
    let Some(stored) = store.conversation(conversation).await? else {
        tracing::info!(
            "task {}: conversation {conversation} is gone; the result stays on the task",
            ended.task_id
        );
        return Ok(());
    };
    let history = history_of(&stored);
    let gone = || AppError::internal("the conversation went away");
    let opening = state.follow_ups_opening.lock().await;
    let answer_id = store
        .add_message(conversation, Role::Assistant, "", MessageStatus::Running)
        .await?
        .ok_or_else(gone)?;
    let frames = state.conversation_events.turn(conversation, &answer_id);
    frames.started(&ended.task_id, &ended.tool);
    drop(opening);
    if let Some(record) = &ended.record {
        store.record_tool_call(&answer_id, record).await?;
        frames.task_call(record);
    }
    let permit = state
        .turns
        .clone()
        .acquire_owned()
        .await
        .map_err(|_| AppError::internal("the server is stopping"))?;
    let request = TurnRequest {
        api: Api::Tasks,
        history,
        message: None,
        tool_use: riverse_agent::ToolUse::default(),
        follow_up: Some(FollowUp {
            task_id: ended.task_id,
            tool: ended.tool,
            params: ended.params,
            result: ended.result,
        }),
        answer_id: Some(answer_id.clone()),
    };
    let asking = Asking::Nobody {
        no_approvals: NOBODY_TO_ASK,
    };
    let origin = riverse_tool::CallOrigin::new("serve", Some(conversation));
    let (task, updates) = origin.in_scope(|| {
        riverse_agent::turn_span(Some(conversation))
            .in_scope(|| turns::start(state, permit, request, asking))
    });
    let (forward, stored) = unbounded_channel();
    tokio::spawn(persist(store.clone(), answer_id, task, updates, forward));
    tokio::spawn(stream(stored, frames));
    Ok(())
}

/// Sends each update of the turn, as it is stored, to the conversation's streams.
async fn stream(mut stored: UnboundedReceiver<Update>, mut frames: TurnFrames) {
    while let Some(update) = stored.recv().await {
        let last = matches!(update, Update::Finished(_));
        frames.update(update);
        if last {
            break;
        }
    }
}
