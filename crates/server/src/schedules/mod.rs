//! Schedules in `riverse serve`: each usable schedule has a loop that waits
//! for its next tick, claims the tick in the store (so that of several
//! servers on one database exactly one runs it) and runs it as a turn in the
//! schedule's own conversation, stored as any conversation's turn is.
//!
//! A tick that comes while the schedule's last run is still going is
//! recorded as skipped, not started. At start, the ticks missed since the
//! store last saw the schedule are handled by its `catch_up`. Every wait is
//! measured on a [`Clock`], a parameter, so that tests can start a server
//! "hours later" without waiting for them.
//!
//! Calls whose approval asks are answered by the schedule's `approval`
//! (`turns::Asking::Scheduled`); the answer of each run is posted to
//! `notify.webhook` when there is one (the `notify` module), off the loop.

mod catch_up;
mod notify;
mod routes;

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use riverse_agent::{Schedule, ScheduleApproval};
use riverse_schedules::Cadence;
use riverse_store::{Claim, MessageStatus, Role, RunKind, RunStatus, ScheduleRun, StoreError};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::task::JoinHandle;

use crate::AppState;
use crate::conversations::{history_of, persist};
use crate::error::AppError;
use crate::prometheus::Api;
use crate::turns::{self, Asking, TurnRequest};
use crate::updates::Update;

pub(crate) use routes::{list, run_now, runs};

/// What the LLM reads when a scheduled run's call needs an approval and the
/// schedule's `approval` is `deny`.
pub const SCHEDULE_DENIES: &str = "a scheduled run asks nobody and the schedule's approval is deny: set its approval to auto to approve the calls that ask";

/// The messages of the schedule's conversation a run reads before its own
/// (the last ten runs' messages and answers).
const HISTORY_MESSAGES: usize = 20;

/// The longest a loop sleeps before it looks at the clock again (and notes
/// in the store that it looked).
const LONGEST_SLEEP: Duration = Duration::from_secs(60);

/// The time schedules run by: the machine's, or shifted from it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Clock {
    shift: TimeDelta,
}

impl Clock {
    /// The machine's clock.
    pub fn system() -> Clock {
        Clock::default()
    }

    /// The machine's clock moved by `shift` (later when positive).
    pub fn shifted(shift: TimeDelta) -> Clock {
        Clock { shift }
    }

    pub fn now(&self) -> DateTime<Utc> {
        Utc::now() + self.shift
    }
}

/// The loops running the schedules; dropping it stops them (runs already
/// started go on to their end).
#[must_use = "the schedules stop when this is dropped"]
pub struct ScheduleLoops(Vec<JoinHandle<()>>);

impl ScheduleLoops {
    /// How many schedules are running.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Drop for ScheduleLoops {
    fn drop(&mut self) {
        for task in &self.0 {
            task.abort();
        }
    }
}

/// Starts a loop for each schedule of `state.options.schedules` that can
/// run; each that can't is logged with its errors.
pub fn start_schedules(state: &Arc<AppState>) -> ScheduleLoops {
    let mut loops = Vec::new();
    for schedule in &state.options.schedules {
        match usable(schedule) {
            Some(cadence) => {
                let (state, schedule) = (state.clone(), schedule.clone());
                loops.push(tokio::spawn(keep(state, schedule, cadence)));
            }
            None => {
                for error in &schedule.errors {
                    tracing::warn!("{error}; the schedule does not run");
                }
            }
        }
    }
    ScheduleLoops(loops)
}

/// The schedule's cadence when it can run: no errors, a cadence and
/// something to run.
fn usable(schedule: &Schedule) -> Option<Cadence> {
    if !schedule.errors.is_empty() || schedule.message().is_none() {
        return None;
    }
    schedule.cadence.clone()
}

/// One schedule's loop: catch up, then run each tick as it comes.
async fn keep(state: Arc<AppState>, schedule: Schedule, cadence: Cadence) {
    let clock = state.options.schedule_clock;
    let started = clock.now();
    catch_up::at_start(&state, &schedule, &cadence, started).await;
    let mut after = started;
    loop {
        let Some(next) = cadence.next_after(after) else {
            tracing::info!(
                "schedule {:?}: cron {:?} matches no later time",
                schedule.name,
                schedule.cron
            );
            return;
        };
        if !wait_until(&state, &schedule.name, next).await {
            return;
        }
        run_tick(&state, &schedule, next, RunKind::Tick).await;
        mark_seen(&state, &schedule.name, next).await;
        after = next;
    }
}

