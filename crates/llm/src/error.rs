use std::time::Duration;

/// Why a completion failed. Every message is one line that names the endpoint.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("can't reach the LLM at {endpoint}: {cause}{}", hint_text(hint))]
    Unreachable {
        endpoint: String,
        cause: String,
        hint: Option<String>,
    },
    #[error("the LLM at {endpoint} did not answer within {}", riverse_tool::seconds(*after))]
    TimedOut { endpoint: String, after: Duration },
    /// An HTTP error status, with the server's own message and advice on the
    /// likely cause (a wrong key for 401, a wrong model for 404).
    #[error(
        "the LLM at {endpoint} answered {status}: {message}{}",
        hint_text(hint)
    )]
    Status {
        endpoint: String,
        /// `404 Not Found`.
        status: String,
        code: u16,
        message: String,
        hint: Option<String>,
    },
    /// The endpoint rejected the request because the model cannot call tools.
    #[error("the model at {endpoint} does not support tools: {message}")]
    ToolsUnsupported { endpoint: String, message: String },
    #[error("the LLM at {endpoint} sent a reply that can't be read: {detail}")]
    Malformed { endpoint: String, detail: String },
    /// Retries ran out; `last` is the last failure.
    #[error("{last} (gave up after {tries} tries)")]
    GaveUp { tries: u32, last: Box<Error> },
    /// The provider cannot run at all: not configured, not built in.
    #[error("{0}")]
    Unavailable(String),
}

impl Error {
    /// The HTTP status the endpoint answered with, if that is what failed.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Status { code, .. } => Some(*code),
            Error::GaveUp { last, .. } => last.status(),
            _ => None,
        }
    }
}

fn hint_text(hint: &Option<String>) -> String {
    hint.as_ref()
        .map(|hint| format!(" ({hint})"))
        .unwrap_or_default()
}
