//! One `tools/call`, in as many rounds as its server needs.
//!
//! Under the 2026-07-28 protocol a server sends no request to the client
//! while a call runs. When its tool needs a person's answer or a completion,
//! it answers the call with an `input_required` result that lists what it
//! needs (SEP-2322); Riverse has the call's front end answer each, as it
//! answers an `elicitation/create` or `sampling/createMessage` of the older
//! protocols, and sends the call again with the answers and the state the
//! server gave, until the server answers with the call's result.

// Sampling and roots are deprecated by the 2026-07-28 protocol (SEP-2577);
// its `input_required` results may still ask for them.
#![allow(deprecated)]

use std::time::Duration;

use riverse_tool::{Answer, CallContext};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, DEFAULT_MRTR_MAX_ROUNDS, InputRequest,
    InputRequests, InputResponses, ListRootsResult, LoggingLevel, ProtocolVersion, ServerResult,
};
use rmcp::service::ServiceError;
use serde_json::Value;

use super::{Connected, STOPPED_WAITING};
use crate::pending::Pending;
use crate::{question, sampling};

/// How long Riverse waits before sending again a call whose server asked
/// for nothing but gave state back (it is still working).
const STATE_ONLY_PAUSE: Duration = Duration::from_millis(100);

/// Why a call's rounds ended without a reply to pass on.
pub(super) enum RoundsFailed {
    /// Sending or awaiting a round failed.
    Service(ServiceError),
    /// The server's `input_required` result could not be answered, or it
    /// asked for more rounds than Riverse gives a call: what the server did,
    /// its name left out.
    Input(String),
}

impl From<ServiceError> for RoundsFailed {
    fn from(err: ServiceError) -> Self {
        RoundsFailed::Service(err)
    }
}

/// Calls the tool and answers what the server asks, round after round, up
/// to rmcp's cap; the server's last reply.
pub(super) async fn call_tool(
    connected: &Connected,
    mut params: CallToolRequestParams,
    context: &CallContext,
) -> Result<ServerResult, RoundsFailed> {
    if speaks_2026(connected) {
        // Under 2026-07-28 a server sends a call's log lines only when the
        // request names a level: the one a server of the older protocols
        // sends by default.
        let meta = params.meta.get_or_insert_with(Default::default);
        meta.set_log_level(LoggingLevel::Info);
    }
    for _round in 0..DEFAULT_MRTR_MAX_ROUNDS {
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params.clone()));
        let pending = Pending::send(&connected.peer, request, STOPPED_WAITING).await?;
        // Entered right after rmcp queued the request, before this task
        // yields: long before the request is written, read and answered.
        let running = connected.calls.enter(
            pending.id().clone(),
            pending.progress_token().clone(),
            context.clone(),
        );
        let reply = pending.reply().await?;
        drop(running);
        let needed = match reply {
            ServerResult::InputRequiredResult(needed) => needed,
            // The server runs the call as a task: followed to its end.
            ServerResult::CreateTaskResult(created) => {
                return super::tasks::follow(&connected.peer, created.task, context).await;
            }
            reply => return Ok(reply),
        };
        let requests = needed.input_requests.unwrap_or_default();
        if requests.is_empty() {
            if needed.request_state.is_none() {
                return Err(RoundsFailed::Input(
                    "answered input_required, asking for nothing and giving no state".into(),
                ));
            }
            tokio::time::sleep(STATE_ONLY_PAUSE).await;
        }
        let responses = answers(requests, context)
            .await
            .map_err(RoundsFailed::Input)?;
        params.input_responses = (!responses.is_empty()).then_some(responses);
        params.request_state = needed.request_state;
    }
    Err(RoundsFailed::Input(format!(
        "still asked for input after {DEFAULT_MRTR_MAX_ROUNDS} rounds"
    )))
}

fn speaks_2026(connected: &Connected) -> bool {
    connected
        .peer
        .peer_info()
        .is_some_and(|info| info.protocol_version >= ProtocolVersion::V_2026_07_28)
}

/// The call's front end's answer to each request, one at a time, under the
/// server's keys.
pub(super) async fn answers(
    requests: InputRequests,
    context: &CallContext,
) -> Result<InputResponses, String> {
    let mut responses = InputResponses::new();
    for (key, request) in requests {
        let response = answer(request, context).await?;
        responses.insert(key, response);
    }
    Ok(responses)
}

async fn answer(request: InputRequest, context: &CallContext) -> Result<Value, String> {
    let response = match request {
        InputRequest::Elicitation(request) => {
            // URL mode, which Riverse does not declare, is not asked.
            let answer = match question::question(request.params) {
                Some(question) => context.ask(question).await,
                None => Answer::cancel(),
            };
            serde_json::to_value(question::elicit_result(answer))
        }
        InputRequest::CreateMessage(request) => {
            let sample = sampling::sample_request(request.params)
                .map_err(|reason| format!("asked for a completion Riverse can't make: {reason}"))?;
            let text = context
                .sample(sample)
                .await
                .map_err(|reason| format!("asked for a completion, and none came: {reason}"))?;
            serde_json::to_value(sampling::create_message_result(text))
        }
        // Riverse declares no roots: it has none to give.
        InputRequest::ListRoots(_) => serde_json::to_value(ListRootsResult::new(Vec::new())),
        other => return Err(format!("asked for input Riverse does not know: {other:?}")),
    };
    response.map_err(|err| format!("asked for input whose answer can't be written: {err}"))
}
