//! One `tools/call` served over MCP, as the front end of its tool: what the
//! tool says goes to the client as notifications, what it asks goes to the
//! client as requests.
//!
//! - `self.log` lines at or above the session's level (`logging/setLevel`)
//!   become `notifications/message`, their logger the tool's name;
//! - `self.progress` becomes `notifications/progress` under the request's
//!   progress token, when it gave one;
//! - `self.ask` becomes `elicitation/create` when the client declared
//!   elicitation, and is a cancel otherwise; so does a call whose
//!   `tools.<name>.approval` asks (an accept runs it; without elicitation it
//!   is refused, and the result says why);
//! - `self.sample` becomes `sampling/createMessage` when the client declared
//!   sampling, and otherwise asks the server's own LLM, when it has one.
//!
//! A question or sample the call no longer waits for (it ended, was
//! cancelled, ran past its deadline) is withdrawn from the client with
//! `notifications/cancelled`. Requests to the client name the call they come
//! from, so that over streamable HTTP they ride the call's own stream.
//!
//! The 2026-07-28 protocol forbids requests to the client, and sends log
//! lines only to requests that ask for them: there, a question or sample is
//! an input request of the call's `input_required` result (or of its task),
//! for a request that declared elicitation or sampling (else a question is a
//! cancel and a sample goes to the server's LLM), and the level is the
//! request's own.

// Logging and sampling are deprecated by the 2026-07-28 protocol (SEP-2577);
// the protocols before it, which every client of today speaks, have them.
#![allow(deprecated)]

use std::sync::Arc;

use parking_lot::Mutex;
use riverse_tool::{
    Answer, CallListener, LogLevel, LogLine, Progress, Question, SampleRequest, Sampler,
};
use rmcp::model::{
    ClientResult, CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitRequestParams,
    ElicitResult, Extensions, InputRequest, LoggingLevel, LoggingMessageNotification,
    LoggingMessageNotificationParam, ProgressNotification, ProgressNotificationParam,
    ProgressToken, ProtocolVersion, RequestId, ServerRequest,
};
use rmcp::service::{OriginatingRequestId, RequestContext, ServiceError};
use rmcp::{Peer, RoleServer};
use serde_json::{Value, json};

use crate::levels::{log_level, logging_level};
use crate::outbox::OutboxQueue;
use crate::pending::Pending;
use crate::{question, sampling};

/// The level a session is sent log lines from until the client sets one:
/// what a tool says as it works, without its debugging.
pub(crate) const DEFAULT_LOG_LEVEL: LogLevel = LogLevel::Info;

/// Why a question, or a call that asks for approval, gets no answer from a
/// client that can't be asked.
const NO_ELICITATION: &str = "the MCP client can't be asked: it offers no elicitation";

/// What a client is told when a question or sample it was sent is withdrawn.
const WITHDRAWN: &str = "the tool call that asked has ended";

/// The level one session's client asked for with `logging/setLevel`.
#[derive(Clone)]
pub(crate) struct SessionLevel(Arc<Mutex<LogLevel>>);

impl Default for SessionLevel {
    fn default() -> Self {
        SessionLevel(Arc::new(Mutex::new(DEFAULT_LOG_LEVEL)))
    }
}

impl SessionLevel {
    pub(crate) fn set(&self, level: LoggingLevel) {
        *self.0.lock() = log_level(level);
    }

    fn get(&self) -> LogLevel {
        *self.0.lock()
    }
}

/// Which log lines of a call its client is sent.
enum Threshold {
    /// The session's level, as it is when each line is made.
    Session(SessionLevel),
    /// The level the request asked for (2026-07-28).
    Request(LogLevel),
    /// None: a request of the 2026-07-28 protocol that asked for none.
    Silent,
}

/// The call's listener. Built per call by the server.
pub(crate) struct ServedCall {
    /// The tool's name, the logger of its lines.
    tool: String,
    peer: Peer<RoleServer>,
    /// The `tools/call` request, which requests to the client name.
    request: RequestId,
    /// The request's `_meta.progressToken`, if it gave one.
    progress_token: Option<ProgressToken>,
    threshold: Threshold,
    /// Whether the client may be sent `elicitation/create`.
    elicits: bool,
    /// Whether the client may be sent `sampling/createMessage`.
    samples: bool,
    /// The server's own LLM, for samples the client can't take.
    fallback: Option<Arc<dyn Sampler>>,
    outbox: OutboxQueue,
    /// Whether the client has been told that a question could not be asked:
    /// once a call, so a tool asking in a loop does not flood it.
    told_unaskable: std::sync::atomic::AtomicBool,
    /// Where questions go under the 2026-07-28 protocol: to the call's
    /// driver, which makes them `input_required` results or a task's
    /// input requests (see [`crate::server::work`]).
    rounds: Option<Rounds>,
}

