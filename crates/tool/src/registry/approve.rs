//! The approval gate of a call: its tool's policy decides, the front end's
//! person is asked when it says so, and the decision is recorded.

use super::Registry;
use crate::approval::{Approval, ApprovalMode, ApprovalRecord, ApprovalRequest, Decision};
use crate::context::CallContext;
use crate::failure::{CallFailure, Refusal};
use crate::params::Params;
use crate::result::ToolResult;

impl Registry {
    /// Applies `name`'s approval policy to a call with `params`: what to
    /// record when it may run, or its refusal.
    pub(super) async fn approve(
        &self,
        name: &str,
        params: &Params,
        context: &CallContext,
    ) -> Result<Option<ApprovalRecord>, ToolResult> {
        let policy = &self.inner.policy(name).approval;
        // Most tools have no policy: no verdict (and no key copied) per call.
        if policy.runs_all_unrecorded() {
            return Ok(None);
        }
        let verdict = policy.decide(params);
        let record = |decision| ApprovalRecord {
            decision,
            rule: verdict.rule.clone(),
        };
        let refuse = |decision, refusal| {
            let mut refused = ToolResult::from(CallFailure::NotApproved {
                tool: name.to_owned(),
                refusal,
            });
            refused.approval = Some(record(decision));
            refused
        };
        match verdict.mode {
            ApprovalMode::Auto => Ok(verdict.by_rule.then(|| record(Decision::Allowed))),
            ApprovalMode::Deny => Err(refuse(Decision::Denied, Refusal::Denied(verdict.clone()))),
            ApprovalMode::Ask => {
                let request = ApprovalRequest {
                    tool: name.to_owned(),
                    arguments: params.clone(),
                    rule: verdict.rule.clone(),
                };
                match context.approve(request).await {
                    Approval::Approved => Ok(Some(record(Decision::Approved))),
                    Approval::ApprovedForSession => Ok(Some(record(Decision::ApprovedForSession))),
                    Approval::Declined => Err(refuse(Decision::Declined, Refusal::Declined)),
                    Approval::Unanswered(why) => Err(refuse(
                        Decision::Unanswered,
                        Refusal::Unanswered {
                            verdict: verdict.clone(),
                            why,
                        },
                    )),
                }
            }
        }
    }
}
