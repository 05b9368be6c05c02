//! POSTing JSON to an LLM endpoint: retries with backoff, the request timeout,
//! and every failure turned into a one-line [`Error`].

use std::error::Error as _;
use std::io;
use std::sync::Once;
use std::time::{Duration, SystemTime};

use reqwest::StatusCode;
use reqwest::header::{CONTENT_TYPE, HeaderMap, RETRY_AFTER};
use serde_json::Value;

use riverse_tool::{seconds, shorten};

use crate::error::Error;

/// Connecting takes at most this long, even under a longer request timeout: a
/// host that does not accept a connection in 10 s is not going to.
const MAX_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The longest server message quoted in an error.
const MAX_MESSAGE_CHARS: usize = 300;

/// When to try a request again.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Tries after the first, for connection errors, 429 and 5xx.
    pub max_retries: u32,
    /// The wait before the first retry; it doubles for each later one.
    pub initial_backoff: Duration,
    pub max_backoff: Duration,
    /// A `Retry-After` longer than this is not waited for: the request fails
    /// at once, saying how long the server asked for.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 3,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// The wait before retry number `retry` (1-based) when the server gave no
    /// `Retry-After`.
    fn backoff(&self, retry: u32) -> Duration {
        let factor = 2u32.saturating_pow(retry.saturating_sub(1));
        self.initial_backoff
            .saturating_mul(factor)
            .min(self.max_backoff)
    }
}

/// Advice that errors carry: what to change, in the caller's terms (the agent
/// names its settings keys here; this crate knows none).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Hints {
    pub unreachable: Option<String>,
    /// For 401 and 403.
    pub unauthorized: Option<String>,
    /// For 404.
    pub not_found: Option<String>,
}

/// One URL that requests are POSTed to.
#[derive(Debug)]
pub(crate) struct Endpoint {
    client: reqwest::Client,
    url: String,
    /// `url` as messages show it: without a password or token in it.
    shown: String,
    api_key: Option<String>,
    timeout: Duration,
    retry: RetryPolicy,
    hints: Hints,
}

impl Endpoint {
    pub fn new(
        url: String,
        api_key: Option<String>,
        timeout: Duration,
        retry: RetryPolicy,
        hints: Hints,
    ) -> Result<Self, Error> {
        install_crypto_provider();

        // A read timeout rather than a total one: a streamed answer may take
        // minutes, but a server silent for `timeout` is not coming back.
        let client = reqwest::Client::builder()
            .connect_timeout(timeout.min(MAX_CONNECT_TIMEOUT))
            .read_timeout(timeout)
            .user_agent(concat!("riverse/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|err| {
                Error::Unavailable(format!(
                    "can't set up an HTTP client for {}: {err}",
                    redact_credentials(&url)
                ))
            })?;
        Ok(Endpoint {
            client,
            shown: redact_credentials(&url),
            url,
            api_key: api_key.filter(|key| !key.is_empty()),
            timeout,
            retry,
            hints,
        })
    }

    /// The URL requests go to, as messages show it.
    pub fn shown_url(&self) -> &str {
        &self.shown
    }

    /// POSTs `body`, retrying what may pass, and returns a successful response
    /// whose body is still to be read.
    pub async fn post_json(&self, body: &Value) -> Result<reqwest::Response, Error> {
        let body = serde_json::to_vec(body).map_err(|err| Error::Malformed {
            endpoint: self.shown.clone(),
            detail: format!("the request could not be encoded: {err}"),
        })?;
        let mut tries = 0;
        loop {
            tries += 1;
            let (error, retry_after) = match self.send(body.clone()).await {
                Attempt::Success(response) => return Ok(response),
                Attempt::Final(error) => return Err(self.gave_up(tries, error)),
                Attempt::Retryable { error, retry_after } => (error, retry_after),
            };
            if tries > self.retry.max_retries {
                return Err(self.gave_up(tries, error));
            }
            let wait = match retry_after {
                Some(wait) if wait > self.retry.max_retry_after => {
                    let error = Error::Status {
                        endpoint: self.shown.clone(),
                        status: "429 Too Many Requests".into(),
                        code: 429,
                        message: format!("{error}; the server asks to wait {}", seconds(wait)),
                        hint: None,
                    };
                    return Err(self.gave_up(tries, error));
                }
                Some(wait) => wait,
                None => self.retry.backoff(tries),
            };
            tracing::warn!("{error}; retrying in {}", seconds(wait));
            tokio::time::sleep(wait).await;
        }
    }

