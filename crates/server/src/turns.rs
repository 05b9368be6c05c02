//! Turns run as tasks of their own, bounded by `serve.max_concurrent_turns`
//! and `serve.turn_timeout`, reporting through a channel; the questions
//! their tools ask are opened for the person behind the stream, or
//! cancelled when nobody is there to answer.

use std::sync::Arc;
use std::time::{Duration, Instant};

use riverse_agent::{ToolUse, Turn, TurnEvent};
use riverse_llm::Message;
use riverse_tool::Answer;
use tokio::sync::OwnedSemaphorePermit;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::task::JoinHandle;

use crate::AppState;
use crate::error::AppError;
use crate::prometheus::{self, Api, TurnOutcome};
use crate::questions::TurnQuestions;
use crate::updates::Update;

/// Who answers the questions a turn's tools ask, and the approvals its
/// calls need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asking {
    /// The person reading the stream, through the questions route.
    Person,
    /// The person reading the stream answers questions; approvals are
    /// refused for this reason (there is no conversation to record them in).
    QuestionsOnly { no_approvals: &'static str },
    /// Nobody (the reply comes only once the turn is over): each question is
    /// a cancel, each approval refused for this reason.
    Nobody { no_approvals: &'static str },
    /// A schedule's run: nobody is asked; a question is a cancel, and an
    /// approval is the schedule's `approval` (approved when `auto`).
    Scheduled { auto: bool },
}

impl Asking {
    /// Why calls that ask for approval are refused; `None` when they are
    /// put to the person.
    fn refuses_approvals(self) -> Option<&'static str> {
        match self {
            Asking::Person => None,
            Asking::QuestionsOnly { no_approvals } | Asking::Nobody { no_approvals } => {
                Some(no_approvals)
            }
            Asking::Scheduled { auto: true } => None,
            Asking::Scheduled { auto: false } => Some(crate::schedules::SCHEDULE_DENIES),
        }
    }
}

/// A turn's slot, or a 429 when every slot is taken.
pub fn reserve(state: &AppState) -> Result<OwnedSemaphorePermit, AppError> {
    state.turns.clone().try_acquire_owned().map_err(|_| {
        prometheus::turn_refused();
        AppError::busy(state.options.max_concurrent_turns)
    })
}

/// A running turn's task: dropping it stops the turn. Whoever wants the
/// turn to outlive a client that went away keeps it elsewhere.
pub struct TurnTask(JoinHandle<()>);

impl Drop for TurnTask {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// What one turn is asked.
pub struct TurnRequest {
    /// Where it was asked, for the metrics.
    pub api: Api,
    pub history: Vec<Message>,
    /// `None` goes on from the client's tool results at the end of `history`.
    pub message: Option<String>,
    pub tool_use: ToolUse,
    /// A turn that answers from a background task's end, after `history`,
    /// in place of a message.
    pub follow_up: Option<FollowUp>,
    /// The stored answer the turn writes, when it has one: its calls that
    /// become tasks name it.
    pub answer_id: Option<String>,
}

/// A background task's end, for the turn that answers from it.
pub struct FollowUp {
    pub task_id: String,
    pub tool: String,
    pub params: riverse_tool::Params,
    pub result: riverse_tool::ToolResult,
}

impl TurnRequest {
    /// A message after `history`, with the agent's tools only.
    pub fn message(api: Api, history: Vec<Message>, message: String) -> Self {
        TurnRequest {
            api,
            history,
            message: Some(message),
            tool_use: ToolUse::default(),
            follow_up: None,
            answer_id: None,
        }
    }

