//! A schedule's ticks missed while no server ran, handled at start by its
//! `catch_up`: `skip` records them as skipped (one row, saying how many),
//! `once` runs the last of them, `all` runs each in order, up to
//! [`CATCH_UP_CAP`], and records the rest as skipped, saying so.
//!
//! Missed means after the time the store last saw the schedule (the last
//! time a server looked, or its last tick's run) and up to the start. A
//! schedule the store has never seen missed nothing.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use riverse_agent::{CatchUp, Schedule};
use riverse_schedules::{Cadence, MAX_MISSED};
use riverse_store::RunKind;

use super::{mark_seen, run_tick, shown_time};
use crate::AppState;

/// The most missed runs `catch_up: all` runs at one start.
pub const CATCH_UP_CAP: usize = 100;

/// Handles what `schedule` missed before `now`, then notes `now` as seen.
pub(super) async fn at_start(
    state: &Arc<AppState>,
    schedule: &Schedule,
    cadence: &Cadence,
    now: DateTime<Utc>,
) {
    let name = &schedule.name;
    let seen = match state.store.schedule_seen_until(name).await {
        Ok(seen) => seen.and_then(DateTime::from_timestamp_millis),
        Err(err) => {
            tracing::error!("schedule {name:?}: can't read when it last ran: {err}");
            None
        }
    };
    if let Some(seen) = seen {
        match schedule.catch_up {
            CatchUp::Skip => skip(state, schedule, cadence, seen, now).await,
            CatchUp::Once => once(state, schedule, cadence, seen, now).await,
            CatchUp::All => all(state, schedule, cadence, seen, now),
        }
    }
    mark_seen(state, name, now).await;
}

/// The ticks after `from` up to `to`: how many, and the last.
fn count_missed(
    cadence: &Cadence,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> (usize, Option<DateTime<Utc>>) {
    let (mut count, mut last, mut at) = (0, None, from);
    loop {
        let missed = cadence.missed(at, to, MAX_MISSED);
        count += missed.ticks.len();
        if let Some(tick) = missed.ticks.last() {
            last = Some(*tick);
            at = *tick;
        }
        if !missed.capped {
            return (count, last);
        }
    }
}

/// "3 runs" / "1 run".
fn runs_text(count: usize) -> String {
    if count == 1 {
        "1 run".to_owned()
    } else {
        format!("{count} runs")
    }
}

async fn skip(
    state: &AppState,
    schedule: &Schedule,
    cadence: &Cadence,
    seen: DateTime<Utc>,
    now: DateTime<Utc>,
) {
    let (count, Some(last)) = count_missed(cadence, seen, now) else {
        return;
    };
    let why = format!(
        "{} missed while no server ran (the last for {}); catch_up is skip",
        runs_text(count),
        shown_time(schedule, last.timestamp_millis())
    );
    record_skipped(state, schedule, last, &why).await;
}

async fn once(
    state: &Arc<AppState>,
    schedule: &Schedule,
    cadence: &Cadence,
    seen: DateTime<Utc>,
    now: DateTime<Utc>,
) {
    let (count, Some(last)) = count_missed(cadence, seen, now) else {
        return;
    };
    tracing::info!(
        "schedule {:?}: {} missed while no server ran; catch_up once runs the last",
        schedule.name,
        runs_text(count)
    );
    run_tick(state, schedule, last, RunKind::CatchUp).await;
}

/// Runs each missed tick in order, each after the one before has ended, in
/// a task of its own: the schedule's loop goes on meanwhile.
fn all(
    state: &Arc<AppState>,
    schedule: &Schedule,
    cadence: &Cadence,
    seen: DateTime<Utc>,
    now: DateTime<Utc>,
) {
    let missed = cadence.missed(seen, now, CATCH_UP_CAP);
    if missed.ticks.is_empty() {
        return;
    }
    let beyond = missed
        .capped
        .then(|| {
            missed
                .ticks
                .last()
                .and_then(|last| cadence.next_after(*last))
        })
        .flatten();
    let (state, schedule) = (state.clone(), schedule.clone());
    tracing::info!(
        "schedule {:?}: catch_up all runs {} missed while no server ran{}",
        schedule.name,
        runs_text(missed.ticks.len()),
        if missed.capped {
            " (the first ones: more were missed)"
        } else {
            ""
        }
    );
    tokio::spawn(async move {
        if let Some(first_left) = beyond {
            let why = format!(
                "more than {CATCH_UP_CAP} runs were missed while no server ran; catch_up all ran the first {CATCH_UP_CAP}, and skips the others, from this one on"
            );
            record_skipped(&state, &schedule, first_left, &why).await;
        }
        for tick in missed.ticks {
            if let Some(run) = run_tick(&state, &schedule, tick, RunKind::CatchUp).await {
                let _ = run.await;
            }
        }
    });
}

async fn record_skipped(state: &AppState, schedule: &Schedule, tick: DateTime<Utc>, why: &str) {
    let name = &schedule.name;
    tracing::warn!("schedule {name:?}: {why}");
    let recorded = state
        .store
        .skip_schedule_run(name, tick.timestamp_millis(), RunKind::CatchUp, why)
        .await;
    if let Err(err) = recorded {
        tracing::error!("schedule {name:?}: can't record the missed runs: {err}");
    }
}
