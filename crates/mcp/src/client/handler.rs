//! What Riverse tells a server about itself, and what it does with what the
//! server sends while a call runs: progress and log lines go to the call's
//! [`CallContext`](riverse_tool::CallContext), and a question or sample is
//! answered through it, by the front end that made the call.

// Logging and sampling are deprecated by the 2026-07-28 protocol (SEP-2577);
// the protocols before it, which servers of today speak, have them.
#![allow(deprecated)]

use riverse_tool::{Answer, Progress};
use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitationCapability, ErrorData, FormElicitationCapability,
    Implementation, LoggingMessageNotificationParam, ProgressNotificationParam, ProtocolVersion,
    SamplingCapability,
};
use rmcp::service::{InboundStreamOrigin, NotificationContext, RequestContext};
use rmcp::{ClientHandler, RoleClient};
use serde_json::Value;

use super::calls::CallsInFlight;
use crate::levels::log_level;
use crate::{question, sampling};

pub(crate) struct Client {
    /// The server's name in `mcp.servers`.
    pub(crate) server: String,
    pub(crate) calls: CallsInFlight,
}

impl Client {
    /// The call a request of the server's belongs to.
    fn asking(&self, context: &RequestContext<RoleClient>) -> Option<riverse_tool::CallContext> {
        let origin = match context.extensions.get::<InboundStreamOrigin>() {
            Some(InboundStreamOrigin::OutboundRequest(id)) => Some(id),
            _ => None,
        };
        self.calls.asking(origin)
    }
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let capabilities = ClientCapabilities::builder()
            .enable_elicitation_with(
                ElicitationCapability::new().with_form(FormElicitationCapability::new()),
            )
            .enable_sampling_with(SamplingCapability::default())
            // A server's task-capable tools may run as tasks: followed to
            // their end (`client/tasks.rs`).
            .enable_tasks()
            .build();
        // The handshake revision: the one every server of the last years knows.
        ClientConfig::new(
            capabilities,
            Implementation::new("riverse", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        tracing::info!(
            target: "mcp",
            "{}: the server changed its tools; Riverse lists them again when it restarts",
            self.server
        );
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if let Some(call) = self.calls.by_progress(&params.progress_token) {
            call.progress(Progress {
                progress: params.progress,
                total: params.total,
                message: params.message,
            });
        }
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let message = match params.data {
            Value::String(text) => text,
            other => other.to_string(),
        };
        let level = log_level(params.level);
        match self.calls.only() {
            Some(call) => call.log(level, &message),
            None => {
                let level = level.as_str();
                tracing::info!(target: "mcp", "{} says ({level}): {message}", self.server);
            }
        }
    }

    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let Some(question) = question::question(params) else {
            return Err(ErrorData::invalid_params(
                "Riverse answers form elicitation only",
                None,
            ));
        };
        let Some(call) = self.asking(&context) else {
            return Ok(question::elicit_result(Answer::cancel()));
        };
        let answer = tokio::select! {
            answer = call.ask(question) => answer,
            () = context.ct.cancelled() => Answer::cancel(),
        };
        Ok(question::elicit_result(answer))
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let request = sampling::sample_request(params)
            .map_err(|reason| ErrorData::invalid_params(reason, None))?;
        let Some(call) = self.asking(&context) else {
            return Err(ErrorData::internal_error(
                "no call of Riverse's is running to sample for",
                None,
            ));
        };
        let completion = tokio::select! {
            completion = call.sample(request) => completion,
            () = context.ct.cancelled() => Err("the server withdrew the request".into()),
        };
        completion
            .map(sampling::create_message_result)
            .map_err(|reason| ErrorData::internal_error(reason, None))
    }
}
