//! The sentence the LLM reads for each failure: what happened to what,
//! and, where there is one, the hint on what to do last.

use std::fmt;

use super::{
    AfterTimeout, CallFailure, HttpFailure, LimitBreach, ProgramFailure, Refusal, SandboxLimit,
    ServerFailure, Subject, Termination, Unoffered, WorkerFailure,
};
use crate::text::seconds;

impl fmt::Display for CallFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_what(f)?;
        match self.hint() {
            // A breach's hint is a line of its own, as the worker words it.
            Some(hint) if matches!(self, CallFailure::Worker { .. }) => write!(f, "\n{hint}"),
            Some(hint) => write!(f, "; {hint}"),
            None => Ok(()),
        }
    }
}

impl CallFailure {
    /// The sentence without its hint.
    fn fmt_what(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallFailure::BadArguments { tool: None, why }
            | CallFailure::Refused { why }
            | CallFailure::Misdeclared { why } => f.write_str(why),
            CallFailure::BadArguments {
                tool: Some(tool),
                why,
            }
            | CallFailure::BadOutput { tool, why } => write!(f, "tool \"{tool}\": {why}"),
            CallFailure::NotApproved { tool, refusal } => {
                write!(f, "{tool} was not run: {refusal}")
            }
            CallFailure::SandboxedCaller { tool, sandbox, why } => write!(
                f,
                "sandbox: tool \"{tool}\" can't be called from inside {sandbox}: {why}"
            ),
            CallFailure::NotCallable { error, .. } => write!(f, "{error}"),
            CallFailure::NotOffered { tool, because } => {
                write!(f, "tool {tool:?} was not offered in this round: {because}")
            }
            CallFailure::CouldNotRun { tool, cause } => {
                write!(f, "tool \"{tool}\" could not run: {cause}")
            }
            CallFailure::TimedOut {
                subject,
                after,
                then,
            } => write!(f, "{subject} timed out after {}{then}", seconds(*after)),
            CallFailure::ToolFailed { message } | CallFailure::Relayed { message, .. } => {
                f.write_str(message)
            }
            CallFailure::Worker { tool, failure } => failure.fmt_for(tool, f),
            CallFailure::Server {
                tool,
                server,
                failure,
            } => {
                write!(f, "tool \"{tool}\": ")?;
                failure.fmt_for(server, f)
            }
            CallFailure::Program { program, failure } => failure.fmt_for(program, f),
            CallFailure::Http { request, failure } => failure.fmt_for(request, f),
        }
    }
}

impl WorkerFailure {
    fn fmt_for(&self, tool: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkerFailure::Refused { message, .. } => write!(f, "tool \"{tool}\": {message}"),
            WorkerFailure::ReplyTooLarge { total, limit } => write!(
                f,
                "tool \"{tool}\": its reply of {total} bytes is over the {limit} bytes the host reads"
            ),
            WorkerFailure::ReplyUnreadable { what } => write!(f, "tool \"{tool}\": {what}"),
            WorkerFailure::Crashed { how, breach } => {
                if let Some(breach) = breach {
                    write!(f, "{breach}: ")?;
                }
                write!(
                    f,
                    "tool \"{tool}\" crashed: {how}; a fresh worker will serve later calls"
                )
            }
        }
    }
}

impl ServerFailure {
    /// After `tool "name": `.
    fn fmt_for(&self, server: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const RESTARTED: &str = "it will be restarted on the next call";
        write!(f, "mcp server \"{server}\"")?;
        match self {
            ServerFailure::Refused { message, .. } => write!(f, " refused the call: {message}"),
            ServerFailure::UnexpectedReply { reply } => {
                write!(f, " answered tools/call with something else: {reply}")
            }
            ServerFailure::NotMcp { cause } => {
                write!(f, " failed during the call: {cause}; {RESTARTED}")
            }
            ServerFailure::Died { death } => {
                write!(f, " died during the call ({death}); {RESTARTED}")
            }
            ServerFailure::Lost { cause } => write!(f, ": {cause}"),
        }
    }
}

impl ProgramFailure {
    fn fmt_for(&self, program: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProgramFailure::NotStarted { cause } => write!(f, "can't run {program:?}: {cause}"),
            ProgramFailure::OutputNotTaken => write!(f, "can't read the output of {program:?}"),
            ProgramFailure::Lost { cause } => write!(f, "{program:?}: {cause}"),
            ProgramFailure::Failed { ended, stderr } => {
                write!(f, "{program:?} {ended}")?;
                if stderr.is_empty() {
                    Ok(())
                } else {
                    write!(f, ": {stderr}")
                }
            }
        }
    }
}

