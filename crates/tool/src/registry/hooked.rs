//! The hooks of a call ([`crate::CallHooks`]): each hook's `before_call`
//! in order, which may deny it, ask first or rewrite its arguments; then,
//! once it ran, each hook's `after_call`, which may replace its result.

use std::sync::Arc;

use serde_json::Value;

use super::Registry;
use crate::approval::{Approval, ApprovalRequest};
use crate::context::CallContext;
use crate::failure::CallFailure;
use crate::hooks::{
    AfterCall, BeforeCall, CallHooks, HookDecision, HookRecord, HookedCall, OnHookError,
};
use crate::params::{Params, coerce_params};
use crate::result::{FailureKind, ToolResult};
use crate::{Tool, shorten};

/// The longest hook reason kept in a record, in characters.
const MAX_REASON_CHARS: usize = 1000;

/// A call that got past the hooks before it: its arguments (rewritten, if
/// a hook did) and the call as the hooks after it see it.
pub(super) struct Passed {
    pub params: Params,
    pub call: Value,
}

impl Registry {
    /// Runs every hook's `before_call` on the call of `name` with `params`,
    /// in order, recording what each decided in `records`: the call that
    /// may run, or its refusal.
    pub(super) async fn hooks_before(
        &self,
        hooks: &Arc<dyn CallHooks>,
        tool: &Arc<dyn Tool>,
        name: &str,
        mut params: Params,
        context: &CallContext,
        records: &mut Vec<HookRecord>,
    ) -> Result<Passed, ToolResult> {
        let origin = context.origin();
        let call_json = |params: &Params| {
            HookedCall {
                tool: name,
                source: tool.source(),
                params,
                front_end: origin.map(|origin| origin.front_end.as_str()),
                conversation: origin.and_then(|origin| origin.conversation.as_deref()),
                annotations: tool.manifest().annotations.as_ref(),
            }
            .to_json()
        };
        let mut call = call_json(&params);
        for hook in hooks.hooks().iter().filter(|hook| hook.before) {
            let hook = hook.name.as_str();
            let record = |decision, reason: &str| HookRecord {
                hook: hook.to_owned(),
                decision,
                reason: shorten(reason, MAX_REASON_CHARS),
            };
            match hooks.before(hook, &call).await {
                Ok(BeforeCall::Go) => {}
                Ok(BeforeCall::Deny(reason)) => {
                    let reason = riverse_secrets::scrub(&reason);
                    records.push(record(HookDecision::Denied, &reason));
                    return Err(refused(format!(
                        "{name} was not run: hook {hook} denied it: {reason}"
                    )));
                }
                Ok(BeforeCall::Ask(reason)) => {
                    let reason = riverse_secrets::scrub(&reason);
                    let request = ApprovalRequest {
                        tool: name.to_owned(),
                        arguments: params.clone(),
                        rule: format!("hook {hook}: {reason}"),
                    };
                    let (decision, why) = match context.approve(request).await {
                        Approval::Approved | Approval::ApprovedForSession => {
                            (HookDecision::Approved, None)
                        }
                        Approval::Declined => {
                            (HookDecision::Declined, Some("the person said no".into()))
                        }
                        Approval::Unanswered(why) => (HookDecision::Unanswered, Some(why)),
                    };
                    records.push(record(decision, &reason));
                    if let Some(why) = why {
                        return Err(refused(format!(
                            "{name} was not run: hook {hook} asked first ({reason}) and {why}"
                        )));
                    }
                }
                Ok(BeforeCall::Rewrite(rewritten)) => {
                    let shown = Value::Object(rewritten.clone()).to_string();
                    records.push(record(HookDecision::Rewrote, &shown));
                    params = self
                        .recheck(tool, name, hook, rewritten)
                        .map_err(|refused| *refused)?;
                    call = call_json(&params);
                }
                Err(error) => {
                    if let Some(refused) = self.hook_failed(hooks, name, hook, &error, records) {
                        return Err(refused);
                    }
                }
            }
        }
        Ok(Passed { params, call })
    }

    /// Runs every hook's `after_call` on `result`, in order; a replaced
    /// result is what the next hook, and the caller, see.
    pub(super) async fn hooks_after(
        &self,
        hooks: &Arc<dyn CallHooks>,
        name: &str,
        call: &Value,
        mut result: ToolResult,
        records: &mut Vec<HookRecord>,
    ) -> ToolResult {
        for hook in hooks.hooks().iter().filter(|hook| hook.after) {
            let hook = hook.name.as_str();
            match hooks.after(hook, call, &result).await {
                Ok(AfterCall::Keep) => {}
                Ok(AfterCall::Replace(replaced)) => {
                    let mut replaced = *replaced;
                    records.push(HookRecord {
                        hook: hook.to_owned(),
                        decision: HookDecision::Replaced,
                        reason: String::new(),
                    });
                    replaced.scrub_secrets();
                    replaced.approval = result.approval.take();
                    result = replaced;
                }
                Err(error) => {
                    let error = riverse_secrets::scrub(&error).into_owned();
                    if let Some(mut withheld) = self.hook_failed(hooks, name, hook, &error, records)
                    {
                        // The tool ran: its result is what is kept back.
                        withheld.error = format!(
                            "{name} ran, but its result is withheld: hook {hook} failed ({error}) and hooks.on_error is deny"
                        );
                        withheld.approval = result.approval.take();
                        result = withheld;
                    }
                }
            }
        }
        result
    }

    /// A rewritten call's arguments, coerced and checked again as the
    /// model's are.
    fn recheck(
        &self,
        tool: &Arc<dyn Tool>,
        name: &str,
        hook: &str,
        rewritten: Params,
    ) -> Result<Params, Box<ToolResult>> {
        let bad = |why: String| {
            Box::new(ToolResult::from(CallFailure::BadArguments {
                tool: None,
                why: format!("hook {hook} rewrote the arguments of {name}: {why}"),
            }))
        };
        let params = coerce_params(tool.manifest(), rewritten).map_err(bad)?;
        self.check_arguments(name, params).map_err(|failure| {
            let mut result = ToolResult::from(failure);
            result.error = format!("hook {hook} rewrote the arguments: {}", result.error);
            Box::new(result)
        })
    }

    /// Records a hook that failed: the call's refusal, or `None` with
    /// `hooks.on_error: allow`.
    fn hook_failed(
        &self,
        hooks: &Arc<dyn CallHooks>,
        name: &str,
        hook: &str,
        error: &str,
        records: &mut Vec<HookRecord>,
    ) -> Option<ToolResult> {
        let error = riverse_secrets::scrub(error);
        let allow = hooks.on_error() == OnHookError::Allow;
        records.push(HookRecord {
            hook: hook.to_owned(),
            decision: if allow {
                HookDecision::FailedAllowed
            } else {
                HookDecision::Failed
            },
            reason: shorten(&error, MAX_REASON_CHARS),
        });
        if allow {
            tracing::warn!(
                "hook {hook} failed on a call of {name} (hooks.on_error is allow): {error}"
            );
            return None;
        }
        Some(refused(format!(
            "{name} was refused: hook {hook} failed ({error}) and hooks.on_error is deny"
        )))
    }
}

fn refused(error: String) -> ToolResult {
    ToolResult::failed(FailureKind::Denied, error)
}
