//! Request bodies: each must arrive within `serve.body_timeout`
//! ([`with_deadline`], on every route); a `/v1` route's is read up to
//! `serve.max_body_bytes` and parsed as JSON into the route's own type
//! ([`Body`]).

use std::sync::Arc;
use std::time::Duration;

use axum::body::HttpBody;
use axum::extract::{FromRequest, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use futures_util::StreamExt;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::AppState;
use crate::error::AppError;

/// A body that was still arriving at its deadline.
#[derive(Debug, thiserror::Error)]
#[error("the body did not arrive within serve.body_timeout ({} s)", .0.as_secs_f64())]
pub struct BodyTimedOut(pub Duration);

/// Gives the request's body a deadline, counted from now: past it, reading
/// the body fails with [`BodyTimedOut`]. A client trickling a body a byte at
/// a time holds a connection no longer than that.
pub async fn with_deadline(
    State(limit): State<Duration>,
    request: Request,
    next: Next,
) -> Response {
    // Most requests (every GET) have no body to wait for.
    if request.body().is_end_stream() {
        return next.run(request).await;
    }
    let deadline = tokio::time::Instant::now() + limit;
    let (parts, body) = request.into_parts();
    let data = body.into_data_stream();
    let timed = futures_util::stream::unfold(Some(data), move |data| async move {
        let mut data = data?;
        match tokio::time::timeout_at(deadline, data.next()).await {
            Ok(Some(Ok(piece))) => Some((Ok(piece), Some(data))),
            Ok(Some(Err(err))) => Some((Err(axum::BoxError::from(err)), None)),
            Ok(None) => None,
            Err(_) => Some((Err(axum::BoxError::from(BodyTimedOut(limit))), None)),
        }
    });
    next.run(Request::from_parts(
        parts,
        axum::body::Body::from_stream(timed),
    ))
    .await
}

/// A request's body as `T`: 413 past `serve.max_body_bytes` (without
/// reading further), an empty body read as `{}`, and a 400 when it is not
/// a JSON object or not a `T`, naming the field at fault.
#[derive(Debug)]
pub struct Body<T>(pub T);

impl<T: DeserializeOwned> FromRequest<Arc<AppState>> for Body<T> {
    type Rejection = AppError;

    async fn from_request(request: Request, state: &Arc<AppState>) -> Result<Self, AppError> {
        let value = json_body(request.into_body(), state.options.max_body_bytes).await?;
        parse(value).map(Body)
    }
}

async fn json_body(body: axum::body::Body, limit: usize) -> Result<Value, AppError> {
    let mut bytes = Vec::new();
    let mut data = body.into_data_stream();
    while let Some(piece) = data.next().await {
        let piece = piece.map_err(read_error)?;
        if bytes.len() + piece.len() > limit {
            return Err(AppError::too_large(limit));
        }
        bytes.extend_from_slice(&piece);
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(Map::new()));
    }
    serde_json::from_slice(&bytes).map_err(AppError::malformed_json)
}

fn read_error(err: axum::Error) -> AppError {
    let cause = err.into_inner();
    match cause.downcast_ref::<BodyTimedOut>() {
        Some(timed_out) => AppError::body_timed_out(timed_out),
        None => AppError::malformed_json(format!("can't read it: {cause}")),
    }
}

/// A JSON object as `T`, or a 400 whose `param` is the field that is
/// missing or of the wrong type (`body` for the body itself).
pub(crate) fn parse<T: DeserializeOwned>(value: Value) -> Result<T, AppError> {
    // serde would also take an array for a struct, its fields in order.
    if !value.is_object() {
        return Err(AppError::invalid(
            "body",
            format!("expected a JSON object, got {}", kind_of(&value)),
        ));
    }
    serde_path_to_error::deserialize(value).map_err(|err| {
        let path = err.path();
        let at = path.iter().next().is_some().then(|| path.to_string());
        let why = err.into_inner().to_string();
        // serde names a missing field in its message, at the path of the
        // object that lacks it.
        let missing = why
            .strip_prefix("missing field `")
            .and_then(|rest| rest.strip_suffix('`'));
        match (at, missing) {
            (Some(at), Some(field)) => AppError::invalid(&format!("{at}.{field}"), "missing"),
            (None, Some(field)) => AppError::invalid(field, "missing"),
            (Some(at), None) => AppError::invalid(&at, why),
            (None, None) => AppError::invalid("body", why),
        }
    })
}

/// A JSON value's kind, for messages.
pub(crate) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