impl HttpFailure {
    fn fmt_for(&self, request: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(request)?;
        match self {
            HttpFailure::NotSent { cause } => write!(f, " failed: {cause}"),
            HttpFailure::BadRedirect {
                status,
                location,
                why,
            } => write!(
                f,
                " answered {status}, a redirect with an invalid Location {location}: {why}"
            ),
            HttpFailure::TooManyRedirects { max } => write!(f, ": more than {max} redirects"),
            HttpFailure::RedirectElsewhere { to, origin } => write!(
                f,
                ": redirected to {to}, another host; http.redirect: same-host follows only redirects to {origin}"
            ),
            HttpFailure::ReplyPastLimit { limit } => write!(
                f,
                ": the reply is longer than {limit} bytes, the limit for an HTTP agent; it was not read further"
            ),
            HttpFailure::ReplyBroken { cause } => {
                write!(f, ": the reply could not be read: {cause}")
            }
            HttpFailure::ErrorStatus {
                status,
                redirect,
                body,
            } => {
                write!(f, " answered {status}")?;
                if let Some(location) = redirect {
                    write!(
                        f,
                        ", a redirect to {location} that http.redirect: none does not follow"
                    )?;
                }
                if body.is_empty() {
                    Ok(())
                } else {
                    write!(f, ": {body}")
                }
            }
            HttpFailure::ResultNotFound { why } => write!(f, ": {why}"),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Denied(verdict) => write!(f, "{verdict}"),
            Refusal::Declined => f.write_str("the user declined it"),
            Refusal::Unanswered { verdict, why } => {
                write!(f, "it needs approval ({verdict}) and {why}")
            }
        }
    }
}

impl fmt::Display for Unoffered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unoffered::ChoiceNone => f.write_str("tool_choice is \"none\""),
            Unoffered::ChoiceNames(named) => write!(f, "tool_choice names {named:?}"),
            Unoffered::NoneShown => f.write_str("no tools were shown"),
            Unoffered::NotShown(shown) => {
                write!(f, "it is not among the tools shown ({})", shown.join(", "))
            }
        }
    }
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subject::Tool(name) => write!(f, "tool \"{name}\""),
            Subject::Program(program) => write!(f, "{program:?}"),
            Subject::Request(request) => f.write_str(request),
        }
    }
}

impl fmt::Display for AfterTimeout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AfterTimeout::Dropped => Ok(()),
            AfterTimeout::ServerCancelled { server } => write!(
                f,
                "; mcp server \"{server}\" was sent notifications/cancelled"
            ),
            AfterTimeout::ServerRestarting { server } => {
                write!(f, " while mcp server \"{server}\" restarted")
            }
            AfterTimeout::WorkerReplaced => {
                f.write_str("; its worker was killed and a fresh one will serve later calls")
            }
            AfterTimeout::Killed => f.write_str("; it was killed"),
        }
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Termination::Status(code) => write!(f, "exited with status {code}"),
            Termination::Signal(signal) => write!(f, "was killed by signal {signal}"),
            Termination::Unknown => f.write_str("failed"),
        }
    }
}

/// `sandbox: CPU time past python.sandbox.cpu_seconds (30 s, a worker's in all)`.
impl fmt::Display for LimitBreach {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let label = &self.sandbox;
        match self.limit {
            SandboxLimit::CpuSeconds(limit) => write!(
                f,
                "sandbox: CPU time past {label}.cpu_seconds ({limit} s, a worker's in all)"
            ),
            SandboxLimit::FileSizeMb(limit) => write!(
                f,
                "sandbox: a file written past {label}.file_size_mb ({limit} MB)"
            ),
        }
    }
}

impl SandboxLimit {
    fn key(self) -> &'static str {
        match self {
            SandboxLimit::CpuSeconds(_) => "cpu_seconds",
            SandboxLimit::FileSizeMb(_) => "file_size_mb",
        }
    }

    fn value(self) -> u64 {
        match self {
            SandboxLimit::CpuSeconds(value) | SandboxLimit::FileSizeMb(value) => value,
        }
    }
}

impl LimitBreach {
    /// The setting that would let `tool` run on: the limit doubled, in the
    /// tool's own sandbox (as the worker words it for the rules it names,
    /// `SandboxRules.allowing`).
    pub(super) fn allowing(&self, tool: &str) -> String {
        let label = &self.sandbox;
        let key = self.limit.key();
        let doubled = self.limit.value().saturating_mul(2);
        let own = format!("tools.{tool}.sandbox");
        if own == *label {
            format!("to allow it, set {label}.{key}: {doubled}")
        } else {
            format!(
                "to allow it, set {own}: {{{key}: {doubled}}} (a sandbox of the tool's own; its other keys come from {label})"
            )
        }
    }
}
