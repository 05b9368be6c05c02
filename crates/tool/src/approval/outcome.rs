//! A call that needs approval: the request a front end shows, what the
//! person made of it, and the decision recorded with the call.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::context::{Answer, AnswerAction};
use crate::params::Params;

/// How a call that needed approval was let through or kept back, as it is
/// recorded with the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// An `auto` rule let it run without asking.
    Allowed,
    /// The person said yes to this call.
    Approved,
    /// The person said yes to this tool for the rest of the session.
    ApprovedForSession,
    /// The person said no.
    Declined,
    /// Nobody could be asked, or nobody answered in time.
    Unanswered,
    /// The settings refuse it.
    Denied,
}

/// The decision on one call, recorded with its result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalRecord {
    pub decision: Decision,
    /// The settings key that asked, refused or allowed.
    pub rule: String,
}

/// A call that waits for a person's yes: what a front end shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApprovalRequest {
    pub tool: String,
    /// The call's arguments, coerced: what will run.
    pub arguments: Params,
    /// The settings key that asks.
    pub rule: String,
}

/// What the person behind a front end made of an [`ApprovalRequest`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    Approved,
    /// Yes, and to every call of this tool for the rest of the session.
    ApprovedForSession,
    Declined,
    /// Nobody could answer, with why ("`riverse ask` has nobody to ask: …").
    Unanswered(String),
}

/// The field of an approval's accept that makes it a yes for the session.
pub const FOR_SESSION: &str = "for_session";

impl Approval {
    /// What an answer to [`ApprovalRequest::question`] decided.
    pub fn from_answer(answer: &Answer) -> Approval {
        match answer.action {
            AnswerAction::Accept if answer.content.get(FOR_SESSION) == Some(&Value::Bool(true)) => {
                Approval::ApprovedForSession
            }
            AnswerAction::Accept => Approval::Approved,
            AnswerAction::Decline => Approval::Declined,
            AnswerAction::Cancel => Approval::Unanswered(
                answer
                    .reason
                    .clone()
                    .unwrap_or_else(|| "nobody answered".to_owned()),
            ),
        }
    }
}