    /// The turn, writing the stored answer `answer_id`.
    pub fn writing(self, answer_id: &str) -> Self {
        TurnRequest {
            answer_id: Some(answer_id.to_owned()),
            ..self
        }
    }
}

/// Starts one turn, holding `permit` until it ends; its tools' questions go
/// to `asking`.
pub fn start(
    state: &Arc<AppState>,
    permit: OwnedSemaphorePermit,
    request: TurnRequest,
    asking: Asking,
) -> (TurnTask, UnboundedReceiver<Update>) {
    let (sender, updates) = unbounded_channel();
    let agent = state.agent.clone();
    let deadline = state.options.turn_timeout;
    let questions = match asking {
        Asking::Person | Asking::QuestionsOnly { .. } => Some(state.questions.for_turn(&sender)),
        Asking::Nobody { .. } | Asking::Scheduled { .. } => None,
    };
    let no_approvals = asking.refuses_approvals();
    let approves_all = asking == Asking::Scheduled { auto: true };
    let mut stopping = state.stopping.subscribe();
    let seen = Seen {
        state: state.clone(),
        api: request.api,
        started: Instant::now(),
    };
    // The turn runs in the caller's span: for a conversation's message, the
    // turn span naming the conversation, which the turn takes for its own.
    let span = tracing::Span::current();
    // Its calls that become tasks belong to the conversation it runs in.
    let conversation = riverse_tool::CallOrigin::current().and_then(|origin| origin.conversation);
    let answer_id = request.answer_id.clone();
    let adopter = state.clone();
    let running = async move {
        let events: UnboundedSender<Update> = sender.clone();
        let mut on_event = move |event: TurnEvent| {
            if let TurnEvent::TaskStarted(task) = &event {
                let owner = crate::tasks::Owner {
                    conversation: conversation.clone(),
                    answer: answer_id.clone(),
                };
                crate::tasks::adopt(&adopter, task.clone(), owner);
            }
            if approves_all {
                approve(event, &events, questions.as_ref(), no_approvals);
            } else {
                report(event, &events, questions.as_ref(), no_approvals);
            }
        };
        let turn = async {
            match &request.follow_up {
                Some(ended) => {
                    agent
                        .follow_up(
                            &request.history,
                            &ended.task_id,
                            &ended.tool,
                            &ended.params,
                            &ended.result,
                            &mut on_event,
                        )
                        .await
                }
                None => {
                    agent
                        .turn_with(
                            &request.history,
                            request.message.as_deref(),
                            &request.tool_use,
                            &mut on_event,
                        )
                        .await
                }
            }
        };
        let outcome = tokio::select! {
            outcome = tokio::time::timeout(deadline, turn) => Ended::Ran(outcome),
            waited = stopped(&mut stopping) => Ended::Stopped(waited),
        };
        let settled = settle(outcome, deadline, seen);
        // The slot is free once the turn is over, before anyone hears it is.
        drop(permit);
        let _ = sender.send(Update::Finished(settled));
    };
    // Hooks see the calls of its turn as the server's, and the
    // conversation's when the caller names it.
    let origin = riverse_tool::CallOrigin::current()
        .unwrap_or_else(|| riverse_tool::CallOrigin::new("serve", None));
    let running = origin.scope(running);
    let task = tokio::spawn(tracing::Instrument::instrument(running, span));
    (TurnTask(task), updates)
}

/// [`report`], approving every call whose approval asks.
fn approve(
    event: TurnEvent,
    updates: &UnboundedSender<Update>,
    questions: Option<&TurnQuestions>,
    no_approvals: Option<&'static str>,
) {
    match event {
        TurnEvent::ToolQuestion {
            question, reply, ..
        } if question.approval.is_some() => {
            reply.answer(Answer::accept(Default::default()));
        }
        event => report(event, updates, questions, no_approvals),
    }
}

/// Passes `event` on; a question goes to `questions`, or is cancelled
/// without them; an approval is refused with `no_approvals` when given.
fn report(
    event: TurnEvent,
    updates: &UnboundedSender<Update>,
    questions: Option<&TurnQuestions>,
    no_approvals: Option<&'static str>,
) {
    match (event, questions) {
        (
            TurnEvent::ToolQuestion {
                question, reply, ..
            },
            _,
        ) if question.approval.is_some() && no_approvals.is_some() => {
            reply.answer(Answer::unanswered(no_approvals.unwrap_or_default()));
        }
        (
            TurnEvent::ToolQuestion {
                call_id,
                tool,
                question,
                reply,
            },
            Some(questions),
        ) => questions.ask(
            call_id,
            tool,
            question,
            Box::new(move |answer| reply.answer(answer)),
        ),
        (TurnEvent::ToolQuestion { reply, .. }, None) => {
            reply.answer(Answer::cancel());
        }
        (event, questions) => {
            if let (TurnEvent::ToolCallFinished(record), Some(questions)) = (&event, questions) {
                questions.call_ended(&record.call_id);
            }
            // A reader that has gone away no longer wants events.
            let _ = updates.send(Update::Event(event));
        }
    }
}

/// Where a turn's end is noted: the metrics, and the LLM's state for `/readyz`.
struct Seen {
    state: Arc<AppState>,
    api: Api,
    started: Instant,
}

/// How a turn's task ended.
enum Ended {
    /// The turn ran until it ended, or until `serve.turn_timeout`.
    Ran(Result<Result<Turn, riverse_agent::TurnError>, tokio::time::error::Elapsed>),
    /// The server stopped it, after waiting this long for it.
    Stopped(Duration),
}

/// Waits until the server stops the turns; how long it waited for them.
async fn stopped(stopping: &mut tokio::sync::watch::Receiver<Option<Duration>>) -> Duration {
    let waited = stopping
        .wait_for(Option::is_some)
        .await
        .map(|waited| waited.unwrap_or_default());
    match waited {
        Ok(waited) => waited,
        // The state, which sends, outlives its turns.
        Err(_) => std::future::pending().await,
    }
}

fn settle(outcome: Ended, deadline: Duration, seen: Seen) -> Result<Turn, AppError> {
    let (ended, settled) = match outcome {
        Ended::Ran(Ok(Ok(turn))) if turn.client_calls.is_empty() => {
            (TurnOutcome::Answered, Ok(turn))
        }
        Ended::Ran(Ok(Ok(turn))) => (TurnOutcome::ClientCalls, Ok(turn)),
        Ended::Ran(Ok(Err(err))) => {
            tracing::warn!("turn failed: {err}");
            (TurnOutcome::Failed, Err(AppError::llm(err)))
        }
        Ended::Stopped(waited) => {
            tracing::warn!("turn stopped: the server is stopping");
            (TurnOutcome::Stopped, Err(AppError::server_stopping(waited)))
        }
        Ended::Ran(Err(_)) => {
            tracing::warn!("turn stopped after serve.turn_timeout ({deadline:?})");
            (
                TurnOutcome::TimedOut,
                Err(AppError::turn_timed_out(deadline)),
            )
        }
    };
    // A turn that timed out says nothing of the LLM: a tool may have held it.
    match ended {
        TurnOutcome::Answered | TurnOutcome::ClientCalls => seen.state.llm.saw(true),
        TurnOutcome::Failed => seen.state.llm.saw(false),
        TurnOutcome::TimedOut | TurnOutcome::Stopped => {}
    }
    prometheus::turn_ended(seen.api, ended, seen.started.elapsed());
    settled
}

/// Waits for the first update: a turn that fails before saying anything
/// fails the request with its status (502, 504) instead of a stream.
pub async fn first_update(updates: &mut UnboundedReceiver<Update>) -> Result<Update, AppError> {
    match updates.recv().await {
        Some(Update::Finished(Err(err))) => Err(err),
        Some(update) => Ok(update),
        None => Err(AppError::internal("the turn stopped without a result")),
    }
}
