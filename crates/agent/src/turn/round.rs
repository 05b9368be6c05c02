//! The round executor: one round's calls run concurrently, their progress,
//! logs and questions passed on as they come, and every call answered,
//! failures included, in the order the model asked.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use riverse_tool::{Arguments, CallContext, CallRecord, Params, ToolResult};
use tokio::sync::mpsc;

use super::asked::AskedCall;
use super::background::{BackgroundTask, TaskHeard, TaskReports, call_registry, started_reply};
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
                let after = self
                    .background_after(&planned.tool)
                    .filter(|_| planned.tool != SKILL_TOOL);
                let (context, heard) = match after {
                    Some(after) => {
                        let (reports, heard) = TaskReports::new(None);
                        let mut context = listening::task_context(
                            &planned.call_id,
                            &planned.tool,
                            &events,
                            &self.sampler,
                            reports,
                        );
                        if let Some(timeout) = self.task_timeout(&planned.tool) {
                            context = context.with_timeout(timeout);
                        }
                        (context, Some((after, heard)))
                    }
                    None => {
                        let context = listening::call_context(
                            &planned.call_id,
                            &planned.tool,
                            &events,
                            &self.sampler,
                        );
                        (context, None)
                    }
                };
                async move {
                    let started = Instant::now();
                    let outcome = match heard {
                        Some((after, heard)) => {
                            self.call_in_background(planned, context, after, heard)
                                .await
                        }
                        None => Outcome::Ended(
                            self.call_tool(
                                &planned.tool,
                                &planned.call_id,
                                planned.params.clone(),
                                &context,
                            )
                            .await,
                        ),
                    };
                    (planned, outcome, started.elapsed())
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
            let Some((planned, outcome, duration)) = finished_call else {
                break;
            };
            // What the call said before it ended comes before its end.
            while let Ok(event) = heard.try_recv() {
                on_event(event);
            }
            let result = match outcome {
                Outcome::Ended(result) => result,
                Outcome::Detached(task) => {
                    let reply = started_reply(task.id(), task.tool());
                    on_event(TurnEvent::TaskStarted(task));
                    ToolResult::ok(reply)
                }
            };
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
        call_registry(&registry, name, call_id, params, context).await
    }

    /// Runs `planned` in a task of its own: its result when it ends within
    /// `after`, else the task, which goes on without the turn.
    async fn call_in_background(
        &self,
        planned: &Planned,
        context: CallContext,
        after: Duration,
        heard: TaskHeard,
    ) -> Outcome {
        let registry = self.registry();
        let (name, call_id, params) = (
            planned.tool.clone(),
            planned.call_id.clone(),
            planned.params.clone(),
        );
        let call = async move { call_registry(&registry, &name, &call_id, params, &context).await };
        let task = BackgroundTask::spawn(
            BackgroundTask::new_id(),
            &planned.call_id,
            &planned.tool,
            planned.params.clone(),
            Instant::now(),
            heard,
            call,
        );
        // `after: 0` promises a task every time, however fast the call.
        if after.is_zero() {
            return Outcome::Detached(task);
        }
        // A turn dropped before the call became a task stops the call, as
        // it stops a call in the turn.
        let mut guard = CancelOnDrop(Some(task.clone()));
        let outcome = tokio::select! {
            biased;
            end = task.ended() => Outcome::Ended(end.result),
            () = tokio::time::sleep(after) => Outcome::Detached(task),
        };
        guard.0 = None;
        outcome
    }
}

/// How a call of the round came out.
enum Outcome {
    Ended(ToolResult),
    /// Still running after its tool's `background.after`: a task now.
    Detached(BackgroundTask),
}

/// Cancels the task it holds when dropped.
struct CancelOnDrop(Option<BackgroundTask>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(task) = self.0.take() {
            task.cancel();
        }
    }
}
