//! Schedule runs in SQLite (see `schedule_runs`).

use rusqlite::{Connection, OptionalExtension, params};

use super::SqliteStore;
use crate::schedule_runs::{Claim, RunKind, RunStatus, ScheduleRun, slot};
use crate::{INTERRUPTED, StoreError, new_id, now_millis};

/// The columns [`run_row`] reads, in its order.
const RUN_COLUMNS: &str = "id, schedule, tick, kind, status, error, conversation_id, message_id,
    started_at, ended_at";

impl SqliteStore {
    pub async fn schedule_conversation(
        &self,
        schedule: &str,
        title: &str,
    ) -> Result<String, StoreError> {
        let (schedule, title) = (schedule.to_owned(), crate::bounded_title(title));
        self.run(move |connection| {
            let now = now_millis();
            connection.execute(
                "INSERT INTO conversations (id, title, created_at, updated_at, schedule)
                 VALUES (?1, ?2, ?3, ?3, ?4) ON CONFLICT DO NOTHING",
                params![new_id("conv"), title, now, schedule],
            )?;
            Ok(connection.query_row(
                "SELECT id FROM conversations WHERE schedule = ?1",
                params![schedule],
                |row| row.get(0),
            )?)
        })
        .await
    }

    pub async fn claim_schedule_run(
        &self,
        schedule: &str,
        tick: i64,
        kind: RunKind,
    ) -> Result<Claim, StoreError> {
        let (schedule, owner) = (schedule.to_owned(), self.owner.clone());
        self.run(move |connection| {
            let transaction =
                connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let running = transaction
                .query_row(
                    &format!(
                        "SELECT {RUN_COLUMNS} FROM schedule_runs
                         WHERE schedule = ?1 AND status = 'running' LIMIT 1"
                    ),
                    params![schedule],
                    run_row,
                )
                .optional()?;
            if let Some(running) = running {
                return Ok(Claim::Running(running));
            }
            let id = new_id("run");
            let now = now_millis();
            let inserted = transaction.execute(
                "INSERT INTO schedule_runs
                     (id, schedule, slot, tick, kind, status, owner, heartbeat_at, started_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, 'running', ?6, ?7, ?7) ON CONFLICT DO NOTHING",
                params![
                    id,
                    schedule,
                    slot(kind, tick, &id),
                    tick,
                    kind.as_str(),
                    &*owner,
                    now
                ],
            )?;
            let claim = if inserted == 0 {
                Claim::Taken
            } else {
                Claim::Claimed(find_run(&transaction, &id)?)
            };
            transaction.commit()?;
            Ok(claim)
        })
        .await
    }

    pub async fn skip_schedule_run(
        &self,
        schedule: &str,
        tick: i64,
        kind: RunKind,
        why: &str,
    ) -> Result<bool, StoreError> {
        let (schedule, why) = (schedule.to_owned(), why.to_owned());
        self.run(move |connection| {
            let id = new_id("run");
            let now = now_millis();
            let inserted = connection.execute(
                "INSERT INTO schedule_runs
                     (id, schedule, slot, tick, kind, status, error, started_at, ended_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, 'skipped', ?6, ?7, ?7) ON CONFLICT DO NOTHING",
                params![
                    id,
                    schedule,
                    slot(kind, tick, &id),
                    tick,
                    kind.as_str(),
                    why,
                    now
                ],
            )?;
            Ok(inserted > 0)
        })
        .await
    }

    pub async fn schedule_run_answer(
        &self,
        run_id: &str,
        conversation_id: &str,
        message_id: &str,
    ) -> Result<(), StoreError> {
        let ids = [run_id, conversation_id, message_id].map(str::to_owned);
        self.run(move |connection| {
            connection.execute(
                "UPDATE schedule_runs SET conversation_id = ?2, message_id = ?3 WHERE id = ?1",
                params![ids[0], ids[1], ids[2]],
            )?;
            Ok(())
        })
        .await
    }

