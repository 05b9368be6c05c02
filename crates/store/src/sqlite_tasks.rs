//! Background tasks in SQLite (see `tasks`).

use rusqlite::{OptionalExtension, params};

use super::SqliteStore;
use crate::tasks::{
    NewTask, TASK_COLUMNS, Task, TaskColumn, TaskState, json_column, waiting_state,
};
use crate::{StoreError, now_millis};

/// The states of a task that has not ended.
const UNENDED: &str = "state IN ('working', 'input_required')";

impl SqliteStore {
    pub async fn create_task(&self, task: &NewTask<'_>) -> Result<bool, StoreError> {
        let row = (
            task.id.to_owned(),
            task.conversation_id.map(str::to_owned),
            task.message_id.map(str::to_owned),
            task.call_id.to_owned(),
            task.tool.to_owned(),
            task.arguments.to_string(),
        );
        let owner = self.owner.clone();
        self.run(move |connection| {
            let now = now_millis();
            let inserted = connection.execute(
                "INSERT INTO tasks (id, conversation_id, message_id, call_id, tool, arguments,
                     state, owner, heartbeat_at, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'working', ?7, ?8, ?8, ?8)
                 ON CONFLICT DO NOTHING",
                params![row.0, row.1, row.2, row.3, row.4, row.5, &*owner, now],
            )?;
            Ok(inserted > 0)
        })
        .await
    }

    pub async fn task(&self, id: &str) -> Result<Option<Task>, StoreError> {
        let id = id.to_owned();
        self.run(move |connection| {
            Ok(connection
                .query_row(
                    &format!("SELECT {TASK_COLUMNS} FROM tasks WHERE id = ?1"),
                    params![id],
                    task_row,
                )
                .optional()?)
        })
        .await
    }

    pub async fn tasks(&self, limit: i64) -> Result<Vec<Task>, StoreError> {
        self.run(move |connection| {
            let mut statement = connection.prepare_cached(&format!(
                "SELECT {TASK_COLUMNS} FROM tasks ORDER BY created_at DESC, id LIMIT ?1"
            ))?;
            let tasks = statement
                .query_map(params![limit], task_row)?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(tasks)
        })
        .await
    }

    pub async fn beat_tasks(&self) -> Result<(), StoreError> {
        let owner = self.owner.clone();
        self.run(move |connection| {
            connection.execute(
                &format!("UPDATE tasks SET heartbeat_at = ?2 WHERE owner = ?1 AND {UNENDED}"),
                params![&*owner, now_millis()],
            )?;
            Ok(())
        })
        .await
    }

    pub(crate) async fn set_task_column(
        &self,
        id: &str,
        column: TaskColumn,
        value: &str,
    ) -> Result<(), StoreError> {
        let (id, value) = (id.to_owned(), value.to_owned());
        let column = column.name();
        self.run(move |connection| {
            connection.execute(
                &format!(
                    "UPDATE tasks SET {column} = ?2, updated_at = ?3 WHERE id = ?1 AND {UNENDED}"
                ),
                params![id, value, now_millis()],
            )?;
            Ok(())
        })
        .await
    }

    pub async fn task_question(&self, id: &str, question: Option<&str>) -> Result<(), StoreError> {
        let (id, question) = (id.to_owned(), question.map(str::to_owned));
        let state = waiting_state(question.as_deref());
        self.run(move |connection| {
            connection.execute(
                &format!(
                    "UPDATE tasks SET state = ?2, question = ?3, updated_at = ?4
                     WHERE id = ?1 AND {UNENDED}"
                ),
                params![id, state, question, now_millis()],
            )?;
            Ok(())
        })
        .await
    }

    pub async fn finish_task(
        &self,
        id: &str,
        state: TaskState,
        result: Option<&str>,
        error: Option<&str>,
    ) -> Result<bool, StoreError> {
        let (id, result, error) = (
            id.to_owned(),
            result.map(str::to_owned),
            error.map(str::to_owned),
        );
        self.run(move |connection| {
            let now = now_millis();
            let ended = connection.execute(
                &format!(
                    "UPDATE tasks SET state = ?2, result = ?3, error = ?4, updated_at = ?5,
                         ended_at = ?5
                     WHERE id = ?1 AND {UNENDED}"
                ),
                params![id, state.as_str(), result, error, now],
            )?;
            Ok(ended > 0)
        })
        .await
    }

    pub async fn release_tasks(&self) -> Result<u64, StoreError> {
        let owner = self.owner.clone();
        self.run(move |connection| {
            let released = connection.execute(
                &format!("UPDATE tasks SET heartbeat_at = 0 WHERE owner = ?1 AND {UNENDED}"),
                params![&*owner],
            )?;
            Ok(released as u64)
        })
        .await
    }

    pub async fn claim_stale_tasks(&self) -> Result<Vec<Task>, StoreError> {
        let owner = self.owner.clone();
        let stale_millis = self.liveness.stale_millis();
        self.run(move |connection| {
            let now = now_millis();
            let mut statement = connection.prepare_cached(&format!(
                "UPDATE tasks SET owner = ?1, heartbeat_at = ?2, updated_at = ?2,
                     state = 'working', question = NULL
                 WHERE {UNENDED} AND COALESCE(heartbeat_at, 0) < ?3
                 RETURNING {TASK_COLUMNS}"
            ))?;
            let claimed = statement
                .query_map(
                    params![&*owner, now, now.saturating_sub(stale_millis)],
                    task_row,
                )?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(claimed)
        })
        .await
    }
}

fn task_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Task> {
    Ok(Task {
        id: row.get(0)?,
        conversation_id: row.get(1)?,
        message_id: row.get(2)?,
        call_id: row.get(3)?,
        tool: row.get(4)?,
        arguments: json_column(row.get(5)?).unwrap_or_default(),
        state: TaskState::parse(&row.get::<_, String>(6)?),
        progress: json_column(row.get(7)?),
        result: json_column(row.get(8)?),
        error: row.get(9)?,
        created_at: row.get(10)?,
        updated_at: row.get(11)?,
        ended_at: row.get(12)?,
        handed_over: row.get(13)?,
        question: json_column(row.get(14)?),
    })
}
