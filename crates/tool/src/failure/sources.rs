//! The failures particular to one kind of source: a Python worker, an MCP
//! server, a command agent's program, an HTTP agent's request.

use crate::result::FailureKind;

/// How a Python worker failed a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkerFailure {
    /// It answered with an error; `invalid_params` when it found the
    /// arguments invalid.
    Refused {
        message: String,
        invalid_params: bool,
    },
    /// Its reply was over what the host reads.
    ReplyTooLarge { total: usize, limit: usize },
    /// Its reply could not be read.
    ReplyUnreadable { what: String },
    /// It died during the call: `how` its connection ended (the exit, the
    /// signal, the broken stream), `breach` the sandbox limit that ended
    /// it, when that is what did.
    Crashed {
        how: String,
        breach: Option<LimitBreach>,
    },
}

/// How an MCP server failed a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerFailure {
    /// It answered with an error; `invalid_params` when it found the
    /// arguments invalid.
    Refused {
        message: String,
        invalid_params: bool,
    },
    /// It answered `tools/call` with something that is no result.
    UnexpectedReply { reply: String },
    /// It broke its connection by writing what is not MCP.
    NotMcp { cause: String },
    /// It died, or closed its connection, during the call.
    Died { death: String },
    /// The connection failed otherwise.
    Lost { cause: String },
}

/// How a command agent's program failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProgramFailure {
    /// It could not be started.
    NotStarted { cause: String },
    /// Its output could not be taken.
    OutputNotTaken,
    /// Waiting for it failed.
    Lost { cause: String },
    /// It ended in failure; `stderr` the start of what it wrote there,
    /// empty when nothing.
    Failed { ended: Termination, stderr: String },
}

/// How a failed command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Termination {
    /// It exited with this status: its own failure.
    Status(i32),
    /// A signal ended it from outside.
    Signal(i32),
    /// Neither is known.
    Unknown,
}

/// How an HTTP agent's request failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpFailure {
    /// It could not be sent, or got no reply.
    NotSent {
        cause: String,
    },
    /// A redirect whose Location can't be read: `location` as sent, quoted.
    BadRedirect {
        status: String,
        location: String,
        why: String,
    },
    TooManyRedirects {
        max: usize,
    },
    /// A redirect to another host, which `http.redirect: same-host`
    /// refuses; `origin` the first request's, the only one followed.
    RedirectElsewhere {
        to: String,
        origin: String,
    },
    /// The reply is longer than an HTTP agent reads.
    ReplyPastLimit {
        limit: usize,
    },
    /// The reply broke off while it was read.
    ReplyBroken {
        cause: String,
    },
    /// An error status; `redirect` where a redirect pointed that was not
    /// followed, `body` the start of the body.
    ErrorStatus {
        status: String,
        redirect: Option<String>,
        body: String,
    },
    /// The reply does not hold the result where the agent says it is.
    ResultNotFound {
        why: String,
    },
}

/// A sandbox limit a worker ran into, which ended it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitBreach {
    /// The sandbox's settings key (`python.sandbox`, `tools.x.sandbox`).
    pub sandbox: String,
    pub limit: SandboxLimit,
}

/// One limit of a sandbox and its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SandboxLimit {
    /// `cpu_seconds`: a worker's CPU time in all.
    CpuSeconds(u64),
    /// `file_size_mb`: the largest file written.
    FileSizeMb(u64),
}

fn refused_kind(invalid_params: bool) -> FailureKind {
    if invalid_params {
        FailureKind::BadParameters
    } else {
        FailureKind::ToolError
    }
}

impl WorkerFailure {
    pub(super) fn kind(&self) -> FailureKind {
        match self {
            WorkerFailure::Refused { invalid_params, .. } => refused_kind(*invalid_params),
            WorkerFailure::ReplyTooLarge { .. } => FailureKind::OutputTooLarge,
            WorkerFailure::ReplyUnreadable { .. } | WorkerFailure::Crashed { .. } => {
                FailureKind::Crashed
            }
        }
    }
}

impl ServerFailure {
    pub(super) fn kind(&self) -> FailureKind {
        match self {
            ServerFailure::Refused { invalid_params, .. } => refused_kind(*invalid_params),
            ServerFailure::UnexpectedReply { .. } => FailureKind::ToolError,
            ServerFailure::NotMcp { .. }
            | ServerFailure::Died { .. }
            | ServerFailure::Lost { .. } => FailureKind::Crashed,
        }
    }
}

impl ProgramFailure {
    pub(super) fn kind(&self) -> FailureKind {
        match self {
            ProgramFailure::NotStarted { .. } => FailureKind::Unavailable,
            ProgramFailure::OutputNotTaken
            | ProgramFailure::Lost { .. }
            | ProgramFailure::Failed {
                ended: Termination::Signal(_),
                ..
            } => FailureKind::Crashed,
            ProgramFailure::Failed { .. } => FailureKind::ToolError,
        }
    }
}

impl HttpFailure {
    pub(super) fn kind(&self) -> FailureKind {
        match self {
            HttpFailure::NotSent { .. } => FailureKind::Unavailable,
            HttpFailure::RedirectElsewhere { .. } => FailureKind::Denied,
            HttpFailure::ReplyPastLimit { .. } => FailureKind::OutputTooLarge,
            HttpFailure::ReplyBroken { .. } => FailureKind::Crashed,
            HttpFailure::BadRedirect { .. }
            | HttpFailure::TooManyRedirects { .. }
            | HttpFailure::ErrorStatus { .. }
            | HttpFailure::ResultNotFound { .. } => FailureKind::ToolError,
        }
    }
}
