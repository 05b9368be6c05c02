//! Schedule runs in PostgreSQL (see `schedule_runs`). A tick is claimed by
//! one `INSERT ... ON CONFLICT DO NOTHING`: of servers claiming it at once,
//! the unique key lets one insert and the others find it taken.
//! Heartbeats and run times are the database's clock, as answers' are.

use tokio_postgres::Row;

use super::{DATABASE_NOW, PostgresStore};
use crate::schedule_runs::{Claim, RunKind, RunStatus, ScheduleRun, slot};
use crate::{INTERRUPTED, StoreError, new_id, now_millis};

/// The columns [`run_row`] reads, in its order.
const RUN_COLUMNS: &str = "id, schedule, tick, kind, status, error, conversation_id, message_id,
    started_at, ended_at";

impl PostgresStore {
    pub async fn schedule_conversation(
        &self,
        schedule: &str,
        title: &str,
    ) -> Result<String, StoreError> {
        let client = self.client().await?;
        let title = crate::bounded_title(title);
        client
            .execute(
                "INSERT INTO conversations (id, title, created_at, updated_at, schedule)
                 VALUES ($1, $2, $3, $3, $4) ON CONFLICT DO NOTHING",
                &[&new_id("conv"), &title, &now_millis(), &schedule],
            )
            .await?;
        let row = client
            .query_one(
                "SELECT id FROM conversations WHERE schedule = $1",
                &[&schedule],
            )
            .await?;
        Ok(row.get(0))
    }

    pub async fn claim_schedule_run(
        &self,
        schedule: &str,
        tick: i64,
        kind: RunKind,
    ) -> Result<Claim, StoreError> {
        let client = self.client().await?;
        let id = new_id("run");
        let inserted = client
            .query_opt(
                &format!(
                    "INSERT INTO schedule_runs
                         (id, schedule, slot, tick, kind, status, owner, heartbeat_at, started_at)
                     SELECT $1, $2, $3, $4, $5, 'running', $6, {DATABASE_NOW}, {DATABASE_NOW}
                     WHERE NOT EXISTS (SELECT 1 FROM schedule_runs
                                       WHERE schedule = $2 AND status = 'running')
                     ON CONFLICT DO NOTHING
                     RETURNING {RUN_COLUMNS}"
                ),
                &[
                    &id,
                    &schedule,
                    &slot(kind, tick, &id),
                    &tick,
                    &kind.as_str(),
                    &&*self.owner,
                ],
            )
            .await?;
        if let Some(row) = inserted {
            return Ok(Claim::Claimed(run_row(&row)));
        }
        let running = client
            .query_opt(
                &format!(
                    "SELECT {RUN_COLUMNS} FROM schedule_runs
                     WHERE schedule = $1 AND status = 'running' LIMIT 1"
                ),
                &[&schedule],
            )
            .await?;
        Ok(match running {
            Some(row) => Claim::Running(run_row(&row)),
            None => Claim::Taken,
        })
    }

    pub async fn skip_schedule_run(
        &self,
        schedule: &str,
        tick: i64,
        kind: RunKind,
        why: &str,
    ) -> Result<bool, StoreError> {
        let id = new_id("run");
        let inserted = self
            .client()
            .await?
            .execute(
                &format!(
                    "INSERT INTO schedule_runs
                         (id, schedule, slot, tick, kind, status, error, started_at, ended_at)
                     VALUES ($1, $2, $3, $4, $5, 'skipped', $6, {DATABASE_NOW}, {DATABASE_NOW})
                     ON CONFLICT DO NOTHING"
                ),
                &[
                    &id,
                    &schedule,
                    &slot(kind, tick, &id),
                    &tick,
                    &kind.as_str(),
                    &why,
                ],
            )
            .await?;
        Ok(inserted > 0)
    }

    pub async fn schedule_run_answer(
        &self,
        run_id: &str,
        conversation_id: &str,
        message_id: &str,
    ) -> Result<(), StoreError> {
        self.client()
            .await?
            .execute(
                "UPDATE schedule_runs SET conversation_id = $2, message_id = $3 WHERE id = $1",
                &[&run_id, &conversation_id, &message_id],
            )
            .await?;
        Ok(())
    }

    pub async fn beat_schedule_run(&self, run_id: &str) -> Result<(), StoreError> {
        self.client()
            .await?
            .execute(
                &format!(
                    "UPDATE schedule_runs SET heartbeat_at = {DATABASE_NOW}
                     WHERE id = $1 AND owner = $2 AND status = 'running'"
                ),
                &[&run_id, &&*self.owner],
            )
            .await?;
        Ok(())
    }

    pub async fn finish_schedule_run(
        &self,
        run_id: &str,
        status: RunStatus,
        error: Option<&str>,
    ) -> Result<(), StoreError> {
        self.client()
            .await?
            .execute(
                &format!(
                    "UPDATE schedule_runs SET status = $2, error = $3, ended_at = {DATABASE_NOW}
                     WHERE id = $1 AND status = 'running'"
                ),
                &[&run_id, &status.as_str(), &error],
            )
            .await?;
        Ok(())
    }

    pub async fn fail_interrupted_runs(&self) -> Result<u64, StoreError> {
        let failed = self
            .client()
            .await?
            .execute(
                &format!(
                    "UPDATE schedule_runs SET status = 'failed', error = $1,
                         ended_at = {DATABASE_NOW}
                     WHERE status = 'running' AND COALESCE(heartbeat_at, 0) < {DATABASE_NOW} - $2"
                ),
                &[&INTERRUPTED, &self.liveness.stale_millis()],
            )
            .await?;
        if failed > 0 {
            tracing::warn!("marked {failed} interrupted schedule runs failed");
        }
        Ok(failed)
    }

    pub async fn schedule_runs(
        &self,
        schedule: &str,
        limit: i64,
    ) -> Result<Vec<ScheduleRun>, StoreError> {
        let rows = self
            .client()
            .await?
            .query(
                &format!(
                    "SELECT {RUN_COLUMNS} FROM schedule_runs WHERE schedule = $1
                     ORDER BY started_at DESC, tick DESC, id LIMIT $2"
                ),
                &[&schedule, &limit],
            )
            .await?;
        Ok(rows.iter().map(run_row).collect())
    }

    pub async fn schedule_seen_until(&self, schedule: &str) -> Result<Option<i64>, StoreError> {
        let row = self
            .client()
            .await?
            .query_one(
                "SELECT GREATEST(
                     (SELECT seen_until FROM schedule_marks WHERE schedule = $1),
                     (SELECT MAX(tick) FROM schedule_runs WHERE schedule = $1 AND kind <> 'now'))",
                &[&schedule],
            )
            .await?;
        Ok(row.get(0))
    }

    pub async fn mark_schedule_seen(&self, schedule: &str, until: i64) -> Result<(), StoreError> {
        self.client()
            .await?
            .execute(
                "INSERT INTO schedule_marks (schedule, seen_until) VALUES ($1, $2)
                 ON CONFLICT (schedule) DO UPDATE
                 SET seen_until = GREATEST(schedule_marks.seen_until, EXCLUDED.seen_until)",
                &[&schedule, &until],
            )
            .await?;
        Ok(())
    }
}

fn run_row(row: &Row) -> ScheduleRun {
    ScheduleRun {
        id: row.get(0),
        schedule: row.get(1),
        tick: row.get(2),
        kind: RunKind::parse(row.get(3)),
        status: RunStatus::parse(row.get(4)),
        error: row.get(5),
        conversation_id: row.get(6),
        message_id: row.get(7),
        started_at: row.get(8),
        ended_at: row.get(9),
    }
}
