//! `POST /v1/responses`, and `GET`/`DELETE /v1/responses/{id}`: OpenAI's
//! Responses API. The request's input items (after the stored conversation
//! of `previous_response_id`, when it names one) are the conversation; one
//! agent turn runs on it with every tool of Riverse's, server-side, and the
//! request's function tools beside them. Tools of other types (`web_search`,
//! `file_search`, ...) are not offered to the model: the response lists them
//! in `riverse.ignored_tools`.
//!
//! Riverse's calls come out as `mcp_call` items, with their output and a
//! field of Riverse's, `call_id`, the model's id for the call: an item sent
//! back shows the model its call under the id it gave it. When the model
//! calls one of the client's tools, the response ends with its
//! `function_call` items, and the client's `function_call_output`s go on
//! from them. A response (with `store`, the default) is kept in the
//! [`riverse_store::Store`] with the conversation it ends, so any server
//! sharing the database can go on from it.
//!
//! Nobody is there to answer what tools ask: their questions are cancels,
//! and calls that need an approval are refused.

mod draft;
mod items;
mod object;
mod output;
mod request;
mod stream;

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use riverse_llm::Message;
use serde_json::{Value, json};

use self::draft::Draft;
use self::items::Placed;
use self::object::ResponseHead;
use self::output::Output;
use self::request::{ResponseBody, ResponseRequest};
use crate::AppState;
use crate::body::Body;
use crate::client_tools;
use crate::error::AppError;
use crate::prometheus::Api;
use crate::turns::{self, Asking, TurnRequest};
use crate::updates::Update;

/// Why a response refuses the calls that ask for approval.
const NO_APPROVALS: &str = "/v1/responses has nobody to ask for an approval: post the message \
    to a conversation (POST /v1/conversations/{id}/messages, streamed) to be asked, or set the \
    tool's approval to auto";

/// Where the items of the previous response are said to be, for errors.
const PREVIOUS: &str = "previous_response_id";

pub async fn create(
    State(state): State<Arc<AppState>>,
    Body(body): Body<ResponseBody>,
) -> Result<Response, AppError> {
    let mut request = body.check()?;
    let head = ResponseHead::new(&request);
    let tool_use = client_tools::tool_use(
        std::mem::take(&mut request.functions),
        request.choice.take(),
        request.parallel_tool_calls,
        &state.agent.registry(),
    )?;
    let previous = previous_items(&state, &request).await?;
    let (history, message) = turn_input(&request, &previous)?;
    let mut before = previous;
    before.extend(request.input.iter().map(|placed| placed.item.to_json()));
    let permit = turns::reserve(&state)?;
    let turn = TurnRequest {
        api: Api::Responses,
        history,
        message,
        tool_use,
        follow_up: None,
        answer_id: None,
    };
    let asking = Asking::Nobody {
        no_approvals: NO_APPROVALS,
    };
    let (task, mut updates) = turns::start(&state, permit, turn, asking);
    let mut draft = Draft {
        head,
        output: Output::default(),
        before,
    };
    if request.stream {
        let first = turns::first_update(&mut updates).await?;
        return Ok(stream::stream_response(state, draft, first, updates, task));
    }
    let finished = loop {
        match updates.recv().await {
            Some(Update::Finished(outcome)) => break outcome?,
            Some(update) => {
                draft.output.update(&update);
            }
            None => return Err(AppError::internal("the turn stopped without a result")),
        }
    };
    let (_, object) = draft.complete(&finished, &state.store).await;
    Ok(Json(object).into_response())
}

/// The conversation the previous response ended, as items; none without
/// `previous_response_id`, a 404 when no response is stored by that id.
async fn previous_items(
    state: &AppState,
    request: &ResponseRequest,
) -> Result<Vec<Value>, AppError> {
    let Some(id) = &request.previous_response_id else {
        return Ok(Vec::new());
    };
    let previous = state.store.response(id).await?.ok_or_else(|| {
        AppError::not_found_at(
            PREVIOUS,
            "previous_response_not_found",
            format!("no response {id:?} is stored (one made with store: false never is)"),
        )
    })?;
    Ok(previous.items)
}

/// What the turn is asked: the messages of the `previous` items and the
/// request's, after the instructions, with the user's last message apart
/// (`None` when the request ends with the outputs of the client's calls).
fn turn_input(
    request: &ResponseRequest,
    previous: &[Value],
) -> Result<(Vec<Message>, Option<String>), AppError> {
    let mut placed = Vec::with_capacity(previous.len() + request.input.len());
    for value in previous {
        if let Some(item) = items::read(value.clone(), PREVIOUS)? {
            placed.push(Placed {
                at: PREVIOUS.to_owned(),
                item,
            });
        }
    }
    placed.extend(request.input.iter().cloned());
    let mut history: Vec<Message> = request
        .instructions
        .iter()
        .map(|instructions| Message::System(instructions.clone()))
        .collect();
    history.extend(items::replay(&placed)?);
    let message = match history.pop() {
        Some(Message::User(text)) => Some(text),
        other => {
            history.extend(other);
            None
        }
    };
    Ok((history, message))
}

pub async fn get(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    let stored = state
        .store
        .response(&id)
        .await?
        .ok_or_else(|| not_found(&id))?;
    Ok(Json(stored.response).into_response())
}

pub async fn delete(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    if !state.store.delete_response(&id).await? {
        return Err(not_found(&id));
    }
    Ok(Json(json!({"id": id, "object": "response", "deleted": true})).into_response())
}

fn not_found(id: &str) -> AppError {
    AppError::not_found(format!("response {id:?} not found"))
}
