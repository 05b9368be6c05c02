//! `/v1/conversations`: conversations the server keeps.
//!
//! A message's turn belongs to the conversation, not to the client: it runs
//! to its end and is stored even if the client disconnects. Everything is
//! written as it happens (the user's message, each tool call as it starts and
//! ends, with its content blocks and log lines, the answer), and nothing is
//! kept in memory between requests, so any server sharing the database can
//! take the next message.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Response};
use riverse_agent::TurnEvent;
use riverse_llm::Message;
use riverse_store::{
    Conversation, ConversationSummary, MAX_TITLE_CHARS, MessageStatus, Role, Store, StoreError,
};
use riverse_tool::{CallApproval, CallRecord};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use crate::AppState;
use crate::body::Body;
use crate::completions::MODEL;
use crate::error::AppError;
use crate::prometheus::Api;
use crate::sse::{Completion, stream_response};
use crate::turns::{self, Asking, TurnRequest, TurnTask};
use crate::updates::Update;

/// Conversations listed when the request doesn't say.
const DEFAULT_PAGE: usize = 20;

pub async fn create(State(state): State<Arc<AppState>>) -> Result<Response, AppError> {
    let summary = state.store.create_conversation().await?;
    Ok(Json(summary_json(&summary)).into_response())
}

pub async fn list(
    State(state): State<Arc<AppState>>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Response, AppError> {
    let limit = whole_number(&query, "limit", DEFAULT_PAGE)?;
    let offset = whole_number(&query, "offset", 0)?;
    let page = state.store.list_conversations(limit, offset).await?;
    let data: Vec<Value> = page.conversations.iter().map(summary_json).collect();
    Ok(Json(json!({"object": "list", "data": data, "has_more": page.has_more})).into_response())
}

/// The query parameter `name` as a whole number of at least zero, or
/// `default` when absent. One too large for this machine saturates (an
/// offset past every conversation is an empty page) rather than wrapping;
/// `limit` is capped at [`riverse_store::MAX_PAGE`] by the store.
fn whole_number(
    query: &HashMap<String, String>,
    name: &str,
    default: usize,
) -> Result<usize, AppError> {
    let Some(text) = query.get(name) else {
        return Ok(default);
    };
    if text.is_empty() || !text.bytes().all(|byte| byte.is_ascii_digit()) {
        return Err(AppError::invalid(
            name,
            format!("expected a whole number from 0, got {text:?}"),
        ));
    }
    Ok(text.parse::<usize>().unwrap_or(usize::MAX))
}

pub async fn get(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    let conversation = find(&state, &id).await?;
    Ok(Json(conversation_json(&conversation)).into_response())
}

#[derive(Debug, Deserialize)]
pub struct Rename {
    title: String,
}

/// `PATCH` with `{"title": ...}`.
pub async fn rename(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Body(Rename { title }): Body<Rename>,
) -> Result<Response, AppError> {
    let title = title.trim();
    let chars = title.chars().count();
    if chars > MAX_TITLE_CHARS {
        return Err(AppError::invalid(
            "title",
            format!("{chars} characters long, at most {MAX_TITLE_CHARS} allowed"),
        ));
    }
    if !state.store.rename_conversation(&id, title).await? {
        return Err(not_found(&id));
    }
    let conversation = find(&state, &id).await?;
    Ok(Json(summary_json(&conversation.summary)).into_response())
}

pub async fn delete(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    if !state.store.delete_conversation(&id).await? {
        return Err(not_found(&id));
    }
    Ok(Json(json!({"id": id, "object": "conversation.deleted", "deleted": true})).into_response())
}

#[derive(Debug, Deserialize)]
pub struct NewMessage {
    content: String,
    /// On unless the client turns it off.
    stream: Option<bool>,
}

/// `POST .../messages` with `{"content": ..., "stream": true}`: one turn,
/// streamed as chat completion chunks (or, with `"stream": false`, the
/// stored answer once the turn is over).
pub async fn post_message(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Body(NewMessage { content, stream }): Body<NewMessage>,
) -> Result<Response, AppError> {
    if content.trim().is_empty() {
        return Err(AppError::invalid("content", "must not be empty"));
    }
    let conversation = find(&state, &id).await?;
    let permit = turns::reserve(&state)?;
    let history = history_of(&conversation);
    let store = &state.store;
    store
        .add_message(&id, Role::User, &content, MessageStatus::Done)
        .await?
        .ok_or_else(|| not_found(&id))?;
    let answer_id = store
        .add_message(&id, Role::Assistant, "", MessageStatus::Running)
        .await?
        .ok_or_else(|| not_found(&id))?;
    let stream = stream.unwrap_or(true);
    // Only a stream's reader can see a question in time to answer it.
    let asking = if stream {
        Asking::Person
    } else {
        Asking::Nobody {
            no_approvals: "a message posted with stream: false has nobody to ask: stream it to be asked",
        }
    };
    // The turn's span names the conversation (`gen_ai.conversation.id`).
    let origin = riverse_tool::CallOrigin::new("serve", Some(&id));
    let (task, updates) = origin.in_scope(|| {
        riverse_agent::turn_span(Some(&id)).in_scope(|| {
            turns::start(
                &state,
                permit,
                TurnRequest::message(Api::Conversations, history, content).writing(&answer_id),
                asking,
            )
        })
    });
    let (forward, mut updates_out) = unbounded_channel();
    tokio::spawn(persist(
        store.clone(),
        answer_id.clone(),
        task,
        updates,
        forward,
    ));
    if stream {
        let first = turns::first_update(&mut updates_out).await?;
        return Ok(stream_response(
            Completion::new(MODEL),
            first,
            updates_out,
            None,
            None,
        ));
    }
    loop {
        match updates_out.recv().await {
            Some(Update::Finished(outcome)) => {
                outcome?;
                break;
            }
            Some(_) => {}
            None => return Err(AppError::internal("the turn stopped without a result")),
        }
    }
    let conversation = find(&state, &id).await?;
    let answer = conversation
        .messages
        .iter()
        .find(|message| message.id == answer_id)
        .ok_or_else(|| not_found(&id))?;
    Ok(Json(json!(answer)).into_response())
}

/// Stores each update of the turn, then passes it on to whoever is
/// listening (if anyone still is), and keeps the answer's heartbeat fresh
/// while the turn runs, so that no server takes it for interrupted. Owns the
/// turn, so it runs to its end.
pub(crate) async fn persist(
    store: Store,
    answer_id: String,
    task: TurnTask,
    mut updates: UnboundedReceiver<Update>,
    forward: UnboundedSender<Update>,
) {
    let _task = task;
    // The answer was stored with a fresh heartbeat: the first beat is due
    // one period later, not at once.
    let period = store.liveness().heartbeat;
    let mut heartbeat = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut said = Said::default();
    loop {
        let update = tokio::select! {
            update = updates.recv() => update,
            _ = heartbeat.tick() => {
                if let Err(err) = store.beat(&answer_id).await {
                    tracing::warn!("can't refresh the heartbeat of message {answer_id}: {err}");
                }
                continue;
            }
        };
        let Some(update) = update else { break };
        let last = matches!(update, Update::Finished(_));
        if let Err(err) = store_update(&store, &answer_id, &update, &mut said).await {
            tracing::error!("can't store the turn of message {answer_id}: {err}");
        }
        let _ = forward.send(update);
        if last {
            break;
        }
    }
}

/// What a turn has said so far and is not stored yet.
#[derive(Default)]
struct Said {
    /// The answer's text, kept if the turn fails halfway.
    answer: String,
    /// Each running call as stored so far, with the log lines it gave since
    /// (stored when it ends).
    running: HashMap<String, CallRecord>,
}

/// Writes what one update changed; `said` gathers what is written later.
async fn store_update(
    store: &Store,
    answer_id: &str,
    update: &Update,
    said: &mut Said,
) -> Result<(), StoreError> {
    match update {
        Update::Event(TurnEvent::ToolCallStarted {
            call_id,
            tool,
            params,
        }) => {
            let record = CallRecord::started(call_id, tool, params.clone());
            store.record_tool_call(answer_id, &record).await?;
            said.running.insert(call_id.clone(), record);
            Ok(())
        }
        Update::Event(TurnEvent::ToolCallFinished(record)) => {
            let mut record = record.clone();
            if let Some(running) = said.running.remove(&record.call_id) {
                record.logs = running.logs;
            }
            store.record_tool_call(answer_id, &record).await
        }
        Update::Event(TurnEvent::ToolLog { call_id, line, .. }) => {
            if let Some(running) = said.running.get_mut(call_id) {
                running.logs.push(line.clone());
            }
            Ok(())
        }
        Update::Event(TurnEvent::AnswerDelta(text)) => {
            said.answer.push_str(text);
            Ok(())
        }
        // Progress and questions matter while the call runs, not after; a
        // pending approval is kept until the call's end says how it went.
        Update::Event(
            TurnEvent::Done { .. }
            | TurnEvent::ToolProgress { .. }
            | TurnEvent::ToolQuestion { .. }
            | TurnEvent::TaskStarted(_),
        )
        | Update::QuestionClosed(_) => Ok(()),
        Update::QuestionAsked(asked) => {
            let running = said.running.get_mut(&asked.call_id);
            match (&asked.question.approval, running) {
                (Some(request), Some(running)) => {
                    running.approval = Some(CallApproval::pending(
                        &request.rule,
                        &asked.id,
                        asked.deadline,
                    ));
                    store.record_tool_call(answer_id, running).await
                }
                _ => Ok(()),
            }
        }
        Update::Finished(Ok(turn)) => {
            if !turn.skills.is_empty() {
                let skills: Vec<Value> = turn.skills.iter().map(|skill| json!(skill)).collect();
                store.keep_skills(answer_id, &skills).await?;
            }
            store
                .finish_message(answer_id, &turn.answer, MessageStatus::Done, None)
                .await
        }
        Update::Finished(Err(err)) => {
            store
                .finish_message(
                    answer_id,
                    &said.answer,
                    MessageStatus::Failed,
                    Some(&err.message),
                )
                .await
        }
    }
}

async fn find(state: &AppState, id: &str) -> Result<Conversation, AppError> {
    state
        .store
        .conversation(id)
        .await?
        .ok_or_else(|| not_found(id))
}

fn not_found(id: &str) -> AppError {
    AppError::not_found(format!("conversation {id:?} not found"))
}

/// What the model reads of a stored conversation: the user's messages and
/// the finished answers. Tool calls are shown to people, not replayed: their
/// results already shaped the answers that follow them.
pub(crate) fn history_of(conversation: &Conversation) -> Vec<Message> {
    conversation
        .messages
        .iter()
        .filter_map(|message| match (message.role, message.status) {
            (Role::User, _) => Some(Message::User(message.content.clone())),
            (Role::Assistant, MessageStatus::Done) => {
                Some(Message::assistant(message.content.clone()))
            }
            (Role::Assistant, _) => None,
        })
        .collect()
}

fn summary_json(summary: &ConversationSummary) -> Value {
    let mut value = json!(summary);
    value["object"] = json!("conversation");
    value
}

fn conversation_json(conversation: &Conversation) -> Value {
    let mut value = json!(conversation);
    value["object"] = json!("conversation");
    value
}
