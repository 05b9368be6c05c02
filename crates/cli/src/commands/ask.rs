//! `riverse ask "MESSAGE" [--json]`

use std::io::{self, Write};

use riverse_agent::{Settings, TurnEvent, build_agent};
use serde_json::json;

use super::chat::{Progress, StreamedText};
use crate::output::{Exit, print_json};

pub async fn run(settings: &Settings, message: &str, as_json: bool) -> anyhow::Result<Exit> {
    let agent = build_agent(settings).await?;
    let mut progress = Progress::new();
    let mut answer = StreamedText::new(io::stdout());
    let mut on_event = |event: TurnEvent| match event {
        TurnEvent::AnswerDelta(text) if !as_json => answer.write(&text),
        other => progress.show(&other),
    };
    let turn = agent.turn(&[], message, &mut on_event).await;
    answer.finish_line()?;
    let turn = turn?;
    if as_json {
        print_json(&json!({"answer": turn.answer, "tool_calls": turn.tool_calls}))?;
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