/// Sleeps until `tick` on the schedules' clock, noting in the store as it
/// goes that the time before it was looked at; `false` when the server
/// stops first.
async fn wait_until(state: &AppState, name: &str, tick: DateTime<Utc>) -> bool {
    let clock = state.options.schedule_clock;
    let mut stopping = state.stopping.subscribe();
    loop {
        let left = (tick - clock.now()).to_std().unwrap_or_default();
        if left.is_zero() {
            return true;
        }
        tokio::select! {
            _ = tokio::time::sleep(left.min(LONGEST_SLEEP)) => {}
            _ = stopping.wait_for(Option::is_some) => return false,
        }
        let now = clock.now().min(tick);
        mark_seen(state, name, now - TimeDelta::milliseconds(1)).await;
    }
}

/// Notes that `name`'s ticks up to `until` were looked for.
async fn mark_seen(state: &AppState, name: &str, until: DateTime<Utc>) {
    if let Err(err) = state
        .store
        .mark_schedule_seen(name, until.timestamp_millis())
        .await
    {
        tracing::warn!("schedule {name:?}: can't note the time in the store: {err}");
    }
}

/// Claims `tick` and, when this server has it, starts its run; the run goes
/// on by itself. Returns the run's task, `None` when it was not started.
pub(crate) async fn run_tick(
    state: &Arc<AppState>,
    schedule: &Schedule,
    tick: DateTime<Utc>,
    kind: RunKind,
) -> Option<JoinHandle<RunReport>> {
    let name = &schedule.name;
    let claim = state
        .store
        .claim_schedule_run(name, tick.timestamp_millis(), kind)
        .await;
    match claim {
        Ok(Claim::Claimed(run)) => Some(start_run(state, schedule, run).await.1),
        Ok(Claim::Taken) => None,
        Ok(Claim::Running(running)) => {
            let why = still_going(schedule, &running);
            tracing::warn!("schedule {name:?}: the tick at {tick} is skipped: {why}");
            let skipped = state
                .store
                .skip_schedule_run(name, tick.timestamp_millis(), kind, &why)
                .await;
            if let Err(err) = skipped {
                tracing::error!("schedule {name:?}: can't record a skipped run: {err}");
            }
            None
        }
        Err(err) => {
            tracing::error!("schedule {name:?}: can't claim the tick at {tick}: {err}");
            None
        }
    }
}

/// Why a run is not started: the one before is still going.
fn still_going(schedule: &Schedule, running: &ScheduleRun) -> String {
    format!(
        "the run for {} ({}) is still going",
        shown_time(schedule, running.tick),
        running.id
    )
}

/// Milliseconds since the epoch as RFC 3339 in the schedule's zone.
pub(crate) fn shown_time(schedule: &Schedule, millis: i64) -> String {
    let at = DateTime::from_timestamp_millis(millis).unwrap_or_default();
    match &schedule.cadence {
        Some(cadence) => at.with_timezone(&cadence.zone()).to_rfc3339(),
        None => at.to_rfc3339(),
    }
}

/// How a run ended, as the webhook and the log tell it.
#[derive(Debug, Clone)]
pub(crate) struct RunReport {
    pub run: ScheduleRun,
    pub answer: String,
}

/// Starts the claimed `run`: the schedule's conversation gets the message
/// and a running answer, and the turn goes on in a task of its own. The run
/// as it stands once started (with its conversation and answer), and the
/// task, which ends with the run.
pub(crate) async fn start_run(
    state: &Arc<AppState>,
    schedule: &Schedule,
    mut run: ScheduleRun,
) -> (ScheduleRun, JoinHandle<RunReport>) {
    let begun = begin(state, schedule, &run).await;
    if let Ok(begun) = &begun {
        run.conversation_id = Some(begun.conversation_id.clone());
        run.message_id = Some(begun.answer_id.clone());
    }
    let (state, schedule, started) = (state.clone(), schedule.clone(), run.clone());
    let task = tokio::spawn(async move {
        let ended = match begun {
            Ok(begun) => finish(&state, begun).await,
            Err(err) => Err(err.message),
        };
        record_end(&state, &schedule, run, ended).await
    });
    (started, task)
}

