//! A `tools/call` of the 2026-07-28 protocol that outlives its request: its
//! questions as `input_required` results the client answers by calling again
//! (MRTR), and a call still running after [`TASK_AFTER`] as a task of the
//! tasks extension (`tasks/get`, `tasks/update`, `tasks/cancel`).
//!
//! The call runs in a task of its own from its first request on. A question
//! asked before it became a task parks it under a `requestState` (a random
//! id, which only this server can have minted) until the client calls again
//! with the answers; one asked after is an input request of the task,
//! answered by `tasks/update`. Dropping a call (a cancel, an expired park,
//! the client gone before it became a task) stops its tool as a deadline
//! does: a Python worker's process group is killed.

// Sampling is deprecated by the 2026-07-28 protocol (SEP-2577), which still
// carries it as an input request.
#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use parking_lot::Mutex;
use riverse_tool::{CallError, FailureKind, ToolResult};
use rmcp::model::{
    CallToolResponse, CallToolResult, CreateMessageResult, CreateTaskResult, ElicitResult,
    ErrorData, InputRequest, InputRequests, InputRequiredResult, InputResponses,
};
use rmcp::task_manager::{TaskContext, TaskExit, TaskFuture, TaskManager, TaskOptions};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::served_call::{Asked, Rounds};

/// How long a call of a client that declared the tasks extension runs in
/// its request before it becomes a task.
pub(crate) const TASK_AFTER: Duration = Duration::from_millis(500);

/// How long a task is kept, from its start (`ttlMs`): an hour.
const TASK_TTL_MS: u64 = 3_600_000;

/// How long a call waits, parked (its worker held), for the client to call
/// again with its answers; past it the call is stopped.
const PARK_FOR: Duration = Duration::from_secs(120);

/// The most calls parked at once; past it the oldest is stopped.
const MOST_PARKED: usize = 1000;

/// The calls of one server (every session and request of an endpoint) that
/// outlive their request.
#[derive(Clone, Default)]
pub(crate) struct Background {
    pub(crate) tasks: TaskManager,
    parked: Arc<Mutex<HashMap<String, Parked>>>,
}

/// A call running in a task of its own; dropping it stops the tool.
pub(crate) struct RunningCall {
    tool: String,
    asks: mpsc::UnboundedReceiver<Asked>,
    done: tokio::task::JoinHandle<Result<ToolResult, CallError>>,
    status: Rounds,
    /// Input requests made so far, and their keys.
    asked: usize,
    keys: Vec<String>,
    /// Answers given before they were asked for (a first request's
    /// `inputResponses`), by key.
    given: InputResponses,
}

impl Drop for RunningCall {
    fn drop(&mut self) {
        self.done.abort();
    }
}

/// A call waiting for the answers to its questions.
struct Parked {
    call: RunningCall,
    waiting: Vec<(String, Asked)>,
    since: Instant,
}

/// What a call did next.
enum Step {
    Ended(Result<ToolResult, CallError>),
    Asked(Asked),
}

impl RunningCall {
    /// Starts `call`, whose listener sends its questions through `rounds`
    /// (made with [`RunningCall::rounds`]).
    pub(crate) fn start<F>(
        tool: &str,
        rounds: (Rounds, mpsc::UnboundedReceiver<Asked>),
        call: F,
    ) -> Self
    where
        F: Future<Output = Result<ToolResult, CallError>> + Send + 'static,
    {
        let (status, asks) = rounds;
        RunningCall {
            tool: tool.to_owned(),
            asks,
            done: tokio::spawn(call),
            status,
            asked: 0,
            keys: Vec::new(),
            given: InputResponses::new(),
        }
    }

    /// Answers the call's questions of these keys without asking.
    pub(crate) fn answering(mut self, given: InputResponses) -> Self {
        self.given = given;
        self
    }

    /// The way from a call's listener to its driver.
    pub(crate) fn rounds(elicits: bool, samples: bool) -> (Rounds, mpsc::UnboundedReceiver<Asked>) {
        let (asks, receiver) = mpsc::unbounded_channel();
        let rounds = Rounds {
            asks,
            status: Arc::new(Mutex::new(None)),
            elicits,
            samples,
        };
        (rounds, receiver)
    }

