//! Sorting a round's calls before any runs: identical calls run once and
//! share a result; calls of tools the round did not offer, calls past the
//! budget, and calls whose arguments are not a JSON object, do not run and
//! say why.

use riverse_tool::{CallFailure, Params};

use super::TurnOptions;
use super::asked::{Arguments, AskedCall};
use super::offer::Offer;
use super::prompts;
use super::record;
use super::reply::ToolReply;
use riverse_tool::CallRecord;

/// A round's calls sorted into those that run and those that don't.
pub(crate) struct RoundPlan {
    /// Distinct calls, in the order first asked for.
    pub to_run: Vec<Planned>,
    pub rejected: Vec<Rejected>,
}

/// A distinct call of a round, and the positions of the calls it answers.
pub(crate) struct Planned {
    pub call_id: String,
    pub tool: String,
    pub params: Params,
    pub positions: Vec<usize>,
}

/// A call that does not run, and why, in the model's words.
pub(crate) struct Rejected {
    pub position: usize,
    pub reply: ToolReply,
    /// Malformed calls and calls of tools not offered are shown as failed
    /// calls; calls past the budget are not.
    pub record: Option<CallRecord>,
}

impl Rejected {
    /// `call`, at `position`, shown as a call that failed with `failure`.
    fn failed(
        position: usize,
        call: &AskedCall,
        failure: &CallFailure,
        options: &TurnOptions,
    ) -> Self {
        let error = failure.to_string();
        Rejected {
            position,
            reply: ToolReply::failure(prompts::tool_failed(options.language, &call.tool, &error)),
            record: Some(record::refused(call, failure.kind(), error)),
        }
    }

    /// The call at `position`, past `agent.max_tool_calls`.
    fn over_budget(position: usize, options: &TurnOptions) -> Self {
        Rejected {
            position,
            reply: ToolReply::failure(prompts::not_run(options.language, options.max_tool_calls)),
            record: None,
        }
    }
}

/// The plan of a round of `calls` that `offer` allows, spending
/// `calls_left` on the calls that run.
pub(crate) fn plan_round(
    calls: &[AskedCall],
    offer: Offer<'_>,
    calls_left: &mut usize,
    options: &TurnOptions,
) -> RoundPlan {
    let mut plan = RoundPlan {
        to_run: Vec::new(),
        rejected: Vec::new(),
    };
    for (position, call) in calls.iter().enumerate() {
        if let Some(refusal) = offer.refusal(&call.tool) {
            tracing::info!("{refusal}; not run");
            let rejected = Rejected::failed(position, call, &refusal, options);
            plan.rejected.push(rejected);
            continue;
        }
        let params = match &call.arguments {
            Arguments::Object(params) => params,
            Arguments::Unreadable { reason, .. } => {
                let why = reason.clone();
                let failure = CallFailure::BadArguments { tool: None, why };
                let rejected = Rejected::failed(position, call, &failure, options);
                plan.rejected.push(rejected);
                continue;
            }
        };
        if let Some(same) = plan
            .to_run
            .iter_mut()
            .find(|planned| planned.tool == call.tool && planned.params == *params)
        {
            same.positions.push(position);
            continue;
        }
        if *calls_left == 0 {
            tracing::info!("{} not run: agent.max_tool_calls reached", call.tool);
            plan.rejected.push(Rejected::over_budget(position, options));
            continue;
        }
        *calls_left -= 1;
        plan.to_run.push(Planned {
            call_id: call.id.clone(),
            tool: call.tool.clone(),
            params: params.clone(),
            positions: vec![position],
        });
    }
    plan
}
