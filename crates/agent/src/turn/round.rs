//! The round executor: one round's calls run concurrently, their progress,
//! logs and questions passed on as they come, and every call answered,
//! failures included, in the order the model asked.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use riverse_tool::{
    Arguments, CallContext, CallError, CallFailure, CallRecord, Params, ToolResult,
};
use tokio::sync::mpsc;

use super::asked::AskedCall;
use super::listening;
use super::offer::Offer;
use super::plan::{Planned, plan_round};
use super::record;
use super::reply::ToolReply;
use super::skill_tool::SKILL_TOOL;
use super::{Agent, EventSink, TurnEvent};

/// Records of a round by the position of their call.
type Finished = Vec<(usize, CallRecord)>;

impl Agent {
    /// Runs one round's calls of tools it offered and returns what the model
    /// reads for each, in the order of `calls`. Records of the calls that ran
    /// (or were malformed, or not offered) are added to `records` in that
    /// order too.
    pub(crate) async fn run_round(
        &self,
        calls: &[AskedCall],
        offer: Offer<'_>,
        calls_left: &mut usize,
        records: &mut Vec<CallRecord>,
        on_event: EventSink<'_>,
    ) -> Vec<ToolReply> {
        let plan = plan_round(calls, offer, calls_left, &self.options);
        let mut replies = vec![ToolReply::default(); calls.len()];
        let mut finished: Finished = Vec::new();
        for rejected in plan.rejected {
            replies[rejected.position] = rejected.reply;
            if let Some(record) = rejected.record {
                let call = &calls[rejected.position];
                on_event(TurnEvent::ToolCallStarted {
                    call_id: call.id.clone(),
                    tool: call.tool.clone(),
                    params: call.arguments.recorded(),
                });
                on_event(TurnEvent::ToolCallFinished(record.clone()));
                finished.push((rejected.position, record));
            }
        }
        for planned in &plan.to_run {
            on_event(TurnEvent::ToolCallStarted {
                call_id: planned.call_id.clone(),
                tool: planned.tool.clone(),
                params: Arguments::Object(planned.params.clone()),
            });
        }
        self.run_planned(&plan.to_run, &mut replies, &mut finished, on_event)
            .await;
        finished.sort_by_key(|(position, _)| *position);
        records.extend(finished.into_iter().map(|(_, record)| record));
        replies
    }

    /// Runs the calls `to_run` at once, passing on what they say while they
    /// run; each one's reply goes to the positions it answers, its record
    /// into `finished` as it ends.
    async fn run_planned(
        &self,
        to_run: &[Planned],
        replies: &mut [ToolReply],
        finished: &mut Finished,
        on_event: EventSink<'_>,
    ) {
        let (events, mut heard) = mpsc::unbounded_channel();
        let mut running: FuturesUnordered<_> = to_run
            .iter()
            .map(|planned| {
                let context = listening::call_context(
                    &planned.call_id,
                    &planned.tool,
                    &events,
                    &self.sampler,
                );
                async move {
                    let started = Instant::now();
                    let result = self
                        .call_tool(
                            &planned.tool,
                            &planned.call_id,
                            planned.params.clone(),
                            &context,
                        )
                        .await;
                    (planned, result, started.elapsed())
                }
            })
            .collect();
        loop {
            let finished_call = tokio::select! {
                Some(event) = heard.recv() => {
                    on_event(event);
                    continue;
                }
                finished_call = running.next() => finished_call,
            };
            let Some((planned, result, duration)) = finished_call else {
                break;
            };
            // What the call said before it ended comes before its end.
            while let Ok(event) = heard.try_recv() {
                on_event(event);
            }
            let record = self.share_result(planned, result, duration, replies);
            on_event(TurnEvent::ToolCallFinished(record.clone()));
            finished.push((planned.positions[0], record));
        }
    }

    /// Gives `result` to every position `planned` answers, and records it.
    fn share_result(
        &self,
        planned: &Planned,
        result: ToolResult,
        duration: Duration,
        replies: &mut [ToolReply],
    ) -> CallRecord {
        let max_bytes = self.registry().limits().max_output_bytes;
        let reply = ToolReply::of(self.options.language, &planned.tool, &result, max_bytes);
        for &position in &planned.positions {
            replies[position] = reply.clone();
        }
        let Planned {
            call_id,
            tool,
            params,
            ..
        } = planned;
        record::ran(call_id, tool, params, result, duration)
    }

    async fn call_tool(
        &self,
        name: &str,
        call_id: &str,
        params: Params,
        context: &CallContext,
    ) -> ToolResult {
        let registry = self.registry();
        if name == SKILL_TOOL && registry.get(SKILL_TOOL).is_none() {
            return self.call_skill_tool(&params).await;
        }
        match registry
            .call_with_id(name, Some(call_id), params, context)
            .await
        {
            Ok(result) => result,
            Err(error @ CallError::UnknownTool(_)) => {
                let offered = registry
                    .available_manifests()
                    .map(|m| m.name.clone())
                    .collect();
                ToolResult::from(CallFailure::NotCallable {
                    error,
                    offered: Some(offered),
                })
            }
            Err(error) => ToolResult::from(CallFailure::from(error)),
        }
    }
}