    async fn next(&mut self) -> Step {
        tokio::select! {
            Some(asked) = self.asks.recv() => Step::Asked(asked),
            ended = &mut self.done => Step::Ended(ended.unwrap_or_else(|err| {
                Ok(ToolResult::failed(FailureKind::Crashed, format!("the call stopped: {err}")))
            })),
        }
    }

    /// The key of the input request asked next: the one it asked for when
    /// this call has not used it yet, else `ask_N`.
    fn key_of(&mut self, asked: &Asked) -> String {
        self.asked += 1;
        let key = match &asked.key {
            Some(key) if !self.keys.contains(key) => key.clone(),
            _ => format!("ask_{}", self.asked),
        };
        self.keys.push(key.clone());
        key
    }
}

/// Whether `value` is an answer to `request` a client may give.
fn check_answer(key: &str, request: &InputRequest, value: &Value) -> Result<(), ErrorData> {
    let fits = match request {
        InputRequest::Elicitation(_) => serde_json::from_value::<ElicitResult>(value.clone())
            .map(drop)
            .map_err(|err| ("elicitation/create", err)),
        InputRequest::CreateMessage(_) => {
            serde_json::from_value::<CreateMessageResult>(value.clone())
                .map(drop)
                .map_err(|err| ("sampling/createMessage", err))
        }
        _ => Ok(()),
    };
    fits.map_err(|(method, err)| {
        ErrorData::invalid_params(
            format!("inputResponses.{key}: not an answer to {method}: {err}"),
            None,
        )
    })
}

impl Background {
    /// Drives `call` until it ends, asks (an `input_required` result; the
    /// call is parked) or, when `tasks` allows, passes [`TASK_AFTER`] (a
    /// task). `gone` is the request's cancellation.
    pub(crate) async fn drive(
        &self,
        mut call: RunningCall,
        tasks: bool,
        gone: impl Future<Output = ()>,
    ) -> Result<CallToolResponse, ErrorData> {
        let after = tokio::time::sleep(TASK_AFTER);
        tokio::pin!(after);
        tokio::pin!(gone);
        let mut waiting = Vec::new();
        loop {
            tokio::select! {
                step = call.next() => match step {
                    Step::Ended(outcome) => return complete(outcome),
                    Step::Asked(asked) => {
                        let key = call.key_of(&asked);
                        if let Some(value) = call.given.remove(&key) {
                            check_answer(&key, &asked.request, &value)?;
                            let _ = asked.reply.send(Some(value));
                            continue;
                        }
                        waiting.push((key, asked));
                        // Requests made at once go out together.
                        while let Ok(asked) = call.asks.try_recv() {
                            let key = call.key_of(&asked);
                            waiting.push((key, asked));
                        }
                        return Ok(self.park(call, waiting));
                    }
                },
                () = &mut after, if tasks => return Ok(self.become_task(call).into()),
                () = &mut gone => {
                    return Err(ErrorData::internal_error(format!("tool \"{}\": cancelled by the client", call.tool), None));
                }
            }
        }
    }

    /// Parks `call` until the client answers `waiting`; the result that asks.
    fn park(&self, call: RunningCall, waiting: Vec<(String, Asked)>) -> CallToolResponse {
        let requests: InputRequests = waiting
            .iter()
            .map(|(key, asked)| (key.clone(), asked.request.clone()))
            .collect();
        let state = format!("riverse-{}", uuid::Uuid::new_v4().simple());
        let mut parked = self.parked.lock();
        let now = Instant::now();
        parked.retain(|_, park| now.duration_since(park.since) < PARK_FOR);
        if parked.len() >= MOST_PARKED
            && let Some(oldest) = parked
                .iter()
                .min_by_key(|(_, park)| park.since)
                .map(|(id, _)| id.clone())
        {
            parked.remove(&oldest);
        }
        let park = Parked {
            call,
            waiting,
            since: now,
        };
        parked.insert(state.clone(), park);
        drop(parked);
        let (parked, expired) = (Arc::downgrade(&self.parked), state.clone());
        tokio::spawn(async move {
            tokio::time::sleep(PARK_FOR).await;
            if let Some(parked) = parked.upgrade() {
                let park = parked.lock().remove(&expired);
                drop(park);
            }
        });
        InputRequiredResult::new(Some(requests), Some(state)).into()
    }