/// A run's turn, started.
struct Begun {
    run_id: String,
    conversation_id: String,
    answer_id: String,
    updates: UnboundedReceiver<Update>,
}

/// Writes the run's message and its running answer into the schedule's
/// conversation and starts the turn, with a slot of
/// `serve.max_concurrent_turns` (waited for when all are taken).
async fn begin(
    state: &Arc<AppState>,
    schedule: &Schedule,
    run: &ScheduleRun,
) -> Result<Begun, AppError> {
    let store = &state.store;
    let message = schedule.message().unwrap_or_default();
    let title = format!("schedule {}", schedule.name);
    let conversation_id = store.schedule_conversation(&schedule.name, &title).await?;
    let conversation = store
        .conversation(&conversation_id)
        .await?
        .ok_or_else(|| AppError::internal("the schedule's conversation went away"))?;
    let mut history = history_of(&conversation);
    history.drain(..history.len().saturating_sub(HISTORY_MESSAGES));
    let missing = || AppError::internal("the schedule's conversation went away");
    store
        .add_message(&conversation_id, Role::User, &message, MessageStatus::Done)
        .await?
        .ok_or_else(missing)?;
    let answer_id = store
        .add_message(
            &conversation_id,
            Role::Assistant,
            "",
            MessageStatus::Running,
        )
        .await?
        .ok_or_else(missing)?;
    store
        .schedule_run_answer(&run.id, &conversation_id, &answer_id)
        .await?;
    let permit = state
        .turns
        .clone()
        .acquire_owned()
        .await
        .map_err(|_| AppError::internal("the server is stopping"))?;
    let auto = schedule.approval == ScheduleApproval::Auto;
    let request = TurnRequest::message(Api::Schedules, history, message).writing(&answer_id);
    let origin = riverse_tool::CallOrigin::new("schedule", Some(&conversation_id));
    let (task, updates) = origin.in_scope(|| {
        riverse_agent::turn_span(Some(&conversation_id))
            .in_scope(|| turns::start(state, permit, request, Asking::Scheduled { auto }))
    });
    let (forward, updates_out) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(persist(
        store.clone(),
        answer_id.clone(),
        task,
        updates,
        forward,
    ));
    Ok(Begun {
        run_id: run.id.clone(),
        conversation_id,
        answer_id,
        updates: updates_out,
    })
}

/// Waits for the turn's end, keeping the run's heartbeat fresh; the answer,
/// or why the turn failed.
async fn finish(state: &AppState, mut begun: Begun) -> Result<String, String> {
    let period = state.store.liveness().heartbeat;
    let mut heartbeat = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let update = tokio::select! {
            update = begun.updates.recv() => update,
            _ = heartbeat.tick() => {
                if let Err(err) = state.store.beat_schedule_run(&begun.run_id).await {
                    tracing::warn!("can't refresh the heartbeat of run {}: {err}", begun.run_id);
                }
                continue;
            }
        };
        match update {
            Some(Update::Finished(Ok(turn))) => return Ok(turn.answer),
            Some(Update::Finished(Err(err))) => return Err(err.message),
            Some(_) => {}
            None => return Err("the turn stopped without a result".to_owned()),
        }
    }
}

/// Records how the run ended, and posts it to the schedule's webhook.
async fn record_end(
    state: &AppState,
    schedule: &Schedule,
    mut run: ScheduleRun,
    ended: Result<String, String>,
) -> RunReport {
    let (status, error, answer) = match ended {
        Ok(answer) => (RunStatus::Done, None, answer),
        Err(why) => (RunStatus::Failed, Some(why), String::new()),
    };
    if let Some(why) = &error {
        tracing::warn!("schedule {:?}: run {} failed: {why}", schedule.name, run.id);
    }
    let recorded = state
        .store
        .finish_schedule_run(&run.id, status, error.as_deref())
        .await;
    if let Err(err) = recorded {
        record_failed(&schedule.name, &err);
    }
    run.status = status;
    run.error = error;
    let report = RunReport { run, answer };
    if let Some(url) = &schedule.webhook {
        notify::post(url.clone(), notify::payload(schedule, &report));
    }
    report
}

fn record_failed(name: &str, err: &StoreError) {
    tracing::error!("schedule {name:?}: can't record the end of a run: {err}");
}
