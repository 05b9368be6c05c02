//! `GET /v1/conversations/{id}/events`: the turns the server runs in a
//! conversation by itself (the follow-up that answers from a background
//! task's end), streamed as they run to whoever has the conversation open.
//!
//! The stream is server-sent events that stay open. Each turn's events are
//! `chat.completion.chunk`s as a message's stream has them (the `sse`
//! module), each with a top-level `message_id`, the stored answer the turn
//! writes, so that turns running at once can be told apart:
//!
//! - first, a role chunk whose `riverse` is
//!   `{"type": "follow_up.started", "message_id", "task_id", "tool"}`;
//! - the task's call with its result, `{"type": "tool_call.finished", ...}`
//!   (none for a task that was interrupted: its call never ended);
//! - the turn's own text deltas and tool activity, as they come;
//! - its end: the last chunk, whose `riverse` is `{"type": "done", "answer"}`
//!   (the answer as stored, already written when it is sent), or
//!   `{"error": {...}, "message_id"}` for a turn that failed.
//!
//! No `[DONE]` follows a turn: the stream goes on for the next one, with a
//! `: keep-alive` comment every 15 s while nothing happens, until the client
//! leaves or the server stops. A client that connects while a turn runs is
//! sent that turn's events so far first, then the rest as they come; what
//! ended before it connected is in the stored conversation
//! (`GET /v1/conversations/{id}`), which stays the source of truth: a client
//! connects first, then reads the conversation, and misses nothing.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use futures_util::Stream;
use parking_lot::Mutex;
use riverse_agent::TurnEvent;
use riverse_tool::CallRecord;
use serde_json::{Value, json};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use crate::AppState;
use crate::completions::MODEL;
use crate::error::AppError;
use crate::sse::Completion;
use crate::updates::Update;

/// How often an idle stream says it is still there.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The open streams and the turns they follow, by conversation.
#[derive(Clone, Default)]
pub(crate) struct ConversationEvents(Arc<Mutex<Rooms>>);

#[derive(Default)]
struct Rooms {
    /// Set once the server stops: every stream ends, and none starts.
    closed: bool,
    by_conversation: HashMap<String, Room>,
}

/// One conversation's listeners and running turns.
#[derive(Default)]
struct Room {
    listeners: Vec<UnboundedSender<Arc<str>>>,
    /// Each running turn's frames so far, for a listener that comes late.
    running: Vec<(String, Vec<Arc<str>>)>,
}

impl ConversationEvents {
    /// A new listener of `conversation`: the frames of its running turns so
    /// far, then each frame as it is sent.
    fn listen(&self, conversation: &str) -> Listening {
        let (sender, frames) = unbounded_channel();
        let listening = Listening {
            frames,
            events: self.clone(),
            conversation: conversation.to_owned(),
        };
        let mut rooms = self.0.lock();
        if rooms.closed {
            return listening;
        }
        let room = rooms
            .by_conversation
            .entry(conversation.to_owned())
            .or_default();
        for (_, said) in &room.running {
            for frame in said {
                let _ = sender.send(frame.clone());
            }
        }
        room.listeners.push(sender);
        listening
    }

    /// Forgets the listeners of `conversation` that have gone.
    fn forget_gone(&self, conversation: &str) {
        let mut rooms = self.0.lock();
        let Some(room) = rooms.by_conversation.get_mut(conversation) else {
            return;
        };
        room.listeners.retain(|listener| !listener.is_closed());
        if room.listeners.is_empty() && room.running.is_empty() {
            rooms.by_conversation.remove(conversation);
        }
    }

    /// Where a turn that writes the answer `message_id` in `conversation`
    /// sends its events.
    pub(crate) fn turn(&self, conversation: &str, message_id: &str) -> TurnFrames {
        let mut rooms = self.0.lock();
        if !rooms.closed {
            rooms
                .by_conversation
                .entry(conversation.to_owned())
                .or_default()
                .running
                .push((message_id.to_owned(), Vec::new()));
        }
        drop(rooms);
        TurnFrames {
            events: self.clone(),
            conversation: conversation.to_owned(),
            message_id: message_id.to_owned(),
            completion: Completion::new(MODEL),
            ended: false,
        }
    }