    /// The call parked under `state`, given the client's answers; the rest
    /// of it is driven by [`Background::drive`]. A question not answered is
    /// asked again.
    pub(crate) fn resume(
        &self,
        tool: &str,
        state: &str,
        responses: Option<InputResponses>,
    ) -> Result<Result<RunningCall, CallToolResponse>, ErrorData> {
        let unknown = || {
            ErrorData::invalid_params(
                format!(
                    "requestState is not one this server gave for a call of \"{tool}\", or the call it stood for has ended"
                ),
                None,
            )
        };
        let Some(park) = self.parked.lock().remove(state) else {
            return Err(unknown());
        };
        if park.call.tool != tool {
            // Not the call it stands for: that one waits on.
            self.parked.lock().insert(state.to_owned(), park);
            return Err(unknown());
        }
        let responses = responses.unwrap_or_default();
        for (key, asked) in &park.waiting {
            if let Some(value) = responses.get(key)
                && let Err(err) = check_answer(key, &asked.request, value)
            {
                // The call waits on, for a right answer under the same state.
                self.parked.lock().insert(state.to_owned(), park);
                return Err(err);
            }
        }
        let Parked { call, waiting, .. } = park;
        let mut still = Vec::new();
        for (key, asked) in waiting {
            match responses.get(&key) {
                Some(value) => {
                    let _ = asked.reply.send(Some(value.clone()));
                }
                None => still.push((key, asked)),
            }
        }
        if still.is_empty() {
            Ok(Ok(call))
        } else {
            Ok(Err(self.park(call, still)))
        }
    }

    /// Makes `call` a task; the result that names it.
    fn become_task(&self, call: RunningCall) -> CreateTaskResult {
        let options = TaskOptions::new().with_ttl_ms(TASK_TTL_MS);
        let task = self.tasks.spawn(options, |context| {
            Box::pin(run_task(call, context)) as TaskFuture
        });
        CreateTaskResult::new(task)
    }
}

/// A call run as a task to its end, its questions the task's input requests,
/// stopped (dropped) at `tasks/cancel`.
async fn run_task(mut call: RunningCall, context: TaskContext) -> Result<CallToolResult, TaskExit> {
    *call.status.status.lock() = Some(context.clone());
    let mut inputs = FuturesUnordered::new();
    loop {
        tokio::select! {
            () = context.cancelled() => return Err(TaskExit::Cancelled),
            step = call.next() => match step {
                Step::Ended(outcome) => {
                    return match outcome {
                        Ok(result) if result.failure_kind() == Some(FailureKind::Crashed) => {
                            Err(TaskExit::Error(ErrorData::internal_error(result.error, None)))
                        }
                        Ok(result) => Ok(super::call_result(result)),
                        Err(err) => Err(TaskExit::Error(ErrorData::invalid_params(err.to_string(), None))),
                    };
                }
                Step::Asked(asked) => {
                    let key = call.key_of(&asked);
                    let context = context.clone();
                    inputs.push(async move {
                        let answer = context.request_input(key, asked.request).await.ok();
                        let _ = asked.reply.send(answer);
                    });
                }
            },
            Some(()) = inputs.next(), if !inputs.is_empty() => {}
        }
    }
}

/// A call's end as the reply to its request.
fn complete(outcome: Result<ToolResult, CallError>) -> Result<CallToolResponse, ErrorData> {
    match outcome {
        Ok(result) => Ok(super::call_result(result).into()),
        Err(err) => Err(ErrorData::invalid_params(err.to_string(), None)),
    }
}
