//! `riverse ask "MESSAGE" [--json] [--yes]`
//!
//! Tool calls show on stderr as in `riverse chat`; a tool's question is
//! cancelled (one line says so): `ask` is for scripts, with nobody to answer.
//! A call whose `tools.<name>.approval` asks is refused, and the LLM reads
//! why, unless `--yes` approves every such call.
//! Images and files that results carry are saved under `.riverse/out/`;
//! `--json` names where (`saved`) in place of their base64 `content`.

use std::io::{self, Write};

use riverse_agent::{Settings, TurnEvent, build_agent};
use serde_json::{Value, json};

use super::chat::StreamedText;
use crate::live::{Asker, OutDir, ToolLines, TurnView, with_saved};
use crate::output::{Exit, print_json};
use crate::telemetry;

pub async fn run(
    settings: &Settings,
    message: &str,
    as_json: bool,
    approve_all: bool,
) -> anyhow::Result<Exit> {
    run_with(settings, message, as_json, |asker| {
        asker.approving_all(approve_all)
    })
    .await
}

/// One turn with `message`, its approvals answered as `approvals` sets the
/// asker that asks nobody (`riverse schedules run` answers by the schedule).
pub(super) async fn run_with(
    settings: &Settings,
    message: &str,
    as_json: bool,
    approvals: impl FnOnce(Asker) -> Asker,
) -> anyhow::Result<Exit> {
    let agent = build_agent(settings).await?;
    let lines = ToolLines::for_stderr();
    let mut view = TurnView::new(
        lines.clone(),
        approvals(Asker::nobody(lines)),
        OutDir::of(&settings.project_dir),
    );
    let mut answer = StreamedText::new(io::stdout());
    let json_logs = telemetry::json_logs();
    let mut on_event = |event: TurnEvent| match event {
        TurnEvent::AnswerDelta(text) if !as_json => answer.write(&text),
        TurnEvent::ToolLog {
            call_id,
            tool,
            line,
        } if json_logs => telemetry::tool_log(&call_id, &tool, &line),
        other => view.show(other),
    };
    let turn = riverse_tool::CallOrigin::new("ask", None)
        .scope(agent.turn(&[], message, &mut on_event))
        .await;
    answer.finish_line()?;
    let turn = turn?;
    view.show_skills(&turn.skills);
    if as_json {
        let tool_calls = turn
            .tool_calls
            .iter()
            .map(|record| {
                let value = serde_json::to_value(record)?;
                Ok(with_saved(value, view.saved(&record.call_id)))
            })
            .collect::<serde_json::Result<Vec<Value>>>()?;
        print_json(&json!({
            "answer": turn.answer,
            "tool_calls": tool_calls,
            "skills": turn.skills,
        }))?;
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