    async fn send(&self, body: Vec<u8>) -> Attempt {
        let mut request = self
            .client
            .post(&self.url)
            .header(CONTENT_TYPE, "application/json")
            .body(body);
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let response = match request.send().await {
            Ok(response) => response,
            Err(err) => {
                let error = self.transport_error(&err);
                return match error {
                    Error::Unreachable { .. } => Attempt::Retryable {
                        error,
                        retry_after: None,
                    },
                    _ => Attempt::Final(error),
                };
            }
        };
        let status = response.status();
        if status.is_success() {
            return Attempt::Success(response);
        }
        let retry_after = retry_after(response.headers());
        let text = response.text().await.unwrap_or_default();
        let error = self.status_error(status, &text);
        if status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error() {
            if matches!(error, Error::ToolsUnsupported { .. }) {
                return Attempt::Final(error);
            }
            Attempt::Retryable { error, retry_after }
        } else {
            Attempt::Final(error)
        }
    }

    fn gave_up(&self, tries: u32, last: Error) -> Error {
        if tries > 1 {
            Error::GaveUp {
                tries,
                last: Box::new(last),
            }
        } else {
            last
        }
    }

    fn status_error(&self, status: StatusCode, body: &str) -> Error {
        let message = server_message(body);
        if tools_unsupported(&message) {
            return Error::ToolsUnsupported {
                endpoint: self.shown.clone(),
                message,
            };
        }
        let hint = match status {
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => self.hints.unauthorized.clone(),
            StatusCode::NOT_FOUND => self.hints.not_found.clone(),
            _ => None,
        };
        Error::Status {
            endpoint: self.shown.clone(),
            status: status.to_string(),
            code: status.as_u16(),
            message,
            hint,
        }
    }

    /// A failure to send, or to read what came back.
    pub fn transport_error(&self, err: &reqwest::Error) -> Error {
        if err.is_timeout() && !err.is_connect() {
            return Error::TimedOut {
                endpoint: self.shown.clone(),
                after: self.timeout,
            };
        }
        if err.is_decode() {
            return Error::Malformed {
                endpoint: self.shown.clone(),
                detail: cause(err),
            };
        }
        Error::Unreachable {
            endpoint: self.shown.clone(),
            cause: cause(err),
            hint: self.hints.unreachable.clone(),
        }
    }
}

enum Attempt {
    Success(reqwest::Response),
    Retryable {
        error: Error,
        retry_after: Option<Duration>,
    },
    Final(Error),
}

/// reqwest is built without a crypto provider so that the one linked is ring,
/// not the C-heavy default; it must be installed before any client is built.
fn install_crypto_provider() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // Err means another part of the process installed one first: fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// `Retry-After` as seconds or as an HTTP date.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(
        when.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// The innermost cause, in a few words where the OS error is a common one.
fn cause(err: &reqwest::Error) -> String {
    let mut innermost = err.to_string();
    let mut source = err.source();
    while let Some(current) = source {
        if let Some(io) = current.downcast_ref::<io::Error>() {
            match io.kind() {
                io::ErrorKind::ConnectionRefused => return "connection refused".into(),
                io::ErrorKind::ConnectionReset => return "the connection was reset".into(),
                io::ErrorKind::ConnectionAborted => return "the connection was aborted".into(),
                io::ErrorKind::TimedOut => return "the connection timed out".into(),
                _ => {}
            }
        }
        innermost = current.to_string();
        source = current.source();
    }
    if err.is_connect() && err.is_timeout() {
        return "the connection timed out".into();
    }
    one_line(&innermost)
}

