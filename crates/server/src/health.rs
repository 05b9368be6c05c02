//! `GET /healthz` and `GET /readyz`, for a load balancer or an orchestrator:
//! no token, and nothing in them but the state of the parts.
//!
//! Ready means the storage answers. The tools and the LLM are reported,
//! not judged: every replica loads the same tools and shares the LLM, so a
//! replica taken out for them would only take its fellows' load to the
//! same fault.

use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use parking_lot::Mutex;
use serde_json::{Value, json};

use crate::AppState;

/// How long the storage may take to answer before the server counts as unready.
const STORAGE_DEADLINE: Duration = Duration::from_secs(2);

/// The process is up and serving.
pub async fn healthz() -> Json<Value> {
    Json(json!({"status": "ok"}))
}

pub async fn readyz(State(state): State<Arc<AppState>>) -> Response {
    let storage = match tokio::time::timeout(STORAGE_DEADLINE, state.store.ping()).await {
        Ok(Ok(())) => "ok",
        Ok(Err(err)) => {
            tracing::warn!("not ready: the storage does not answer: {err}");
            "unreachable"
        }
        Err(_) => {
            tracing::warn!("not ready: the storage took over {STORAGE_DEADLINE:?} to answer");
            "unreachable"
        }
    };
    let registry = state.agent.registry();
    let available = registry.available_manifests().count();
    let tools = json!({
        "available": available,
        "unavailable": registry.entries().len() - available,
    });
    let ready = storage == "ok";
    let body = json!({
        "status": if ready { "ready" } else { "unready" },
        "storage": storage,
        "tools": tools,
        "llm": state.llm.read(),
    });
    let status = if ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, Json(body)).into_response()
}

/// How the LLM answered the last turn that reached it.
#[derive(Default)]
pub struct LlmState(Mutex<Option<Seen>>);

#[derive(Clone, Copy)]
struct Seen {
    answered: bool,
    /// Milliseconds since the Unix epoch.
    at: i64,
}

impl LlmState {
    /// Notes whether the LLM answered a turn.
    pub fn saw(&self, answered: bool) {
        let at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|elapsed| elapsed.as_millis() as i64)
            .unwrap_or(0);
        *self.0.lock() = Some(Seen { answered, at });
    }

    /// `{"state": "unknown" | "ok" | "failing", "seen_at"}`.
    fn read(&self) -> Value {
        match *self.0.lock() {
            None => json!({"state": "unknown"}),
            Some(Seen { answered, at }) => json!({
                "state": if answered { "ok" } else { "failing" },
                "seen_at": at,
            }),
        }
    }
}
