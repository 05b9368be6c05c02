//! One call through the registry: found, coerced, approved, run under its
//! deadline, its secrets taken out, capped, traced and counted.

use std::time::Instant;

use tracing::Instrument;

use super::{Registry, trace};
use crate::call_metrics;
use crate::context::{CallContext, EndOnDrop};
use crate::failure::CallFailure;
use crate::params::{Params, coerce_params};
use crate::result::ToolResult;
use crate::truncate::cap_output;

/// Why a call could not even start. A tool that ran and failed is a failed
/// [`ToolResult`], not this.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    #[error("unknown tool \"{0}\"")]
    UnknownTool(String),
    #[error("tool \"{name}\" is not available: {reason}")]
    Unavailable { name: String, reason: String },
}

impl Registry {
    /// Runs one call that nobody watches (see [`Registry::call_with`]).
    pub async fn call(&self, name: &str, params: Params) -> Result<ToolResult, CallError> {
        self.call_with(name, params, &CallContext::none()).await
    }

    /// Runs one call: coerces the parameters and checks them against the
    /// tool's input schema, runs the tool under its deadline
    /// with `context` for what it says and asks meanwhile, checks its
    /// structured result against its output schema, caps the output.
    /// The context is ended when the call is, finished or stopped. The call
    /// is traced as an `execute_tool` span ([`trace`]).
    pub async fn call_with(
        &self,
        name: &str,
        params: Params,
        context: &CallContext,
    ) -> Result<ToolResult, CallError> {
        self.call_with_id(name, None, params, context).await
    }

    /// [`Registry::call_with`] for a call a model made, `call_id` being the
    /// model's id for it, which the call's span carries.
    pub async fn call_with_id(
        &self,
        name: &str,
        call_id: Option<&str>,
        params: Params,
        context: &CallContext,
    ) -> Result<ToolResult, CallError> {
        let span = trace::tool_span(name, call_id, &params);
        let result = self
            .checked_call(name, params, context)
            .instrument(span.clone())
            .await;
        if let Ok(result) = &result {
            call_metrics::called(name, result);
        }
        trace::record_outcome(&span, &result);
        result
    }

    /// [`Registry::call_with`] without the counting.
    async fn checked_call(
        &self,
        name: &str,
        params: Params,
        context: &CallContext,
    ) -> Result<ToolResult, CallError> {
        let _end = EndOnDrop(context.clone());
        let Some(tool) = self.get(name) else {
            return Err(self.why_not_callable(name));
        };
        let params = match coerce_params(tool.manifest(), params) {
            Ok(params) => params,
            Err(why) => {
                let failure = CallFailure::BadArguments { tool: None, why };
                return Ok(ToolResult::from(failure));
            }
        };
        let params = match self.check_arguments(name, params) {
            Ok(params) => params,
            Err(failure) => return Ok(ToolResult::from(failure)),
        };
        // No hooks (the usual case): one `Option` check, nothing built.
        let hooks = self.inner.options.hooks.0.as_ref();
        let mut hooked = Vec::new();
        let (params, call) = match hooks {
            None => (params, None),
            Some(hooks) => {
                match self
                    .hooks_before(hooks, tool, name, params, context, &mut hooked)
                    .await
                {
                    Ok(passed) => (passed.params, Some(passed.call)),
                    Err(mut refused) => {
                        refused.hooks = hooked;
                        return Ok(refused);
                    }
                }
            }
        };
        let approval = match self.approve(name, &params, context).await {
            Ok(record) => record,
            Err(mut refused) => {
                refused.hooks = hooked;
                return Ok(refused);
            }
        };
        let started = Instant::now();
        let mut result = tool
            .call(params, self.call_timeout(name, context), context)
            .await;
        call_metrics::ran(name, started.elapsed());
        result.scrub_secrets();
        let mut result = self.check_result(name, result);
        result.approval = approval;
        if let (Some(hooks), Some(call)) = (hooks, &call) {
            result = self
                .hooks_after(hooks, name, call, result, &mut hooked)
                .await;
            // A hook's replacement leaves no secret in either.
            result.scrub_secrets();
            result.hooks = hooked;
        }
        Ok(self.capped(result))
    }

    /// Follows again the task `task_id` of `name`'s server, which a call of
    /// it became before Riverse stopped ([`crate::Tool::resume`]): under the
    /// tool's deadline, counted from now, its result checked, its secrets
    /// taken out and capped as a call's is. The call was hooked and
    /// approved when it was made; it is not again.
    pub async fn resume(
        &self,
        name: &str,
        task_id: &str,
        context: &CallContext,
    ) -> Result<ToolResult, CallError> {
        let _end = EndOnDrop(context.clone());
        let Some(tool) = self.get(name) else {
            return Err(self.why_not_callable(name));
        };
        let started = Instant::now();
        let mut result = tool
            .resume(task_id, self.call_timeout(name, context), context)
            .await;
        call_metrics::ran(name, started.elapsed());
        result.scrub_secrets();
        let result = self.capped(self.check_result(name, result));
        call_metrics::called(name, &result);
        Ok(result)
    }

    /// The deadline of a call of `name`: its context's, else the tool's.
    fn call_timeout(&self, name: &str, context: &CallContext) -> std::time::Duration {
        context.timeout().unwrap_or_else(|| self.timeout(name))
    }

    /// `result` within the limits on a result's content and text.
    fn capped(&self, mut result: ToolResult) -> ToolResult {
        result.cap_content(self.inner.options.limits.max_content_bytes);
        let max = self.inner.options.limits.max_output_bytes;
        result.data = cap_output(std::mem::take(&mut result.data), max);
        result.error = cap_output(std::mem::take(&mut result.error), max);
        result
    }

    fn why_not_callable(&self, name: &str) -> CallError {
        let known = self
            .entries()
            .iter()
            .find(|entry| entry.name() == Some(name));
        match known {
            Some(entry) => CallError::Unavailable {
                name: name.to_owned(),
                reason: entry.error().unwrap_or_default().to_owned(),
            },
            None => CallError::UnknownTool(name.to_owned()),
        }
    }
}
