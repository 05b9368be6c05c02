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
//! lines only to requests that ask for them: there, a question is a cancel,
//! a sample goes to the server's LLM, and the level is the request's own.

// Logging and sampling are deprecated by the 2026-07-28 protocol (SEP-2577);
// the protocols before it, which every client of today speaks, have them.
#![allow(deprecated)]

use std::sync::Arc;

use parking_lot::Mutex;
use riverse_tool::{
    Answer, CallListener, LogLevel, LogLine, Progress, Question, SampleRequest, Sampler,
};
use rmcp::model::{
    ClientResult, CreateMessageRequest, ElicitRequest, Extensions, LoggingLevel,
    LoggingMessageNotification, LoggingMessageNotificationParam, ProgressNotification,
    ProgressNotificationParam, ProgressToken, ProtocolVersion, RequestId, ServerRequest,
};
use rmcp::service::{OriginatingRequestId, RequestContext, ServiceError};
use rmcp::{Peer, RoleServer};
use serde_json::json;

use crate::levels::{log_level, logging_level};
use crate::outbox::OutboxQueue;
use crate::pending::Pending;
use crate::{question, sampling};

/// The level a session is sent log lines from until the client sets one:
/// what a tool says as it works, without its debugging.
pub(crate) const DEFAULT_LOG_LEVEL: LogLevel = LogLevel::Info;

/// Why a question, or a call that asks for approval, gets no answer from a
/// client that can't be asked.
const NO_ELICITATION: &str = "the MCP client can't be asked: it offers no elicitation (or speaks the 2026-07-28 protocol, which has no requests to the client)";

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
        let capabilities = context
            .peer
            .peer_info()
            .map(|info| info.capabilities.clone())
            .unwrap_or_default();
        // `elicitation: {}` is the form mode of the 2025-06-18 protocol.
        let elicits = !modern
            && capabilities
                .elicitation
                .as_ref()
                .is_some_and(|offered| offered.form.is_some() || offered.url.is_none());
        let samples = !modern && capabilities.sampling.is_some();
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
            return;
        };
        let mut params = ProgressNotificationParam::new(token.clone(), progress.progress);
        params.total = progress.total;
        params.message = progress.message.clone();
        self.outbox
            .progress(ProgressNotification::new(params).into());
    }

    fn log(&self, line: &LogLine) {
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
        if !self.elicits {
            return Answer::unanswered(NO_ELICITATION);
        }
        let params = match question::elicitation(question) {
            Ok(params) => params,
            Err(reason) => {
                // The tool's author reads why where the tool's lines are read.
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
                return Answer::cancel();
            }
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
