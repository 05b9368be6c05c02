//! `GET /metrics`: the process's metrics in the Prometheus text format.
//!
//! The crates record through the `metrics` facade as things happen (tool
//! calls in `riverse-tool`, LLM requests in `riverse-llm`, workers in
//! `riverse-python`, reloads in the CLI); turns are counted here, and what
//! is a level rather than an event (turns running, questions waiting) is
//! read when the metrics are asked for. The recorder is the process's: one
//! per `riverse serve`, so each replica reports its own.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use metrics::Unit;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use riverse_llm::observed;
use riverse_tool::call_metrics;

use crate::AppState;

/// Turns by API and outcome (`answered`, `client_calls`, `failed`, `timed_out`).
const TURNS: &str = "riverse_turns_total";
const TURN_SECONDS: &str = "riverse_turn_duration_seconds";
/// Turns refused because every slot was taken (429).
const TURNS_REFUSED: &str = "riverse_turns_refused_total";
const TURNS_RUNNING: &str = "riverse_turns_running";
const TURN_SLOTS: &str = "riverse_turn_slots";
const QUESTIONS_OPEN: &str = "riverse_questions_open";

/// Histogram buckets, in seconds: from a quick tool call to a long turn.
const BUCKETS: &[f64] = &[
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// The API a turn came through, for its labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    ChatCompletions,
    Responses,
    Conversations,
    /// A schedule's run.
    Schedules,
    /// A follow-up turn answering from a background task's end.
    Tasks,
}

impl Api {
    fn label(self) -> &'static str {
        match self {
            Api::ChatCompletions => "chat_completions",
            Api::Responses => "responses",
            Api::Conversations => "conversations",
            Api::Schedules => "schedules",
            Api::Tasks => "tasks",
        }
    }
}

/// How a turn ended, for its labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnOutcome {
    Answered,
    /// It handed calls of the client's tools back.
    ClientCalls,
    Failed,
    TimedOut,
    /// The server stopped it: it outlasted `serve.shutdown_timeout`.
    Stopped,
}

impl TurnOutcome {
    fn label(self) -> &'static str {
        match self {
            TurnOutcome::Answered => "answered",
            TurnOutcome::ClientCalls => "client_calls",
            TurnOutcome::Failed => "failed",
            TurnOutcome::TimedOut => "timed_out",
            TurnOutcome::Stopped => "stopped",
        }
    }
}

/// The process's recorder, installed by the first server made. Another
/// recorder installed before it (a program embedding the server with its
/// own) keeps its place, and `/metrics` then reports nothing.
fn recorder() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let builder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Suffix("_seconds".to_owned()), BUCKETS)
            .unwrap_or_else(|_| PrometheusBuilder::new());
        let recorder = builder.build_recorder();
        let handle = recorder.handle();
        if let Err(err) = metrics::set_global_recorder(recorder) {
            tracing::warn!(
                "/metrics reports nothing: another metrics recorder is installed ({err})"
            );
        }
        describe();
        handle
    })
}

/// Installs the process's metrics recorder, once (a server made installs it
/// too: call this first so that what happens before, the tools' workers
/// starting, is counted).
pub fn install() {
    recorder();
}

fn describe() {
    metrics::describe_counter!(TURNS, "Turns by API and outcome");
    metrics::describe_histogram!(TURN_SECONDS, Unit::Seconds, "How long turns took, by API");
    metrics::describe_counter!(
        TURNS_REFUSED,
        "Turns refused because serve.max_concurrent_turns were running"
    );
    metrics::describe_gauge!(TURNS_RUNNING, "Turns running now");
    metrics::describe_gauge!(
        TURN_SLOTS,
        "Turns that may run at once (serve.max_concurrent_turns)"
    );
    metrics::describe_gauge!(QUESTIONS_OPEN, "Questions of tools waiting for an answer");
    metrics::describe_counter!(call_metrics::CALLS, "Tool calls by tool and outcome");
    metrics::describe_histogram!(
        call_metrics::CALL_SECONDS,
        Unit::Seconds,
        "How long the tool calls that ran took, by tool"
    );
    metrics::describe_counter!(observed::REQUESTS, "LLM requests by outcome");
    metrics::describe_histogram!(
        observed::REQUEST_SECONDS,
        Unit::Seconds,
        "How long LLM requests took"
    );
    metrics::describe_counter!(observed::TOKENS, "Tokens of LLM requests, by kind");
    riverse_agent::describe_metrics();
    metrics::describe_counter!("riverse_reloads_total", "Hot reloads by outcome");
}

/// Counts a turn of `api` that ended as `outcome` after `took`.
pub fn turn_ended(api: Api, outcome: TurnOutcome, took: Duration) {
    metrics::counter!(TURNS, "api" => api.label(), "outcome" => outcome.label()).increment(1);
    metrics::histogram!(TURN_SECONDS, "api" => api.label()).record(took.as_secs_f64());
}

pub fn turn_refused() {
    metrics::counter!(TURNS_REFUSED).increment(1);
}

pub async fn metrics(State(state): State<Arc<AppState>>) -> Response {
    let slots = state.options.max_concurrent_turns;
    let running = slots.saturating_sub(state.turns.available_permits());
    metrics::gauge!(TURN_SLOTS).set(slots as f64);
    metrics::gauge!(TURNS_RUNNING).set(running as f64);
    metrics::gauge!(QUESTIONS_OPEN).set(state.open_questions() as f64);
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        recorder().render(),
    )
        .into_response()
}
