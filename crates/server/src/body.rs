//! Request bodies: read up to `serve.max_body_bytes`, then parsed as JSON.

use axum::body::Body;
use futures_util::StreamExt;
use serde_json::{Map, Value};

use crate::error::AppError;

/// The body as JSON; 413 past `limit` bytes (without reading further), 400
/// when it is not JSON.
pub async fn json_body(body: Body, limit: usize) -> Result<Value, AppError> {
    let mut bytes = Vec::new();
    let mut data = body.into_data_stream();
    while let Some(piece) = data.next().await {
        let piece =
            piece.map_err(|err| AppError::malformed_json(format!("can't read it: {err}")))?;
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
