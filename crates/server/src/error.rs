//! Errors in OpenAI's shape: `{"error": {"message", "type", "param", "code"}}`.

use std::fmt::Display;
use std::time::Duration;

use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// What a client may wait before trying again after a 429, in seconds.
const RETRY_AFTER_SECS: u64 = 1;
/// The `code` of a turn cut off because the server is stopping.
const SERVER_STOPPING: &str = "server_stopping";

#[derive(Debug, Clone)]
pub struct AppError {
    pub status: StatusCode,
    /// OpenAI's `type`.
    pub kind: &'static str,
    pub code: &'static str,
    /// The request field at fault, for a 400.
    pub param: Option<String>,
    pub message: String,
}

impl AppError {
    fn new(status: StatusCode, kind: &'static str, code: &'static str, message: String) -> Self {
        AppError {
            status,
            kind,
            code,
            param: None,
            message,
        }
    }

    /// A malformed request; `param` names the field at fault.
    pub fn invalid(param: &str, message: impl Display) -> Self {
        AppError {
            param: Some(param.to_owned()),
            ..AppError::new(
                StatusCode::BAD_REQUEST,
                "invalid_request_error",
                "invalid_value",
                format!("{param}: {message}"),
            )
        }
    }

    pub fn malformed_json(cause: impl Display) -> Self {
        AppError::new(
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            "invalid_json",
            format!("the body is not valid JSON: {cause}"),
        )
    }

    pub fn unauthorized() -> Self {
        AppError::new(
            StatusCode::UNAUTHORIZED,
            "invalid_request_error",
            "invalid_api_key",
            "missing or wrong token: send Authorization: Bearer <serve.token>".to_owned(),
        )
    }

    /// A request turned away before any route (see `guard::Refusal`).
    pub fn refused(status: StatusCode, code: &'static str, message: String) -> Self {
        AppError::new(status, "invalid_request_error", code, message)
    }

    pub fn not_found(message: impl Display) -> Self {
        AppError::new(
            StatusCode::NOT_FOUND,
            "invalid_request_error",
            "not_found",
            message.to_string(),
        )
    }

    /// What the request's field `param` names is not there: a 404 naming
    /// the field, its `code` saying what was missing.
    pub fn not_found_at(param: &str, code: &'static str, message: impl Display) -> Self {
        AppError {
            param: Some(param.to_owned()),
            ..AppError::new(
                StatusCode::NOT_FOUND,
                "invalid_request_error",
                code,
                message.to_string(),
            )
        }
    }

    pub fn conflict(code: &'static str, message: impl Display) -> Self {
        AppError::new(
            StatusCode::CONFLICT,
            "invalid_request_error",
            code,
            message.to_string(),
        )
    }

    pub fn too_large(limit: usize) -> Self {
        AppError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "invalid_request_error",
            "body_too_large",
            format!("the body is larger than serve.max_body_bytes ({limit} bytes)"),
        )
    }

    /// A body still arriving at its deadline (see `body::BodyTimedOut`).
    pub fn body_timed_out(cause: impl Display) -> Self {
        AppError::new(
            StatusCode::REQUEST_TIMEOUT,
            "invalid_request_error",
            "body_timeout",
            cause.to_string(),
        )
    }

    pub fn busy(limit: usize) -> Self {
        AppError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limit_error",
            "too_many_turns",
            format!("{limit} turns are running (serve.max_concurrent_turns); try again shortly"),
        )
    }

    /// The LLM can't be reached or understood: the provider's one-line
    /// cause, whole in the log; clients get it without the endpoint's address.
    pub fn llm(cause: impl Display) -> Self {
        let cause = cause.to_string();
        tracing::warn!("{cause}");
        AppError::new(
            StatusCode::BAD_GATEWAY,
            "llm_error",
            "llm_unavailable",
            without_urls(&cause),
        )
    }

    pub fn turn_timed_out(after: Duration) -> Self {
        AppError::new(
            StatusCode::GATEWAY_TIMEOUT,
            "timeout_error",
            "turn_timeout",
            format!(
                "the turn did not finish within {} s (serve.turn_timeout)",
                after.as_secs_f64()
            ),
        )
    }

    /// A turn still running when the server, stopping, had waited
    /// `serve.shutdown_timeout` for it.
    pub fn server_stopping(waited: Duration) -> Self {
        AppError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "server_error",
            SERVER_STOPPING,
            format!(
                "the server is stopping: the turn was still running after {} s \
                 (serve.shutdown_timeout) and was stopped",
                waited.as_secs_f64()
            ),
        )
    }

    /// A failure of the server itself: the detail goes to the log, the
    /// client gets a short message.
    pub fn internal(detail: impl Display) -> Self {
        tracing::error!("{detail}");
        AppError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "server_error",
            "internal_error",
            "internal server error (see the server's log)".to_owned(),
        )
    }

    /// The body, also sent as the last event of a stream that fails.
    pub fn body(&self) -> Value {
        json!({"error": {
            "message": self.message,
            "type": self.kind,
            "param": self.param,
            "code": self.code,
        }})
    }
}

/// `text` with every `http://` or `https://` address replaced.
fn without_urls(text: &str) -> String {
    text.split_inclusive(char::is_whitespace)
        .map(|word| {
            let bare = word.trim_start_matches(['(', '[', '<', '"', '\'']);
            let lower = bare.to_ascii_lowercase();
            if lower.starts_with("http://") || lower.starts_with("https://") {
                let trailing = &word[word.trim_end().len()..];
                format!("(the LLM endpoint){trailing}")
            } else {
                word.to_owned()
            }
        })
        .collect()
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let mut response = (self.status, axum::Json(self.body())).into_response();
        if self.status == StatusCode::TOO_MANY_REQUESTS {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECS));
        }
        // The `openai` packages retry a 503 by themselves, and would report
        // the stopped server's refused connection instead of this; the turn's
        // tools may have run, too.
        if self.code == SERVER_STOPPING {
            response.headers_mut().insert(
                HeaderName::from_static("x-should-retry"),
                HeaderValue::from_static("false"),
            );
        }
        response
    }
}

impl From<riverse_store::StoreError> for AppError {
    fn from(err: riverse_store::StoreError) -> Self {
        AppError::internal(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_llm_error_reaches_clients_without_the_endpoint() {
        let error = AppError::llm(
            "can't reach the LLM at http://user:***@10.1.2.3:8000/v1/chat/completions: connection refused (\"HTTPS://llm.internal/v1\")",
        );
        assert_eq!(
            error.message,
            "can't reach the LLM at (the LLM endpoint) connection refused (the LLM endpoint)"
        );
    }
}
