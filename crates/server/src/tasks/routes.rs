//! `GET /v1/tasks`, `GET /v1/tasks/{id}` and `POST /v1/tasks/{id}/cancel`.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Response};
use riverse_store::{Task, TaskState};
use serde_json::{Value, json};

use crate::AppState;
use crate::error::AppError;

/// Tasks listed when the request doesn't say.
const DEFAULT_TASKS: usize = 20;

/// What a task cancelled through the API says.
const CANCELLED_HERE: &str = "cancelled through the API";

/// The newest tasks first (`?limit=`, at most 100).
pub async fn list(
    State(state): State<Arc<AppState>>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Response, AppError> {
    let limit = match query.get("limit") {
        None => DEFAULT_TASKS,
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
    let tasks = state.store.tasks(limit).await?;
    let data: Vec<Value> = tasks.iter().map(task_json).collect();
    Ok(Json(json!({"object": "list", "data": data})).into_response())
}

pub async fn get(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    let task = find(&state, &id).await?;
    Ok(Json(task_json(&task)).into_response())
}

/// Stops a task this server runs: its call is dropped, which ends the
/// worker's process group (or tells its MCP server), and the task is
/// `cancelled`. A task that has ended, or that another server runs, is a
/// 409 that says so.
pub async fn cancel(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    let task = find(&state, &id).await?;
    if task.state.is_terminal() {
        return Err(AppError::conflict(
            "task_ended",
            format!("task {id} has ended: it is {}", task.state.as_str()),
        ));
    }
    let Some(running) = state.tasks.get(&id) else {
        return Err(AppError::conflict(
            "task_elsewhere",
            format!("task {id} is not run by this server: cancel it where it runs"),
        ));
    };
    running.cancel();
    state
        .store
        .finish_task(&id, TaskState::Cancelled, None, Some(CANCELLED_HERE))
        .await?;
    let task = find(&state, &id).await?;
    Ok(Json(task_json(&task)).into_response())
}

async fn find(state: &AppState, id: &str) -> Result<Task, AppError> {
    state
        .store
        .task(id)
        .await?
        .ok_or_else(|| AppError::not_found(format!("task {id:?} not found")))
}

/// A task as the API shows it.
pub(crate) fn task_json(task: &Task) -> Value {
    let mut value = json!(task);
    value["object"] = json!("task");
    value
}
