//! `riverse ask "MESSAGE" [--json] [--yes]`
//!
//! Tool calls show on stderr as in `riverse chat`; a tool's question is
//! cancelled (one line says so): `ask` is for scripts, with nobody to answer.
//! A call whose `tools.<name>.approval` asks is refused, and the LLM reads
//! why, unless `--yes` approves every such call.
//! Images and files that results carry are saved under `.riverse/out/`;
//! `--json` names where (`saved`) in place of their base64 `content`.
//! A call that becomes a background task (`tools.<name>.background`) is
//! waited for: when it ends, a follow-up turn answers from its result, and
//! `--json` lists each under `follow_ups`.

use std::collections::VecDeque;
use std::io::{self, Write};

use riverse_agent::{Agent, BackgroundTask, CallRecord, Settings, Turn, TurnEvent, build_agent};
use riverse_llm::Message;
use riverse_server::TaskRows;
use serde_json::{Value, json};

use super::chat::StreamedText;
use crate::live::{Asker, OutDir, ROWS_WRITTEN_WITHIN, ToolLines, TurnView, with_saved};
use crate::output::{Exit, print_json};
use crate::telemetry;

pub async fn run(
    settings: &Settings,
    message: &str,
    as_json: bool,
    approve_all: bool,
) -> anyhow::Result<Exit> {
    run_with(settings, message, as_json, "ask", |asker| {
        asker.approving_all(approve_all)
    })
    .await
}

/// One turn with `message`, its approvals answered as `approvals` sets the
/// asker that asks nobody (`riverse schedules run` answers by the schedule);
/// its calls come from `front_end` (`ask`, `schedule`), as hooks see them.
/// Calls that became background tasks are waited for, and a follow-up
/// turn answers from each as it ends.
pub(super) async fn run_with(
    settings: &Settings,
    message: &str,
    as_json: bool,
    front_end: &str,
    approvals: impl FnOnce(Asker) -> Asker,
) -> anyhow::Result<Exit> {
    let agent = build_agent(settings).await?;
    let lines = ToolLines::for_stderr();
    let mut shown = Shown {
        view: TurnView::new(
            lines.clone(),
            approvals(Asker::nobody(lines)),
            OutDir::of(&settings.project_dir),
        ),
        answer: StreamedText::new(io::stdout()),
        as_json,
        json_logs: telemetry::json_logs(),
        tasks: VecDeque::new(),
        rows: super::tasks::rows_for(settings, &agent).await,
    };
    let origin = riverse_tool::CallOrigin::new(front_end, None);
    let turn = {
        let mut on_event = |event: TurnEvent| shown.show(event);
        origin
            .clone()
            .scope(agent.turn(&[], message, &mut on_event))
            .await
    };
    shown.answer.finish_line()?;
    let turn = turn?;
    shown.view.show_skills(&turn.skills);
    let follow_ups = origin
        .scope(follow_tasks(&agent, turn.messages.clone(), &mut shown))
        .await?;
    if let Some(rows) = &shown.rows {
        rows.written(ROWS_WRITTEN_WITHIN).await;
    }
    if as_json {
        let tool_calls = shown.records(&turn.tool_calls)?;
        let follow_ups = follow_ups
            .iter()
            .map(|(task, record, follow)| {
                Ok(json!({
                    "task_id": task,
                    "tool_call": shown.records(std::slice::from_ref(record))?[0],
                    "answer": follow.answer,
                    "tool_calls": shown.records(&follow.tool_calls)?,
                }))
            })
            .collect::<serde_json::Result<Vec<Value>>>()?;
        let mut document = json!({
            "answer": turn.answer,
            "tool_calls": tool_calls,
            "skills": turn.skills,
        });
        // Only where calls became background tasks.
        if !follow_ups.is_empty() {
            document["follow_ups"] = Value::Array(follow_ups);
        }
        print_json(&document)?;
    } else {
        io::stdout().flush()?;
    }
    if turn.limits_reached && turn.answer.trim().is_empty() {
        eprintln!(
            "riverse: the model was still calling tools at the limits of agent.max_rounds ({}) or agent.max_tool_calls ({}) and gave no answer",
            settings.agent.max_rounds, settings.agent.max_tool_calls
        );
        return Ok(Exit::Failure);
    }
    Ok(Exit::Success)
}

/// Where a turn's events go in the terminal, and the tasks its calls
/// became.
struct Shown {
    view: TurnView,
    answer: StreamedText<io::Stdout>,
    as_json: bool,
    json_logs: bool,
    tasks: VecDeque<BackgroundTask>,
    /// Where each task's row is kept, for a project that keeps them.
    rows: Option<TaskRows>,
}

impl Shown {
    fn show(&mut self, event: TurnEvent) {
        match event {
            TurnEvent::AnswerDelta(text) if !self.as_json => self.answer.write(&text),
            TurnEvent::ToolLog {
                call_id,
                tool,
                line,
            } if self.json_logs => telemetry::tool_log(&call_id, &tool, &line),
            TurnEvent::TaskStarted(task) => {
                eprintln!(
                    "riverse: {} goes on in the background as {}; waiting for it",
                    task.tool(),
                    task.id()
                );
                if let Some(rows) = &self.rows {
                    rows.keep(&task);
                }
                self.tasks.push_back(task);
            }
            other => self.view.show(other),
        }
    }

    /// `records` as `--json` prints them.
    fn records(&self, records: &[CallRecord]) -> serde_json::Result<Vec<Value>> {
        records
            .iter()
            .map(|record| {
                let value = serde_json::to_value(record)?;
                Ok(with_saved(value, self.view.saved(&record.call_id)))
            })
            .collect()
    }
}

/// Waits for each task in `shown` (oldest first, those the follow-ups start
/// included) and has a follow-up turn answer from it after `history`; each
/// task's id, its call's record and its follow-up.
async fn follow_tasks(
    agent: &Agent,
    mut history: Vec<Message>,
    shown: &mut Shown,
) -> anyhow::Result<Vec<(String, CallRecord, Turn)>> {
    let mut follow_ups = Vec::new();
    while let Some(task) = shown.tasks.pop_front() {
        let end = task.ended().await;
        let record = task.record(&end);
        shown.view.show(TurnEvent::ToolCallFinished(record.clone()));
        let follow = {
            let mut on_event = |event: TurnEvent| shown.show(event);
            agent
                .follow_up(
                    &history,
                    task.id(),
                    task.tool(),
                    task.params(),
                    &end.result,
                    &mut on_event,
                )
                .await
        };
        shown.answer.finish_line()?;
        let follow = follow?;
        history.extend(follow.messages.iter().cloned());
        follow_ups.push((task.id().to_owned(), record, follow));
    }
    Ok(follow_ups)
}
