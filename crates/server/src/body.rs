//! Request bodies: each must arrive within `serve.body_timeout`
//! ([`with_deadline`], on every route), read up to `serve.max_body_bytes`,
//! then parsed as JSON.

use std::time::Duration;

use axum::body::{Body, HttpBody};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use futures_util::StreamExt;
use serde_json::{Map, Value};

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
    next.run(Request::from_parts(parts, Body::from_stream(timed)))
        .await
}

/// The body as JSON; 413 past `limit` bytes (without reading further), 400
/// when it is not JSON.
pub async fn json_body(body: Body, limit: usize) -> Result<Value, AppError> {
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

/// The body as a JSON object.
pub async fn object_body(body: Body, limit: usize) -> Result<Map<String, Value>, AppError> {
    match json_body(body, limit).await? {
        Value::Object(object) => Ok(object),
        other => Err(AppError::invalid(
            "body",
            format!("expected a JSON object, got {}", kind_of(&other)),
        )),
    }
}

/// A JSON value's kind, for messages.
pub fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// An optional boolean field.
pub fn optional_bool(
    object: &Map<String, Value>,
    field: &str,
    default: bool,
) -> Result<bool, AppError> {
    match object.get(field) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Bool(value)) => Ok(*value),
        Some(other) => Err(AppError::invalid(
            field,
            format!("expected true or false, got {}", kind_of(other)),
        )),
    }
}

/// A required string field.
pub fn required_string<'a>(
    object: &'a Map<String, Value>,
    field: &str,
) -> Result<&'a str, AppError> {
    match object.get(field) {
        Some(Value::String(text)) => Ok(text),
        None | Some(Value::Null) => Err(AppError::invalid(field, "missing")),
        Some(other) => Err(AppError::invalid(
            field,
            format!("expected a string, got {}", kind_of(other)),
        )),
    }
}