/// The way from a call's questions and samples to its driver, under the
/// 2026-07-28 protocol: each as the input request the client is sent, with
/// the channel its answer comes back on; and the task the call became, if
/// any, whose status message is the call's last progress message or log
/// line.
#[derive(Clone)]
pub(crate) struct Rounds {
    pub(crate) asks: tokio::sync::mpsc::UnboundedSender<Asked>,
    pub(crate) status: Arc<Mutex<Option<rmcp::task_manager::TaskContext>>>,
    /// Whether the request declared elicitation, and sampling.
    pub(crate) elicits: bool,
    pub(crate) samples: bool,
}

impl Rounds {
    /// The client's answer to `request`; `None` when it gave none (the call
    /// was cancelled or its driver is gone).
    async fn ask(&self, key: Option<String>, request: InputRequest) -> Option<Value> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.asks
            .send(Asked {
                key,
                request,
                reply,
            })
            .ok()?;
        answer.await.ok().flatten()
    }
}

/// An input request a call made, the key it would like it sent under, and
/// where the client's answer goes.
pub(crate) struct Asked {
    pub(crate) key: Option<String>,
    pub(crate) request: InputRequest,
    pub(crate) reply: tokio::sync::oneshot::Sender<Option<Value>>,
}

/// The key a question would like: its schema's `title` when that is a plain
/// name (letters, digits, `_`, `-`), `approval` for an approval.
fn key_hint(question: &Question) -> Option<String> {
    if question.approval.is_some() {
        return Some("approval".into());
    }
    let title = question.schema.get("title")?.as_str()?;
    let plain = !title.is_empty()
        && title.len() <= 64
        && title
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    plain.then(|| title.to_owned())
}

impl ServedCall {
    pub(crate) fn new(
        tool: &str,
        context: &RequestContext<RoleServer>,
        session_level: &SessionLevel,
        fallback: Option<Arc<dyn Sampler>>,
        outbox: OutboxQueue,
    ) -> Self {
        let modern = context
            .protocol_version()
            .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28);
        let threshold = match (context.meta.log_level(), modern) {
            (Some(level), _) => Threshold::Request(log_level(level)),
            (None, true) => Threshold::Silent,
            (None, false) => Threshold::Session(session_level.clone()),
        };
        // Read where they are, not copied at every call.
        let info = context.peer.peer_info();
        let capabilities = info.as_ref().map(|info| &info.capabilities);
        // `elicitation: {}` is the form mode of the 2025-06-18 protocol.
        let elicits = !modern
            && capabilities
                .and_then(|offered| offered.elicitation.as_ref())
                .is_some_and(|offered| offered.form.is_some() || offered.url.is_none());
        let samples = !modern && capabilities.is_some_and(|offered| offered.sampling.is_some());
        ServedCall {
            told_unaskable: std::sync::atomic::AtomicBool::new(false),
            tool: tool.to_owned(),
            peer: context.peer.clone(),
            request: context.id.clone(),
            progress_token: context.meta.get_progress_token(),
            threshold,
            elicits,
            samples,
            fallback,
            outbox,
            rounds: None,
        }
    }

    /// Questions go to `rounds` (the 2026-07-28 protocol's `input_required`).
    pub(crate) fn with_rounds(mut self, rounds: Rounds) -> Self {
        self.rounds = Some(rounds);
        self
    }

    /// The task's status message, when the call became a task.
    fn tell_task(&self, message: &str) {
        if let Some(rounds) = &self.rounds
            && let Some(task) = &*rounds.status.lock()
        {
            task.set_status_message(message);
        }
    }

    /// `question` as `elicitation/create` params, or `None` (with a warning
    /// to the tool's author and, once a call, to the client) when MCP's
    /// elicitation can't carry its schema.
    fn askable(&self, question: Question) -> Option<ElicitRequestParams> {
        match question::elicitation(question) {
            Ok(params) => Some(params),
            Err(reason) => {
                let message = format!("a question was not asked: {reason}");
                tracing::warn!(target: "mcp", "tool \"{}\": {message}", self.tool);
                let told = self
                    .told_unaskable
                    .swap(true, std::sync::atomic::Ordering::Relaxed);
                if !told {
                    self.log(&LogLine {
                        level: LogLevel::Warning,
                        message,
                    });
                }
                None
            }
        }
    }

    fn passes(&self, level: LogLevel) -> bool {
        match &self.threshold {
            Threshold::Session(session) => level >= session.get(),
            Threshold::Request(least) => level >= *least,
            Threshold::Silent => false,
        }
    }

    /// Extensions marking a request to the client as this call's.
    fn marking_this_call(&self) -> Extensions {
        let mut extensions = Extensions::new();
        extensions.insert(OriginatingRequestId(self.request.clone()));
        extensions
    }

    async fn ask_client(&self, request: ServerRequest) -> Result<ClientResult, ServiceError> {
        Pending::send(&self.peer, request, WITHDRAWN)
            .await?
            .reply()
            .await
    }
}