    pub async fn beat_schedule_run(&self, run_id: &str) -> Result<(), StoreError> {
        let (run_id, owner) = (run_id.to_owned(), self.owner.clone());
        self.run(move |connection| {
            connection.execute(
                "UPDATE schedule_runs SET heartbeat_at = ?3
                 WHERE id = ?1 AND owner = ?2 AND status = 'running'",
                params![run_id, &*owner, now_millis()],
            )?;
            Ok(())
        })
        .await
    }

    pub async fn finish_schedule_run(
        &self,
        run_id: &str,
        status: RunStatus,
        error: Option<&str>,
    ) -> Result<(), StoreError> {
        let (run_id, error) = (run_id.to_owned(), error.map(str::to_owned));
        self.run(move |connection| {
            connection.execute(
                "UPDATE schedule_runs SET status = ?2, error = ?3, ended_at = ?4
                 WHERE id = ?1 AND status = 'running'",
                params![run_id, status.as_str(), error, now_millis()],
            )?;
            Ok(())
        })
        .await
    }

    pub async fn fail_interrupted_runs(&self) -> Result<u64, StoreError> {
        let stale_millis = self.liveness.stale_millis();
        self.run(move |connection| {
            let now = now_millis();
            let failed = connection.execute(
                "UPDATE schedule_runs SET status = 'failed', error = ?1, ended_at = ?2
                 WHERE status = 'running' AND COALESCE(heartbeat_at, 0) < ?3",
                params![INTERRUPTED, now, now.saturating_sub(stale_millis)],
            )?;
            if failed > 0 {
                tracing::warn!("marked {failed} interrupted schedule runs failed");
            }
            Ok(failed as u64)
        })
        .await
    }

    pub async fn schedule_runs(
        &self,
        schedule: &str,
        limit: i64,
    ) -> Result<Vec<ScheduleRun>, StoreError> {
        let schedule = schedule.to_owned();
        self.run(move |connection| {
            let mut statement = connection.prepare_cached(&format!(
                "SELECT {RUN_COLUMNS} FROM schedule_runs WHERE schedule = ?1
                 ORDER BY started_at DESC, tick DESC, id LIMIT ?2"
            ))?;
            let runs = statement
                .query_map(params![schedule, limit], run_row)?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(runs)
        })
        .await
    }

    pub async fn schedule_seen_until(&self, schedule: &str) -> Result<Option<i64>, StoreError> {
        let schedule = schedule.to_owned();
        self.run(move |connection| {
            Ok(connection.query_row(
                "SELECT MAX(seen) FROM (
                     SELECT seen_until AS seen FROM schedule_marks WHERE schedule = ?1
                     UNION ALL
                     SELECT MAX(tick) FROM schedule_runs WHERE schedule = ?1 AND kind <> 'now')",
                params![schedule],
                |row| row.get(0),
            )?)
        })
        .await
    }

    pub async fn mark_schedule_seen(&self, schedule: &str, until: i64) -> Result<(), StoreError> {
        let schedule = schedule.to_owned();
        self.run(move |connection| {
            connection.execute(
                "INSERT INTO schedule_marks (schedule, seen_until) VALUES (?1, ?2)
                 ON CONFLICT (schedule) DO UPDATE
                 SET seen_until = MAX(seen_until, excluded.seen_until)",
                params![schedule, until],
            )?;
            Ok(())
        })
        .await
    }
}

fn find_run(connection: &Connection, id: &str) -> rusqlite::Result<ScheduleRun> {
    connection.query_row(
        &format!("SELECT {RUN_COLUMNS} FROM schedule_runs WHERE id = ?1"),
        params![id],
        run_row,
    )
}

fn run_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<ScheduleRun> {
    Ok(ScheduleRun {
        id: row.get(0)?,
        schedule: row.get(1)?,
        tick: row.get(2)?,
        kind: RunKind::parse(&row.get::<_, String>(3)?),
        status: RunStatus::parse(&row.get::<_, String>(4)?),
        error: row.get(5)?,
        conversation_id: row.get(6)?,
        message_id: row.get(7)?,
        started_at: row.get(8)?,
        ended_at: row.get(9)?,
    })
}