/// What an error body says, in the shapes OpenAI, Ollama and others use.
fn server_message(body: &str) -> String {
    if let Ok(value) = serde_json::from_str::<Value>(body) {
        let candidates = [
            value.pointer("/error/message"),
            value.get("error"),
            value.get("message"),
            value.get("detail"),
        ];
        for candidate in candidates.into_iter().flatten() {
            if let Some(text) = candidate.as_str() {
                return one_line(text);
            }
        }
    }
    match one_line(body) {
        text if text.is_empty() => "(no message)".into(),
        text => text,
    }
}

/// What servers say when asked to pass tools to a model or setup that can't
/// take them: Ollama, vLLM without a tool parser, llama.cpp without `--jinja`.
fn tools_unsupported(message: &str) -> bool {
    let message = message.to_lowercase();
    [
        "does not support tools",
        "tool choice requires",
        "requires --jinja",
        "tools param requires",
    ]
    .iter()
    .any(|needle| message.contains(needle))
}

pub(crate) fn one_line(text: &str) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    shorten(&joined, MAX_MESSAGE_CHARS)
}

/// `http://user:secret@host/v1` becomes `http://user:***@host/v1`, and a
/// lone user name (often a token) is hidden too.
pub(crate) fn redact_credentials(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let Some(at) = rest[..authority_end].rfind('@') else {
        return url.to_owned();
    };
    let shown_user = match rest[..at].split_once(':') {
        Some((user, _)) => format!("{user}:***"),
        None => "***".to_owned(),
    };
    format!("{scheme}://{shown_user}@{}", &rest[at + 1..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn backoff_doubles_up_to_its_cap() {
        let policy = RetryPolicy::default();
        let waits: Vec<Duration> = (1..=6).map(|retry| policy.backoff(retry)).collect();
        assert_eq!(
            waits,
            [500, 1000, 2000, 4000, 8000, 8000]
                .map(Duration::from_millis)
                .to_vec()
        );
    }

    #[test]
    fn retry_after_reads_seconds_and_http_dates() {
        let mut headers = HeaderMap::new();
        headers.insert(RETRY_AFTER, "2".parse().unwrap());
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(2)));
        let later = SystemTime::now() + Duration::from_secs(120);
        headers.insert(RETRY_AFTER, httpdate::fmt_http_date(later).parse().unwrap());
        let wait = retry_after(&headers).unwrap();
        assert!(
            wait > Duration::from_secs(100) && wait <= Duration::from_secs(120),
            "{wait:?}"
        );
        headers.insert(RETRY_AFTER, "soon".parse().unwrap());
        assert_eq!(retry_after(&headers), None);
    }

    #[test]
    fn server_messages_are_found_in_the_usual_shapes() {
        assert_eq!(
            server_message(r#"{"error": {"message": "bad key", "type": "x"}}"#),
            "bad key"
        );
        assert_eq!(
            server_message(r#"{"error": "model \"x\" not found"}"#),
            "model \"x\" not found"
        );
        assert_eq!(server_message("plain\ntext  here"), "plain text here");
        assert_eq!(server_message(""), "(no message)");
    }

    #[test]
    fn refusals_to_take_tools_are_recognised() {
        assert!(tools_unsupported(
            "registry.ollama.ai/library/gemma:2b does not support tools"
        ));
        assert!(tools_unsupported(
            "\"auto\" tool choice requires --enable-auto-tool-choice"
        ));
        assert!(!tools_unsupported("model not found"));
    }

    #[test]
    fn credentials_in_urls_are_not_shown() {
        assert_eq!(
            redact_credentials("http://user:KEY@host:8080/v1"),
            "http://user:***@host:8080/v1"
        );
        assert_eq!(
            redact_credentials("https://TOKEN@host/v1"),
            "https://***@host/v1"
        );
        assert_eq!(
            redact_credentials("https://host/v1?next=a@b"),
            "https://host/v1?next=a@b"
        );
    }
}
