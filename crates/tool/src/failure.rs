//! Why a call failed, as facts: a [`CallFailure`] names what happened and
//! holds what it happened to (the tool, the deadline, the status, the
//! cause). Its [`FailureKind`], the sentence the LLM reads (its `Display`)
//! and the hint on what to do, where there is one, are made here and
//! nowhere else; a source returns `ToolResult::from(failure)`.

mod sentence;
mod sources;

use std::time::Duration;

use crate::approval::Verdict;
use crate::registry::CallError;
use crate::result::{FailureKind, ToolResult};
pub use sources::{
    HttpFailure, LimitBreach, ProgramFailure, SandboxLimit, ServerFailure, Termination,
    WorkerFailure,
};

/// What a call failed on, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallFailure {
    /// The arguments do not fit the tool; `tool` when the sentence names it.
    BadArguments { tool: Option<String>, why: String },
    /// The tool's structured result does not fit its `output_schema`, or
    /// is missing where the schema calls for one.
    BadOutput { tool: String, why: String },
    /// The approval policy, or the person asked, kept the call from running.
    NotApproved { tool: String, refusal: Refusal },
    /// A rule of the settings refused the call (a value a command does not
    /// allow, a protected path), `why` saying which.
    Refused { why: String },
    /// A call from inside a sandbox to a tool that sandbox does not hold.
    SandboxedCaller {
        tool: String,
        /// The caller's sandbox, by its settings key.
        sandbox: String,
        why: String,
    },
    /// The registry has no such tool to call, or has it switched off;
    /// `offered` the tools that may be called, when the caller says them.
    NotCallable {
        error: CallError,
        offered: Option<Vec<String>>,
    },
    /// The model called a tool its round did not offer it.
    NotOffered { tool: String, because: Unoffered },
    /// The tool's server or interpreter could not be started or reached.
    CouldNotRun { tool: String, cause: String },
    /// The tool's own declaration can't be used as it is (an HTTP agent's
    /// method or headers).
    Misdeclared { why: String },
    /// The call ran past `after` and was stopped.
    TimedOut {
        subject: Subject,
        after: Duration,
        then: AfterTimeout,
    },
    /// The tool ran and failed in its own words.
    ToolFailed { message: String },
    /// A failure another Riverse ran and sorted: its kind, its words.
    Relayed { kind: FailureKind, message: String },
    /// A Python worker failed the call.
    Worker {
        tool: String,
        failure: WorkerFailure,
    },
    /// An MCP server failed the call.
    Server {
        tool: String,
        server: String,
        failure: ServerFailure,
    },
    /// A command agent's program failed.
    Program {
        program: String,
        failure: ProgramFailure,
    },
    /// An HTTP agent's request failed; `request` is the first one, `GET URL`.
    Http {
        request: String,
        failure: HttpFailure,
    },
}

/// Why an approval kept a call back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The settings refuse it.
    Denied(Verdict),
    /// The person said no.
    Declined,
    /// Nobody answered the question `verdict` asked, for `why`.
    Unanswered { verdict: Verdict, why: String },
}

/// Why a round did not offer a tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unoffered {
    /// The round's `tool_choice` is `none`.
    ChoiceNone,
    /// The round's `tool_choice` names this other tool.
    ChoiceNames(String),
    /// The round showed no tools at all.
    NoneShown,
    /// The tool is not among these, which the round showed.
    NotShown(Vec<String>),
}

/// What timed out, as the sentence names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// `tool "name"`.
    Tool(String),
    /// A command agent's program, quoted.
    Program(String),
    /// An HTTP agent's first request, `GET URL`.
    Request(String),
}

/// What was done about a call past its deadline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AfterTimeout {
    /// Nothing more to say: the request was dropped.
    Dropped,
    /// The MCP server was told to cancel it.
    ServerCancelled { server: String },
    /// The call waited for its MCP server to restart.
    ServerRestarting { server: String },
    /// Its Python worker was killed and will be replaced.
    WorkerReplaced,
    /// The program was killed.
    Killed,
}

impl CallFailure {
    /// How clients sort it.
    pub fn kind(&self) -> FailureKind {
        match self {
            CallFailure::BadArguments { .. } => FailureKind::BadParameters,
            CallFailure::NotApproved { .. }
            | CallFailure::Refused { .. }
            | CallFailure::SandboxedCaller { .. } => FailureKind::Denied,
            CallFailure::NotCallable { .. }
            | CallFailure::NotOffered { .. }
            | CallFailure::CouldNotRun { .. }
            | CallFailure::Misdeclared { .. } => FailureKind::Unavailable,
            CallFailure::TimedOut { .. } => FailureKind::Timeout,
            CallFailure::ToolFailed { .. } | CallFailure::BadOutput { .. } => {
                FailureKind::ToolError
            }
            CallFailure::Relayed { kind, .. } => *kind,
            CallFailure::Worker { failure, .. } => failure.kind(),
            CallFailure::Server { failure, .. } => failure.kind(),
            CallFailure::Program { failure, .. } => failure.kind(),
            CallFailure::Http { failure, .. } => failure.kind(),
        }
    }

    /// What would let the call through, where the failure says: the
    /// setting to change, the tools there are. The sentence ends with it.
    pub fn hint(&self) -> Option<String> {
        match self {
            CallFailure::SandboxedCaller { sandbox, .. } => {
                Some(format!("name it in {sandbox}.calls to allow the call"))
            }
            CallFailure::NotCallable {
                offered: Some(offered),
                ..
            } => Some(format!("the available tools are: {}", offered.join(", "))),
            CallFailure::Worker {
                tool,
                failure:
                    WorkerFailure::Crashed {
                        breach: Some(breach),
                        ..
                    },
            } => Some(breach.allowing(tool)),
            _ => None,
        }
    }
}

impl From<CallError> for CallFailure {
    fn from(error: CallError) -> Self {
        CallFailure::NotCallable {
            error,
            offered: None,
        }
    }
}

impl From<CallFailure> for ToolResult {
    fn from(failure: CallFailure) -> Self {
        ToolResult::failed(failure.kind(), failure.to_string())
    }
}

#[cfg(test)]
mod tests;
