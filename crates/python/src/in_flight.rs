//! The call a worker runs now, and what its tool says and asks meanwhile.
//!
//! A worker runs one call at a time, so everything it sends between a
//! `riverse/call` and its reply is that call's: log lines and progress go to
//! the call's [`CallContext`] as they are read, questions and samples are
//! answered through it.

use std::sync::Arc;

use parking_lot::Mutex;
use riverse_protocol::{ErrorObject, error_codes, methods};
use riverse_tool::{CallContext, LogLevel, Progress, Question, SampleRequest};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

/// The context of the call in flight on one worker, if any.
#[derive(Clone, Default)]
pub(crate) struct InFlight {
    call: Arc<Mutex<Option<CallContext>>>,
}

/// Clears the call in flight when dropped: when its reply came, and when the
/// call was stopped.
pub(crate) struct Landed(InFlight);

impl Drop for Landed {
    fn drop(&mut self) {
        *self.0.call.lock() = None;
    }
}

#[derive(Deserialize)]
struct LogParams {
    #[serde(default)]
    level: Option<String>,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    dropped: Option<usize>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SampleParams {
    prompt: String,
    #[serde(default)]
    system: Option<String>,
    #[serde(default)]
    max_tokens: Option<u32>,
}

impl InFlight {
    /// Makes `context` hear what the worker sends until the guard drops.
    pub(crate) fn begin(&self, context: &CallContext) -> Landed {
        *self.call.lock() = Some(context.clone());
        Landed(self.clone())
    }

    fn current(&self) -> Option<CallContext> {
        self.call.lock().clone()
    }

    /// Passes on a notification the worker sent; true when it was one of a
    /// call's (read or not: a call's notifications are never an error).
    pub(crate) fn heard(&self, method: &str, params: Option<&RawValue>) -> bool {
        let text = params.map_or("{}", RawValue::get);
        match method {
            methods::LOG => {
                let (Some(context), Ok(log)) =
                    (self.current(), serde_json::from_str::<LogParams>(text))
                else {
                    return true;
                };
                if let Some(dropped) = log.dropped {
                    context.logs_not_sent(dropped);
                }
                if let Some(message) = log.message {
                    let level = log
                        .level
                        .as_deref()
                        .and_then(LogLevel::from_name)
                        .unwrap_or(LogLevel::Info);
                    context.log(level, &message);
                }
                true
            }
            methods::PROGRESS => {
                if let (Some(context), Ok(progress)) =
                    (self.current(), serde_json::from_str::<Progress>(text))
                {
                    context.progress(progress);
                }
                true
            }
            _ => false,
        }
    }

    /// Answers `riverse/host/ask` and `riverse/host/sample`; `None` for
    /// another method.
    pub(crate) async fn answer(
        &self,
        method: &str,
        params: &Option<Value>,
    ) -> Option<Result<Value, ErrorObject>> {
        let params = params.clone().unwrap_or_else(|| json!({}));
        match method {
            methods::HOST_ASK => {
                let question: Question = match serde_json::from_value(params) {
                    Ok(question) => question,
                    Err(err) => return Some(Err(invalid(method, &err))),
                };
                let answer = match self.current() {
                    Some(context) => context.ask(question).await,
                    None => riverse_tool::Answer::cancel(),
                };
                Some(Ok(json!(answer)))
            }
            methods::HOST_SAMPLE => {
                let sample: SampleParams = match serde_json::from_value(params) {
                    Ok(sample) => sample,
                    Err(err) => return Some(Err(invalid(method, &err))),
                };
                let Some(context) = self.current() else {
                    return Some(Err(failed("no call is running".into())));
                };
                let request = SampleRequest {
                    prompt: sample.prompt,
                    system: sample.system,
                    max_tokens: sample.max_tokens,
                };
                Some(match context.sample(request).await {
                    Ok(text) => Ok(json!({ "text": text })),
                    Err(reason) => Err(failed(reason)),
                })
            }
            _ => None,
        }
    }
}

fn invalid(method: &str, err: &serde_json::Error) -> ErrorObject {
    ErrorObject {
        code: error_codes::INVALID_PARAMS,
        message: format!("invalid params of {method}: {err}"),
        data: None,
    }
}

fn failed(reason: String) -> ErrorObject {
    ErrorObject {
        code: error_codes::INTERNAL_ERROR,
        message: reason,
        data: None,
    }
}
