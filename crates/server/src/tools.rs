//! `GET /v1/models`, `GET /v1/tools` and `POST /v1/tools/{name}/call`.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use riverse_tool::{CallContext, CallError, Params, SamplesOnly};
use serde_json::json;

use crate::AppState;
use crate::body::Body;
use crate::completions::MODEL;
use crate::error::AppError;

pub async fn models() -> Response {
    Json(json!({
        "object": "list",
        "data": [{"id": MODEL, "object": "model", "created": 0, "owned_by": "riverse"}],
    }))
    .into_response()
}

/// The same entries as `riverse tools --json`.
pub async fn list(State(state): State<Arc<AppState>>) -> Response {
    Json(riverse_agent::tools_json(&state.agent.registry())).into_response()
}

/// The params object in, the same result as `riverse call --json` out: 404
/// for an unknown tool, 409 for one that is not available, 200 with
/// `success: false` when the tool itself failed. Nobody is there to answer
/// the tool's questions (a cancel); its samples go to the agent's LLM.
pub async fn call(
    State(state): State<Arc<AppState>>,
    Path(name): Path<String>,
    Body(params): Body<Params>,
) -> Result<Response, AppError> {
    let context = CallContext::new(Arc::new(SamplesOnly(state.agent.sampler())));
    match state
        .agent
        .registry()
        .call_with(&name, params, &context)
        .await
    {
        Ok(result) => Ok(Json(result).into_response()),
        Err(err @ CallError::UnknownTool(_)) => Err(AppError::not_found(err)),
        Err(err @ CallError::Unavailable { .. }) => {
            Err(AppError::conflict("tool_unavailable", err))
        }
    }
}