    /// Ends every stream, as the server stops.
    pub(crate) fn close(&self) {
        let mut rooms = self.0.lock();
        rooms.closed = true;
        rooms.by_conversation.clear();
    }

    /// Sends `frame` of the turn `message_id` to the listeners of
    /// `conversation`, keeping it for late ones until `last`.
    fn send(&self, conversation: &str, message_id: &str, frame: String, last: bool) {
        let frame: Arc<str> = Arc::from(frame);
        let mut rooms = self.0.lock();
        let Some(room) = rooms.by_conversation.get_mut(conversation) else {
            return;
        };
        room.listeners
            .retain(|listener| listener.send(frame.clone()).is_ok());
        if last {
            room.running.retain(|(id, _)| id != message_id);
        } else if let Some((_, said)) = room.running.iter_mut().find(|(id, _)| id == message_id) {
            said.push(frame);
        }
        if room.listeners.is_empty() && room.running.is_empty() {
            rooms.by_conversation.remove(conversation);
        }
    }
}

/// One stream's frames; its listener is forgotten when it goes.
struct Listening {
    frames: UnboundedReceiver<Arc<str>>,
    events: ConversationEvents,
    conversation: String,
}

impl Drop for Listening {
    fn drop(&mut self) {
        self.frames.close();
        self.events.forget_gone(&self.conversation);
    }
}

/// One turn's events, as its conversation's streams get them. A turn
/// dropped before its end is told as failed.
pub(crate) struct TurnFrames {
    events: ConversationEvents,
    conversation: String,
    message_id: String,
    completion: Completion,
    ended: bool,
}

impl TurnFrames {
    /// The turn's first event: it answers from the end of `task_id`, a call of `tool`.
    pub(crate) fn started(&self, task_id: &str, tool: &str) {
        let started = json!({
            "type": "follow_up.started", "message_id": self.message_id,
            "task_id": task_id, "tool": tool,
        });
        let role = json!({"role": "assistant", "content": ""});
        self.send(self.completion.chunk(role, None, Some(started)), false);
    }

    /// The task's call, with its result, stored under the turn's answer.
    pub(crate) fn task_call(&self, record: &CallRecord) {
        let update = Update::Event(TurnEvent::ToolCallFinished(record.clone()));
        for chunk in self.completion.chunks(update) {
            self.send(chunk, false);
        }
    }

    /// One update of the turn, once stored; its last ends the turn.
    pub(crate) fn update(&mut self, update: Update) {
        if self.ended {
            return;
        }
        let last = matches!(update, Update::Finished(_));
        let mut chunks = self.completion.chunks(update);
        let end = if last { chunks.pop() } else { None };
        for chunk in chunks {
            self.send(chunk, false);
        }
        if let Some(end) = end {
            self.ended = true;
            self.send(end, true);
        }
    }

    fn send(&self, mut chunk: Value, last: bool) {
        chunk["message_id"] = json!(self.message_id);
        self.events.send(
            &self.conversation,
            &self.message_id,
            format!("data: {chunk}\n\n"),
            last,
        );
    }
}

impl Drop for TurnFrames {
    fn drop(&mut self) {
        if !self.ended {
            let stopped = AppError::internal("the follow-up stopped without a result");
            self.update(Update::Finished(Err(stopped)));
        }
    }
}

/// `GET /v1/conversations/{id}/events`; an unknown conversation is a 404.
pub async fn events(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    if state.store.conversation(&id).await?.is_none() {
        return Err(AppError::not_found(format!(
            "conversation {id:?} not found"
        )));
    }
    let frames = state.conversation_events.listen(&id);
    Ok((
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(stream(frames)),
    )
        .into_response())
}

