//! The runs of schedules: one row per run, claimed before it starts.
//!
//! A run at a schedule's tick is claimed by inserting its row keyed by
//! `(schedule, tick)`; the insert does nothing when the row is there, so
//! of several servers sharing a PostgreSQL database exactly one claims each
//! tick ([`Claim::Taken`] for the others). A claim is also refused while
//! another run of the schedule is still running ([`Claim::Running`]), so a
//! run that outlasts its period is not started twice. A running run is kept
//! alive by its server's heartbeat, as an answer is; one whose heartbeat
//! went stale belongs to a server that stopped, and is marked failed
//! ([`crate::INTERRUPTED`]) by the next look at the runs.
//!
//! Each schedule has its own conversation ([`Store::schedule_conversation`]),
//! where its runs' messages, answers and tool calls are kept as any
//! conversation's are; a run's row points at its answer.

use serde::Serialize;

use crate::{Store, StoreError};

/// How a run came about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunKind {
    /// At its tick, by a server that was running then.
    Tick,
    /// For a tick missed while no server ran, when a server started.
    CatchUp,
    /// On request (`POST /v1/schedules/{name}/run`), at no tick.
    Now,
}

impl RunKind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            RunKind::Tick => "tick",
            RunKind::CatchUp => "catch_up",
            RunKind::Now => "now",
        }
    }

    pub(crate) fn parse(text: &str) -> RunKind {
        match text {
            "catch_up" => RunKind::CatchUp,
            "now" => RunKind::Now,
            _ => RunKind::Tick,
        }
    }
}

/// Where a run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Running,
    /// The turn answered.
    Done,
    /// The turn failed, or its server stopped (`error` says which).
    Failed,
    /// Not run: `error` says why (the run before was still going, or the
    /// tick was missed and `catch_up` is `skip`).
    Skipped,
}

impl RunStatus {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Done => "done",
            RunStatus::Failed => "failed",
            RunStatus::Skipped => "skipped",
        }
    }

    pub(crate) fn parse(text: &str) -> RunStatus {
        match text {
            "running" => RunStatus::Running,
            "done" => RunStatus::Done,
            "skipped" => RunStatus::Skipped,
            _ => RunStatus::Failed,
        }
    }
}

/// One run of a schedule, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScheduleRun {
    pub id: String,
    pub schedule: String,
    /// The tick it ran for (the request's time for a run on request), in
    /// milliseconds since the Unix epoch.
    pub tick: i64,
    pub kind: RunKind,
    pub status: RunStatus,
    /// Why it failed or was skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The schedule's conversation, and the run's answer in it.
    pub conversation_id: Option<String>,
    pub message_id: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub started_at: i64,
    pub ended_at: Option<i64>,
}

/// What claiming a run gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// This server runs it: the row, running.
    Claimed(ScheduleRun),
    /// Another run of the schedule is still running: this one.
    Running(ScheduleRun),
    /// The tick was claimed already (by another server, or earlier).
    Taken,
}

/// The `slot` column: the tick for a run at a tick, unique per schedule.
pub(crate) fn slot(kind: RunKind, tick: i64, id: &str) -> String {
    match kind {
        RunKind::Now => format!("now:{id}"),
        RunKind::Tick | RunKind::CatchUp => tick.to_string(),
    }
}

/// Runs the same method on whichever backend `self` holds.
macro_rules! on_backend {
    ($self:ident, $store:ident => $call:expr) => {
        match $self {
            Store::Sqlite($store) => $call.await,
            Store::Postgres($store) => $call.await,
        }
    };
}

impl Store {
    /// The id of `schedule`'s own conversation, made (titled `title`) the
    /// first time; made again if it was deleted.
    pub async fn schedule_conversation(
        &self,
        schedule: &str,
        title: &str,
    ) -> Result<String, StoreError> {
        on_backend!(self, store => store.schedule_conversation(schedule, title))
    }

    /// Claims the run of `schedule` at `tick` (ms) for this server, unless
    /// another run of it is running or the tick was claimed; runs on request
    /// ([`RunKind::Now`]) never meet a claimed tick.
    pub async fn claim_schedule_run(
        &self,
        schedule: &str,
        tick: i64,
        kind: RunKind,
    ) -> Result<Claim, StoreError> {
        self.fail_interrupted_runs().await?;
        on_backend!(self, store => store.claim_schedule_run(schedule, tick, kind))
    }

    /// Records a run that did not run, saying why; nothing when the tick
    /// has a row already. Whether it was recorded.
    pub async fn skip_schedule_run(
        &self,
        schedule: &str,
        tick: i64,
        kind: RunKind,
        why: &str,
    ) -> Result<bool, StoreError> {
        on_backend!(self, store => store.skip_schedule_run(schedule, tick, kind, why))
    }

    /// Points a claimed run at its conversation and answer.
    pub async fn schedule_run_answer(
        &self,
        run_id: &str,
        conversation_id: &str,
        message_id: &str,
    ) -> Result<(), StoreError> {
        on_backend!(self, store => store.schedule_run_answer(run_id, conversation_id, message_id))
    }

    /// Refreshes a running run's heartbeat.
    pub async fn beat_schedule_run(&self, run_id: &str) -> Result<(), StoreError> {
        on_backend!(self, store => store.beat_schedule_run(run_id))
    }

    /// Ends a run: done, or failed with why.
    pub async fn finish_schedule_run(
        &self,
        run_id: &str,
        status: RunStatus,
        error: Option<&str>,
    ) -> Result<(), StoreError> {
        on_backend!(self, store => store.finish_schedule_run(run_id, status, error))
    }

    /// Marks failed ([`crate::INTERRUPTED`]) every running run whose
    /// heartbeat is stale; how many that was.
    pub async fn fail_interrupted_runs(&self) -> Result<u64, StoreError> {
        on_backend!(self, store => store.fail_interrupted_runs())
    }

    /// `schedule`'s runs, newest first, at most `limit` (capped at
    /// [`crate::MAX_PAGE`]); interrupted ones are marked failed first.
    pub async fn schedule_runs(
        &self,
        schedule: &str,
        limit: usize,
    ) -> Result<Vec<ScheduleRun>, StoreError> {
        self.fail_interrupted_runs().await?;
        let limit = i64::try_from(limit.clamp(1, crate::MAX_PAGE)).unwrap_or(1);
        on_backend!(self, store => store.schedule_runs(schedule, limit))
    }

    /// The time (ms) up to which `schedule`'s ticks were looked for by a
    /// server: the latest of what [`Store::mark_schedule_seen`] recorded
    /// and the last tick with a run. `None` for a schedule never seen.
    pub async fn schedule_seen_until(&self, schedule: &str) -> Result<Option<i64>, StoreError> {
        on_backend!(self, store => store.schedule_seen_until(schedule))
    }

    /// Records that `schedule`'s ticks up to `until` (ms) were looked for;
    /// an earlier time than the one recorded changes nothing.
    pub async fn mark_schedule_seen(&self, schedule: &str, until: i64) -> Result<(), StoreError> {
        on_backend!(self, store => store.mark_schedule_seen(schedule, until))
    }
}
