//! A streamed response: OpenAI's Responses events as server-sent events,
//! each `event: <type>` with `data: <json>`, numbered by `sequence_number`
//! from 0. `response.created` and `response.in_progress` open it, the
//! output's events follow as the turn goes, and `response.completed` (or
//! `response.failed`) ends it; there is no `[DONE]`.

use std::convert::Infallible;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedReceiver;

use super::draft::Draft;
use super::object::Status;
use crate::AppState;
use crate::error::AppError;
use crate::turns::TurnTask;
use crate::updates::Update;

/// The stream's response: `first` (already received), then the rest of the
/// turn's updates. `task` lives as long as the response: a client that
/// disconnects stops the turn.
pub fn stream_response(
    state: Arc<AppState>,
    draft: Draft,
    first: Update,
    updates: UnboundedReceiver<Update>,
    task: TurnTask,
) -> Response {
    let streaming = Streaming {
        state,
        draft,
        first: Some(first),
        updates,
        _task: task,
        sequence: 0,
    };
    let frames = futures_util::stream::unfold(Some(streaming), |streaming| async move {
        let mut streaming = streaming?;
        let (frames, over) = streaming.next_frames().await;
        let next = if over { None } else { Some(streaming) };
        Some((Ok::<_, Infallible>(Bytes::from(frames)), next))
    });
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(frames),
    )
        .into_response()
}

struct Streaming {
    state: Arc<AppState>,
    draft: Draft,
    /// The first update, until the stream opens with it.
    first: Option<Update>,
    updates: UnboundedReceiver<Update>,
    _task: TurnTask,
    /// The next event's `sequence_number`.
    sequence: u64,
}

impl Streaming {
    /// The frames of the next update; whether they end the stream.
    async fn next_frames(&mut self) -> (String, bool) {
        let mut events = Vec::new();
        let update = match self.first.take() {
            Some(first) => {
                let response = self.draft.head.object(Status::InProgress, &[]);
                events.push(json!({"type": "response.created", "response": response}));
                events.push(json!({"type": "response.in_progress", "response": response}));
                Some(first)
            }
            None => self.updates.recv().await,
        };
        let store = &self.state.store;
        let over = match update {
            Some(Update::Finished(Ok(turn))) => {
                let (last, response) = self.draft.complete(&turn, store).await;
                events.extend(last);
                events.push(json!({"type": "response.completed", "response": response}));
                true
            }
            Some(Update::Finished(Err(error))) => {
                let response = self.draft.fail(&error, store).await;
                events.push(json!({"type": "response.failed", "response": response}));
                true
            }
            None => {
                let error = AppError::internal("the turn stopped without a result");
                let response = self.draft.fail(&error, store).await;
                events.push(json!({"type": "response.failed", "response": response}));
                true
            }
            Some(update) => {
                events.extend(self.draft.output.update(&update));
                false
            }
        };
        let frames = events.into_iter().map(|event| self.frame(event)).collect();
        (frames, over)
    }

    fn frame(&mut self, mut event: Value) -> String {
        event["sequence_number"] = json!(self.sequence);
        self.sequence += 1;
        let kind = event["type"].as_str().unwrap_or_default().to_owned();
        format!("event: {kind}\ndata: {event}\n\n")
    }
}