/// A comment first (so that the client has the reply's head at once), then
/// each frame, with a keep-alive comment whenever the stream was quiet.
fn stream(frames: Listening) -> impl Stream<Item = Result<Bytes, Infallible>> + Send {
    let quiet = tokio::time::interval_at(tokio::time::Instant::now() + KEEP_ALIVE, KEEP_ALIVE);
    let first = Some(Bytes::from_static(b": riverse conversation events\n\n"));
    futures_util::stream::unfold(
        (frames, quiet, first),
        |(mut frames, mut quiet, first)| async move {
            if let Some(first) = first {
                return Some((Ok(first), (frames, quiet, None)));
            }
            let bytes = tokio::select! {
                frame = frames.frames.recv() => Bytes::copy_from_slice(frame?.as_bytes()),
                _ = quiet.tick() => Bytes::from_static(b": keep-alive\n\n"),
            };
            quiet.reset();
            Some((Ok(bytes), (frames, quiet, None)))
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The frames waiting for `listening`, as their chunks.
    fn received(listening: &mut Listening) -> Vec<Value> {
        let mut frames = Vec::new();
        while let Ok(frame) = listening.frames.try_recv() {
            let data = frame.strip_prefix("data: ").unwrap().trim_end();
            frames.push(serde_json::from_str(data).unwrap());
        }
        frames
    }

    #[test]
    fn a_late_listener_gets_the_running_turn_from_its_start_and_gone_ones_are_forgotten() {
        let events = ConversationEvents::default();
        let mut early = events.listen("conv_a");
        let mut elsewhere = events.listen("conv_b");
        let mut turn = events.turn("conv_a", "msg_1");
        turn.started("task_1", "slow");
        turn.update(Update::Event(TurnEvent::AnswerDelta("Rea".to_owned())));
        let mut late = events.listen("conv_a");
        turn.update(Update::Event(TurnEvent::AnswerDelta("dy.".to_owned())));
        turn.update(Update::Finished(Err(AppError::conflict(
            "broken", "it broke",
        ))));
        // Nothing after the end.
        turn.update(Update::Event(TurnEvent::AnswerDelta("!".to_owned())));

        let said = received(&mut early);
        assert_eq!(received(&mut late), said);
        assert!(received(&mut elsewhere).is_empty());
        let shown: Vec<String> = said
            .iter()
            .map(|chunk| {
                assert_eq!(chunk["message_id"], "msg_1");
                match (chunk["riverse"]["type"].as_str(), &chunk["error"]) {
                    (Some(kind), _) => kind.to_owned(),
                    (None, Value::Object(error)) => format!("error: {}", error["message"]),
                    (None, _) => chunk["choices"][0]["delta"]["content"].to_string(),
                }
            })
            .collect();
        assert_eq!(
            shown,
            [
                "follow_up.started",
                "\"Rea\"",
                "\"dy.\"",
                "error: \"it broke\""
            ]
        );
        // The ended turn is kept no more; listeners that went are forgotten.
        drop((early, late));
        assert_eq!(events.0.lock().by_conversation.len(), 1);
        drop(elsewhere);
        assert!(events.0.lock().by_conversation.is_empty());
    }

    #[test]
    fn a_turn_dropped_before_its_end_is_told_as_failed_and_close_ends_every_stream() {
        let events = ConversationEvents::default();
        let mut listening = events.listen("conv_a");
        drop(events.turn("conv_a", "msg_1"));
        let said = received(&mut listening);
        assert_eq!(said.len(), 1);
        assert_eq!(said[0]["error"]["code"], "internal_error");
        events.close();
        assert!(listening.frames.try_recv().is_err());
        assert!(listening.frames.is_closed());
        let mut after = events.listen("conv_a");
        assert!(after.frames.try_recv().is_err());
        assert!(after.frames.is_closed());
    }
}
