//! Background tasks in PostgreSQL (see `tasks`). Heartbeats and times are
//! the database's clock, as answers' are; a stale task is claimed by one
//! `UPDATE`, which a second server's `UPDATE` waits for and then finds the
//! heartbeat fresh.

use tokio_postgres::Row;

use super::{DATABASE_NOW, PostgresStore};
use crate::StoreError;
use crate::tasks::{
    NewTask, TASK_COLUMNS, Task, TaskColumn, TaskState, json_column, waiting_state,
};

/// The states of a task that has not ended.
const UNENDED: &str = "state IN ('working', 'input_required')";

impl PostgresStore {
    pub async fn create_task(&self, task: &NewTask<'_>) -> Result<bool, StoreError> {
        let client = self.client().await?;
        let arguments = task.arguments.to_string();
        let inserted = client
            .execute(
                &format!(
                    "INSERT INTO tasks (id, conversation_id, message_id, call_id, tool, arguments,
                         state, owner, heartbeat_at, created_at, updated_at)
                     VALUES ($1, $2, $3, $4, $5, $6, 'working', $7,
                         {DATABASE_NOW}, {DATABASE_NOW}, {DATABASE_NOW})
                     ON CONFLICT DO NOTHING"
                ),
                &[
                    &task.id,
                    &task.conversation_id,
                    &task.message_id,
                    &task.call_id,
                    &task.tool,
                    &arguments,
                    &&*self.owner,
                ],
            )
            .await?;
        Ok(inserted > 0)
    }

    pub async fn task(&self, id: &str) -> Result<Option<Task>, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_opt(
                &format!("SELECT {TASK_COLUMNS} FROM tasks WHERE id = $1"),
                &[&id],
            )
            .await?;
        Ok(row.as_ref().map(task_row))
    }

    pub async fn tasks(&self, limit: i64) -> Result<Vec<Task>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                &format!("SELECT {TASK_COLUMNS} FROM tasks ORDER BY created_at DESC, id LIMIT $1"),
                &[&limit],
            )
            .await?;
        Ok(rows.iter().map(task_row).collect())
    }

    pub async fn beat_tasks(&self) -> Result<(), StoreError> {
        let client = self.client().await?;
        client
            .execute(
                &format!(
                    "UPDATE tasks SET heartbeat_at = {DATABASE_NOW} WHERE owner = $1 AND {UNENDED}"
                ),
                &[&&*self.owner],
            )
            .await?;
        Ok(())
    }

    pub(crate) async fn set_task_column(
        &self,
        id: &str,
        column: TaskColumn,
        value: &str,
    ) -> Result<(), StoreError> {
        let client = self.client().await?;
        client
            .execute(
                &format!(
                    "UPDATE tasks SET {} = $2, updated_at = {DATABASE_NOW}
                     WHERE id = $1 AND {UNENDED}",
                    column.name()
                ),
                &[&id, &value],
            )
            .await?;
        Ok(())
    }

    pub async fn task_question(&self, id: &str, question: Option<&str>) -> Result<(), StoreError> {
        let state = waiting_state(question);
        let client = self.client().await?;
        client
            .execute(
                &format!(
                    "UPDATE tasks SET state = $2, question = $3, updated_at = {DATABASE_NOW}
                     WHERE id = $1 AND {UNENDED}"
                ),
                &[&id, &state, &question],
            )
            .await?;
        Ok(())
    }

    pub async fn finish_task(
        &self,
        id: &str,
        state: TaskState,
        result: Option<&str>,
        error: Option<&str>,
    ) -> Result<bool, StoreError> {
        let client = self.client().await?;
        let ended = client
            .execute(
                &format!(
                    "UPDATE tasks SET state = $2, result = $3, error = $4,
                         updated_at = {DATABASE_NOW}, ended_at = {DATABASE_NOW}
                     WHERE id = $1 AND {UNENDED}"
                ),
                &[&id, &state.as_str(), &result, &error],
            )
            .await?;
        Ok(ended > 0)
    }

    pub async fn release_tasks(&self) -> Result<u64, StoreError> {
        let client = self.client().await?;
        let released = client
            .execute(
                &format!("UPDATE tasks SET heartbeat_at = 0 WHERE owner = $1 AND {UNENDED}"),
                &[&&*self.owner],
            )
            .await?;
        Ok(released)
    }

    pub async fn claim_stale_tasks(&self) -> Result<Vec<Task>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                &format!(
                    "UPDATE tasks SET owner = $1, heartbeat_at = {DATABASE_NOW},
                         updated_at = {DATABASE_NOW}, state = 'working', question = NULL
                     WHERE {UNENDED} AND COALESCE(heartbeat_at, 0) < {DATABASE_NOW} - $2
                     RETURNING {TASK_COLUMNS}"
                ),
                &[&&*self.owner, &self.liveness.stale_millis()],
            )
            .await?;
        Ok(rows.iter().map(task_row).collect())
    }
}

fn task_row(row: &Row) -> Task {
    Task {
        id: row.get(0),
        conversation_id: row.get(1),
        message_id: row.get(2),
        call_id: row.get(3),
        tool: row.get(4),
        arguments: json_column(row.get(5)).unwrap_or_default(),
        state: TaskState::parse(row.get(6)),
        progress: json_column(row.get(7)),
        result: json_column(row.get(8)),
        error: row.get(9),
        created_at: row.get(10),
        updated_at: row.get(11),
        ended_at: row.get(12),
        handed_over: row.get(13),
        question: json_column(row.get(14)),
    }
}
