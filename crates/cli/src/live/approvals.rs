//! Who says yes to a call whose `tools.<name>.approval` asks: `--yes`, the
//! person at the terminal (and what they approved for the session), or
//! nobody, with the reason the call is refused.

use std::collections::HashSet;
use std::io;
use std::sync::Arc;

use parking_lot::Mutex;
use riverse_tool::{Answer, ApprovalRequest, FOR_SESSION};
use serde_json::{Map, Value, json};

use super::lines::printable;
use super::prompt::{self, Typed};

/// How a front end answers approvals.
#[derive(Clone)]
pub enum Approvals {
    /// Every call that asks is approved: by `--yes`, or a schedule's
    /// `approval: auto`, named by this label.
    Given(&'static str),
    /// The person at the terminal is asked; the tools they approved for the
    /// rest of the session are approved without asking.
    Asked(Arc<Mutex<HashSet<String>>>),
    /// Nobody is asked: each such call is refused, for this reason.
    Refused(&'static str),
}

/// Why `riverse ask` refuses a call that asks.
pub const ASK_HAS_NOBODY: &str =
    "`riverse ask` asks nobody: give --yes to approve the calls that ask";
/// What approves every call that asks in `riverse ask` and `call`.
pub const YES: &str = "--yes";
/// What approves every call that asks in a scheduled run.
pub const SCHEDULE_AUTO: &str = "the schedule's approval is auto";
/// Why a scheduled run refuses a call that asks.
pub const SCHEDULE_DENIES: &str = "a scheduled run asks nobody and the schedule's approval is deny: set its approval to auto to approve the calls that ask";
/// Why a command without a terminal refuses a call that asks.
pub const NO_TERMINAL: &str =
    "there is no terminal to ask on: give --yes to approve the calls that ask";

impl Approvals {
    pub fn asked() -> Self {
        Approvals::Asked(Arc::default())
    }

    /// The answer given without a prompt, when there is one: `--yes`, a
    /// tool approved for the session, or nobody to ask; with the line that
    /// says so, when the call's own line will not (a refusal it will).
    pub fn without_prompt(&self, request: &ApprovalRequest) -> Option<(Answer, Option<String>)> {
        match self {
            Approvals::Given(by) => Some((
                Answer::accept(Map::new()),
                Some(format!("    {} approved ({by})", request.tool)),
            )),
            Approvals::Asked(session) if session.lock().contains(&request.tool) => Some((
                Answer::accept(Map::new()),
                Some(format!("    {} approved for this session", request.tool)),
            )),
            Approvals::Asked(_) => None,
            Approvals::Refused(reason) => Some((Answer::unanswered(*reason), None)),
        }
    }

    /// Puts `request` to the person at the terminal and reads yes, no or
    /// always; `None` when it was withdrawn first.
    pub fn prompt(&self, request: &ApprovalRequest, is_open: &dyn Fn() -> bool) -> Option<Answer> {
        eprintln!(
            "  ? {} wants to run ({})",
            printable(&request.tool),
            printable(&request.asked_by())
        );
        // The lines every front end shows; they fail only for a request the
        // call's context has already refused.
        let arguments = match request.shown_arguments() {
            Ok(arguments) => arguments,
            Err(unshown) => return Some(Answer::unanswered(unshown.to_string())),
        };
        for argument in arguments {
            eprintln!("      {}", printable(&argument.to_string()));
        }
        let answer = match read_decision(is_open) {
            Ok(answer) => answer,
            Err(err) => {
                eprintln!("    can't read the answer: {err}");
                Some(Answer::unanswered(format!(
                    "the answer could not be read: {err}"
                )))
            }
        };
        if let Some(answer) = &answer
            && answer.content.get(FOR_SESSION) == Some(&Value::Bool(true))
            && let Approvals::Asked(session) = self
        {
            session.lock().insert(request.tool.clone());
        }
        answer
    }
}

const DECISION_PROMPT: &str = "    allow it? [y]es, [n]o, [a]lways this session: ";

fn read_decision(is_open: &dyn Fn() -> bool) -> io::Result<Option<Answer>> {
    loop {
        let typed = match prompt::read_line(DECISION_PROMPT, is_open)? {
            Typed::Line(typed) => typed,
            Typed::Cancelled => {
                eprintln!("    (cancelled: not run)");
                return Ok(Some(Answer::unanswered("the person cancelled the prompt")));
            }
            Typed::Withdrawn => return Ok(None),
        };
        match typed.trim().to_lowercase().as_str() {
            "y" | "yes" => return Ok(Some(Answer::accept(Map::new()))),
            "a" | "always" => {
                let content = json!({FOR_SESSION: true}).as_object().cloned();
                return Ok(Some(Answer::accept(content.unwrap_or_default())));
            }
            "" | "n" | "no" => {
                eprintln!("    (declined: not run)");
                return Ok(Some(Answer::decline()));
            }
            _ => eprintln!("    answer y, n or a"),
        }
    }
}