#[async_trait::async_trait]
impl CallListener for ServedCall {
    fn progress(&self, progress: &Progress) {
        let Some(token) = &self.progress_token else {
            if let Some(message) = &progress.message {
                self.tell_task(message);
            }
            return;
        };
        let mut params = ProgressNotificationParam::new(token.clone(), progress.progress);
        params.total = progress.total;
        params.message = progress.message.clone();
        if let Some(message) = &progress.message {
            self.tell_task(message);
        }
        self.outbox
            .progress(ProgressNotification::new(params).into());
    }

    fn log(&self, line: &LogLine) {
        if line.level >= LogLevel::Info {
            self.tell_task(&line.message);
        }
        if !self.passes(line.level) {
            return;
        }
        let mut params =
            LoggingMessageNotificationParam::new(logging_level(line.level), json!(line.message));
        params.logger = Some(self.tool.clone());
        self.outbox
            .log(LoggingMessageNotification::new(params).into());
    }

    async fn ask(&self, question: Question) -> Answer {
        if let Some(rounds) = &self.rounds {
            if !rounds.elicits {
                return Answer::unanswered(NO_ELICITATION);
            }
            let key = key_hint(&question);
            let Some(params) = self.askable(question) else {
                return Answer::cancel();
            };
            let request = InputRequest::Elicitation(ElicitRequest::new(params));
            let reply = rounds.ask(key, request).await;
            return reply
                .and_then(|value| serde_json::from_value::<ElicitResult>(value).ok())
                .map_or_else(Answer::cancel, question::answer);
        }
        if !self.elicits {
            return Answer::unanswered(NO_ELICITATION);
        }
        let Some(params) = self.askable(question) else {
            return Answer::cancel();
        };
        let mut request = ElicitRequest::new(params);
        request.extensions = self.marking_this_call();
        match self.ask_client(request.into()).await {
            Ok(ClientResult::ElicitResult(result)) => question::answer(result),
            Ok(other) => {
                tracing::warn!(target: "mcp", "tool \"{}\": the client answered elicitation/create with {other:?}", self.tool);
                Answer::cancel()
            }
            Err(err) => {
                tracing::debug!(target: "mcp", "tool \"{}\": elicitation/create failed: {err}", self.tool);
                Answer::cancel()
            }
        }
    }

    async fn sample(&self, request: SampleRequest) -> Result<String, String> {
        if let Some(rounds) = self.rounds.as_ref().filter(|rounds| rounds.samples) {
            let create = CreateMessageRequest::new(sampling::create_message(request));
            let reply = rounds.ask(None, InputRequest::CreateMessage(create)).await;
            let Some(value) = reply else {
                return Err(
                    "the client's LLM did not answer: the call's sample was not answered".into(),
                );
            };
            return serde_json::from_value::<CreateMessageResult>(value)
                .map_err(|err| format!("the client answered the sample with something else: {err}"))
                .and_then(sampling::completion);
        }
        if self.samples {
            let mut create = CreateMessageRequest::new(sampling::create_message(request));
            create.extensions = self.marking_this_call();
            return match self.ask_client(create.into()).await {
                Ok(ClientResult::CreateMessageResult(result)) => sampling::completion(*result),
                Ok(_) => {
                    Err("the client answered sampling/createMessage with something else".into())
                }
                Err(ServiceError::McpError(error)) => Err(format!(
                    "the client's LLM did not answer: {}",
                    error.message
                )),
                Err(err) => Err(format!("can't ask the client's LLM: {err}")),
            };
        }
        match &self.fallback {
            Some(sampler) => sampler.sample(request).await,
            None => Err(
                "no LLM to sample from: the MCP client offers no sampling, and this server has no LLM of its own"
                    .into(),
            ),
        }
    }
}
