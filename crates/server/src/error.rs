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
        if self.status == StatusCode::UNAUTHORIZED {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
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
    use crate::body::BodyTimedOut;
    use crate::guard::Refusal;

    /// `error` as a client reads it: the status line, the headers and the
    /// JSON body.
    async fn as_client_reads(error: AppError) -> String {
        let response = error.into_response();
        let mut text = format!("{}\n", response.status());
        for (name, value) in response.headers() {
            text.push_str(&format!("{name}: {}\n", value.to_str().unwrap()));
        }
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        let body: Value = serde_json::from_slice(&bytes).unwrap();
        text.push('\n');
        text.push_str(&serde_json::to_string_pretty(&body).unwrap());
        text
    }

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

    #[tokio::test]
    async fn a_bad_field_is_a_400_naming_its_param() {
        let invalid = AppError::invalid("messages[1].role", "must be one of system, user");
        insta::assert_snapshot!(as_client_reads(invalid).await, @r#"
        400 Bad Request
        content-type: application/json

        {
          "error": {
            "message": "messages[1].role: must be one of system, user",
            "type": "invalid_request_error",
            "param": "messages[1].role",
            "code": "invalid_value"
          }
        }
        "#);
    }

    #[tokio::test]
    async fn a_body_that_is_not_json_is_a_400_with_no_param() {
        let malformed = AppError::malformed_json("expected value at line 1 column 1");
        insta::assert_snapshot!(as_client_reads(malformed).await, @r#"
        400 Bad Request
        content-type: application/json

        {
          "error": {
            "message": "the body is not valid JSON: expected value at line 1 column 1",
            "type": "invalid_request_error",
            "param": null,
            "code": "invalid_json"
          }
        }
        "#);
    }

    #[tokio::test]
    async fn a_missing_token_is_a_401() {
        insta::assert_snapshot!(as_client_reads(AppError::unauthorized()).await, @r#"
        401 Unauthorized
        content-type: application/json
        www-authenticate: Bearer

        {
          "error": {
            "message": "missing or wrong token: send Authorization: Bearer <serve.token>",
            "type": "invalid_request_error",
            "param": null,
            "code": "invalid_api_key"
          }
        }
        "#);
    }

    #[tokio::test]
    async fn a_refused_request_has_the_guards_status_and_code() {
        let refusal = Refusal::ForeignHost("evil.example".into());
        let refused = AppError::refused(refusal.status(), refusal.code(), refusal.message());
        insta::assert_snapshot!(as_client_reads(refused).await, @r#"
        403 Forbidden
        content-type: application/json

        {
          "error": {
            "message": "forbidden: this server answers only requests to localhost, not to \"evil.example\" (set serve.token to serve other names)",
            "type": "invalid_request_error",
            "param": null,
            "code": "forbidden"
          }
        }
        "#);
    }

    #[tokio::test]
    async fn a_missing_thing_is_a_404_with_no_param() {
        let missing = AppError::not_found("conversation \"c_9\" not found");
        insta::assert_snapshot!(as_client_reads(missing).await, @r#"
        404 Not Found
        content-type: application/json

        {
          "error": {
            "message": "conversation \"c_9\" not found",
            "type": "invalid_request_error",
            "param": null,
            "code": "not_found"
          }
        }
        "#);
    }

    #[tokio::test]
    async fn a_missing_thing_a_field_named_is_a_404_naming_the_field() {
        let previous = AppError::not_found_at(
            "previous_response_id",
            "previous_response_not_found",
            "no response \"resp_1\" is stored (one made with store: false never is)",
        );
        insta::assert_snapshot!(as_client_reads(previous).await, @r#"
        404 Not Found
        content-type: application/json

        {
          "error": {
            "message": "no response \"resp_1\" is stored (one made with store: false never is)",
            "type": "invalid_request_error",
            "param": "previous_response_id",
            "code": "previous_response_not_found"
          }
        }
        "#);
    }

    #[tokio::test]
    async fn a_conflict_is_a_409_with_its_code() {
        let conflict = AppError::conflict("tool_unavailable", "weather failed to load");
        insta::assert_snapshot!(as_client_reads(conflict).await, @r#"
        409 Conflict
        content-type: application/json

        {
          "error": {
            "message": "weather failed to load",
            "type": "invalid_request_error",
            "param": null,
            "code": "tool_unavailable"
          }
        }
        "#);
    }

    #[tokio::test]
    async fn a_body_too_large_or_too_slow_is_a_413_or_a_408() {
        insta::assert_snapshot!(as_client_reads(AppError::too_large(1_048_576)).await, @r#"
        413 Payload Too Large
        content-type: application/json

        {
          "error": {
            "message": "the body is larger than serve.max_body_bytes (1048576 bytes)",
            "type": "invalid_request_error",
            "param": null,
            "code": "body_too_large"
          }
        }
        "#);
        let slow = AppError::body_timed_out(BodyTimedOut(Duration::from_secs(30)));
        insta::assert_snapshot!(as_client_reads(slow).await, @r#"
        408 Request Timeout
        content-type: application/json

        {
          "error": {
            "message": "the body did not arrive within serve.body_timeout (30 s)",
            "type": "invalid_request_error",
            "param": null,
            "code": "body_timeout"
          }
        }
        "#);
    }

    #[tokio::test]
    async fn a_busy_server_is_a_429_with_retry_after() {
        insta::assert_snapshot!(as_client_reads(AppError::busy(8)).await, @r#"
        429 Too Many Requests
        content-type: application/json
        retry-after: 1

        {
          "error": {
            "message": "8 turns are running (serve.max_concurrent_turns); try again shortly",
            "type": "rate_limit_error",
            "param": null,
            "code": "too_many_turns"
          }
        }
        "#);
    }

    #[tokio::test]
    async fn an_llm_failure_is_a_502_without_the_endpoint() {
        let llm =
            AppError::llm("can't reach the LLM at http://10.1.2.3:8000/v1 (connection refused)");
        insta::assert_snapshot!(as_client_reads(llm).await, @r#"
        502 Bad Gateway
        content-type: application/json

        {
          "error": {
            "message": "can't reach the LLM at (the LLM endpoint) (connection refused)",
            "type": "llm_error",
            "param": null,
            "code": "llm_unavailable"
          }
        }
        "#);
    }

    #[tokio::test]
    async fn a_turn_past_its_time_is_a_504() {
        let late = AppError::turn_timed_out(Duration::from_millis(120_500));
        insta::assert_snapshot!(as_client_reads(late).await, @r#"
        504 Gateway Timeout
        content-type: application/json

        {
          "error": {
            "message": "the turn did not finish within 120.5 s (serve.turn_timeout)",
            "type": "timeout_error",
            "param": null,
            "code": "turn_timeout"
          }
        }
        "#);
    }

    #[tokio::test]
    async fn a_turn_stopped_with_the_server_is_a_503_not_to_retry() {
        let stopping = AppError::server_stopping(Duration::from_secs(10));
        insta::assert_snapshot!(as_client_reads(stopping).await, @r#"
        503 Service Unavailable
        content-type: application/json
        x-should-retry: false

        {
          "error": {
            "message": "the server is stopping: the turn was still running after 10 s (serve.shutdown_timeout) and was stopped",
            "type": "server_error",
            "param": null,
            "code": "server_stopping"
          }
        }
        "#);
    }

    #[tokio::test]
    async fn an_internal_failure_is_a_500_keeping_its_detail_in_the_log() {
        let internal = AppError::internal("database is locked at /srv/riverse/riverse.db");
        insta::assert_snapshot!(as_client_reads(internal).await, @r#"
        500 Internal Server Error
        content-type: application/json

        {
          "error": {
            "message": "internal server error (see the server's log)",
            "type": "server_error",
            "param": null,
            "code": "internal_error"
          }
        }
        "#);
    }
}
