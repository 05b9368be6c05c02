//! `GET /v1/schedules`, `GET /v1/schedules/{name}/runs` and
//! `POST /v1/schedules/{name}/run`.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use riverse_agent::Schedule;
use riverse_store::{Claim, RunKind, ScheduleRun};
use serde_json::{Value, json};

use super::{shown_time, start_run, still_going, usable};
use crate::AppState;
use crate::error::AppError;

/// Runs listed when the request doesn't say.
const DEFAULT_RUNS: usize = 20;

/// Every schedule, with its next run and its last run.
pub async fn list(State(state): State<Arc<AppState>>) -> Result<Response, AppError> {
    let now = state.options.schedule_clock.now();
    let mut data = Vec::new();
    for schedule in &state.options.schedules {
        let mut value = schedule_json(schedule, now)?;
        let last = state.store.schedule_runs(&schedule.name, 1).await?;
        value["last_run"] = match last.first() {
            Some(run) => run_json(schedule, run),
            None => Value::Null,
        };
        data.push(value);
    }
    Ok(Json(json!({"object": "list", "data": data})).into_response())
}

/// The schedule's runs, newest first (`?limit=`, at most 100), each with its
/// answer and tool calls as its conversation keeps them.
pub async fn runs(
    State(state): State<Arc<AppState>>,
    Path(name): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Response, AppError> {
    let schedule = find(&state, &name)?;
    let limit = match query.get("limit") {
        None => DEFAULT_RUNS,
        Some(text) => text
            .parse::<usize>()
            .ok()
            .filter(|limit| *limit > 0)
            .ok_or_else(|| {
                AppError::invalid(
                    "limit",
                    format!("expected a whole number from 1, got {text:?}"),
                )
            })?,
    };
    let runs = state.store.schedule_runs(&name, limit).await?;
    let conversation = match runs.iter().find_map(|run| run.conversation_id.as_deref()) {
        Some(id) => state.store.conversation(id).await?,
        None => None,
    };
    let data: Vec<Value> = runs
        .iter()
        .map(|run| {
            let mut value = run_json(schedule, run);
            let answer = conversation.as_ref().and_then(|conversation| {
                conversation
                    .messages
                    .iter()
                    .find(|message| Some(&message.id) == run.message_id.as_ref())
            });
            if let Some(answer) = answer {
                value["answer"] = json!(answer.content);
                value["tool_calls"] = json!(answer.tool_calls);
            }
            value
        })
        .collect();
    Ok(Json(json!({"object": "list", "data": data})).into_response())
}

/// Runs the schedule now, whatever its cron says: `202` with the run, which
/// goes on after the reply; `409` while a run of it is still going.
pub async fn run_now(
    State(state): State<Arc<AppState>>,
    Path(name): Path<String>,
) -> Result<Response, AppError> {
    let schedule = find(&state, &name)?;
    if usable(schedule).is_none() {
        return Err(AppError::conflict(
            "schedule_unusable",
            format!(
                "schedule {name:?} can't run: {}",
                schedule.errors.join("; ")
            ),
        ));
    }
    let now = state.options.schedule_clock.now().timestamp_millis();
    let claim = state
        .store
        .claim_schedule_run(&name, now, RunKind::Now)
        .await?;
    match claim {
        Claim::Claimed(run) => {
            let (run, _running) = start_run(&state, schedule, run).await;
            Ok((StatusCode::ACCEPTED, Json(run_json(schedule, &run))).into_response())
        }
        Claim::Running(running) => Err(AppError::conflict(
            "schedule_running",
            format!(
                "schedule {name:?} is running: {}",
                still_going(schedule, &running)
            ),
        )),
        Claim::Taken => Err(AppError::internal("the run was taken by another")),
    }
}

fn find<'a>(state: &'a AppState, name: &str) -> Result<&'a Schedule, AppError> {
    state
        .options
        .schedules
        .iter()
        .find(|schedule| schedule.name == name)
        .ok_or_else(|| {
            let names: Vec<&str> = state
                .options
                .schedules
                .iter()
                .map(|s| s.name.as_str())
                .collect();
            let known = if names.is_empty() {
                "there are none".to_owned()
            } else {
                format!("there are {}", names.join(", "))
            };
            AppError::not_found(format!("no schedule named {name:?}; {known}"))
        })
}

/// A schedule as listed: its settings, the zone used, and its next run.
fn schedule_json(
    schedule: &Schedule,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Value, AppError> {
    let mut value = serde_json::to_value(schedule)
        .map_err(|err| AppError::internal(format!("schedule {:?}: {err}", schedule.name)))?;
    value["object"] = json!("schedule");
    value["timezone"] = json!(
        schedule
            .cadence
            .as_ref()
            .map(|cadence| cadence.zone().name())
    );
    let next = usable(schedule).and_then(|cadence| cadence.next_after(now));
    value["next_run"] = json!(next.map(|next| shown_time(schedule, next.timestamp_millis())));
    Ok(value)
}

/// A run as listed: its times as RFC 3339 in the schedule's zone.
fn run_json(schedule: &Schedule, run: &ScheduleRun) -> Value {
    let mut value = json!(run);
    value["object"] = json!("schedule.run");
    value["tick"] = json!(shown_time(schedule, run.tick));
    value["started_at"] = json!(shown_time(schedule, run.started_at));
    value["ended_at"] = json!(run.ended_at.map(|ended| shown_time(schedule, ended)));
    value
}
