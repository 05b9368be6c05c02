//! `notify: {webhook: URL}`: each run's answer posted as JSON, in a task of
//! its own so that no run waits for it. A post has [`POST_TIMEOUT`]; one
//! that fails (no answer, or a status other than 2xx) is tried again, up to
//! [`ATTEMPTS`] in all, then logged and dropped.

use std::sync::OnceLock;
use std::time::Duration;

use riverse_agent::Schedule;
use serde_json::{Value, json};

use super::{RunReport, shown_time};

/// How long one post may take, connection included.
pub const POST_TIMEOUT: Duration = Duration::from_secs(10);

/// Posts in all, the first included.
pub const ATTEMPTS: u32 = 3;

/// The wait before the second post; doubled before each further one.
const FIRST_RETRY_AFTER: Duration = Duration::from_secs(1);

/// What is posted: the schedule, the tick, how the run went, its answer, and
/// where it is kept.
pub(super) fn payload(schedule: &Schedule, report: &RunReport) -> Value {
    let run = &report.run;
    json!({
        "schedule": schedule.name,
        "run_id": run.id,
        "tick": shown_time(schedule, run.tick),
        "kind": run.kind,
        "outcome": run.status,
        "answer": report.answer,
        "error": run.error,
        "conversation_id": run.conversation_id,
        "message_id": run.message_id,
    })
}

fn client() -> &'static reqwest::Client {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    CLIENT.get_or_init(|| {
        reqwest::Client::builder()
            .timeout(POST_TIMEOUT)
            .build()
            .unwrap_or_default()
    })
}

/// Posts `payload` to `url` in a task of its own.
pub(super) fn post(url: String, payload: Value) {
    tokio::spawn(async move {
        let body = payload.to_string();
        let mut wait = FIRST_RETRY_AFTER;
        for attempt in 1..=ATTEMPTS {
            let sent = client()
                .post(&url)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body.clone())
                .send()
                .await;
            let why = match sent {
                Ok(response) if response.status().is_success() => return,
                Ok(response) => format!("it answered {}", response.status()),
                Err(err) => err.to_string(),
            };
            if attempt == ATTEMPTS {
                tracing::warn!(
                    "schedule {}: can't post the run to its webhook {url} ({ATTEMPTS} tries, the last: {why})",
                    payload["schedule"].as_str().unwrap_or_default()
                );
                return;
            }
            tracing::debug!("webhook {url}: {why}; trying again in {wait:?}");
            tokio::time::sleep(wait).await;
            wait *= 2;
        }
    });
}
