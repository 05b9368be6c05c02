//! What a running turn reports to the stream that reads it: its events, and
//! the questions its tools ask as they open and close.

use riverse_agent::{Turn, TurnEvent};
use riverse_tool::{AnswerAction, Question};
use serde::Serialize;

use crate::error::AppError;

/// What a running turn reports.
#[derive(Debug)]
pub enum Update {
    /// Every event but `ToolQuestion`, which becomes the two below.
    Event(TurnEvent),
    /// A tool asked a question that waits for an answer.
    QuestionAsked(AskedQuestion),
    QuestionClosed(ClosedQuestion),
    /// The last update.
    Finished(Result<Turn, AppError>),
}

/// A question as the stream announces it.
#[derive(Debug, Clone, PartialEq)]
pub struct AskedQuestion {
    /// What the answer is posted to: `/v1/riverse/questions/{id}`.
    pub id: String,
    pub call_id: String,
    pub tool: String,
    pub question: Question,
    /// When it expires to a cancel, in milliseconds since the Unix epoch.
    pub deadline: i64,
}

/// How a question closed, as the stream tells it.
#[derive(Debug, Clone, PartialEq)]
pub struct ClosedQuestion {
    pub id: String,
    pub call_id: String,
    pub tool: String,
    /// What the tool read.
    pub action: AnswerAction,
    pub reason: Closing,
}

/// Why a question closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Closing {
    /// Someone posted the answer.
    Answered,
    /// Its deadline passed: the tool read a cancel.
    Expired,
    /// The call ended (or was stopped) before an answer came.
    CallEnded,
}
