//! A turn's events on the terminal: each call's line (a live bar while it
//! runs), what it logs, its questions, what it saved, how it ended.

use std::collections::HashMap;
use std::time::Duration;

use riverse_agent::{AppliedSkill, CallRecord, SkillTrigger, TurnEvent};
use riverse_tool::shorten;

use super::asker::Asker;
use super::lines::{ToolLines, printable};
use super::params;
use super::saved::{OutDir, Saved};

/// The longest tool error shown on a call's `✗` line.
const MAX_ERROR_CHARS: usize = 200;

/// Shows one turn's calls; answer text is the caller's.
pub struct TurnView {
    lines: ToolLines,
    asker: Asker,
    out: OutDir,
    /// What each finished call's content became, by call id.
    saved: HashMap<String, Vec<Saved>>,
}

impl TurnView {
    pub fn new(lines: ToolLines, asker: Asker, out: OutDir) -> Self {
        TurnView {
            lines,
            asker,
            out,
            saved: HashMap::new(),
        }
    }

    /// Shows `event`. Never blocks: a question is asked on a thread of its
    /// own, and answered from there.
    pub fn show(&mut self, event: TurnEvent) {
        match event {
            TurnEvent::ToolCallStarted {
                call_id,
                tool,
                params,
            } => self.lines.start(&call_id, &tool, &params.to_value()),
            TurnEvent::ToolProgress {
                call_id, progress, ..
            } => self.lines.progress(&call_id, &progress),
            TurnEvent::ToolLog { tool, line, .. } => self.lines.log(&tool, &line),
            TurnEvent::ToolQuestion {
                call_id,
                tool,
                question,
                reply,
            } => self.asker.ask(&call_id, &tool, question, reply),
            TurnEvent::ToolCallFinished(record) => {
                let saved = self.out.save(&record.tool, &record.content);
                let ran = record
                    .duration()
                    .saturating_sub(self.asker.approval_wait(&record.call_id));
                let mut lines = vec![ended_line(&record, ran, self.lines.live_width())];
                lines.extend(saved.iter().map(Saved::line));
                self.lines.finish(&record.call_id, &lines);
                self.saved.insert(record.call_id, saved);
            }
            // `riverse ask` and `chat` follow their tasks up, and take this
            // event before the view does.
            TurnEvent::TaskStarted(task) => self.lines.line(format!(
                "    {} goes on in the background as {}",
                task.tool(),
                task.id()
            )),
            TurnEvent::AnswerDelta(_) | TurnEvent::Done { .. } => {}
        }
    }

    /// One line for each skill the turn applied: `  ✦ skill explain_code
    /// (keyword)`, with the first failed step of a skill made of steps.
    pub fn show_skills(&self, skills: &[AppliedSkill]) {
        for skill in skills {
            self.lines.line(skill_line(skill));
        }
    }

    /// What the content of call `call_id` became.
    pub fn saved(&self, call_id: &str) -> &[Saved] {
        self.saved
            .get(call_id)
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// Waits until no question of this turn is on the terminal any more.
    pub async fn settle(&self) {
        self.asker.settle().await;
    }
}

/// `  ✓ weather (12 ms)`, `  ✗ weather (3 ms): city not found`; the call
/// ran for `ran`. On a terminal `width` columns wide, where the call's `→`
/// line is gone, with its parameters cut to fit:
/// `  ✓ weather {"city":"Oslo"} (12 ms)`.
fn ended_line(record: &CallRecord, ran: Duration, width: Option<usize>) -> String {
    let mark = if record.succeeded() { '✓' } else { '✗' };
    let head = format!("  {mark} {}", printable(&record.tool));
    let took = format!(" ({})", milliseconds(ran));
    // The last column stays free: a line that fills it wraps on some terminals.
    let shown = width.and_then(|width| {
        let room = width.saturating_sub(params::columns(&head) + params::columns(&took) + 2);
        params::within(&record.params.to_value(), room)
    });
    let mut line = match shown {
        Some(shown) => format!("{head} {shown}{took}"),
        None => format!("{head}{took}"),
    };
    if !record.succeeded() {
        let error = record.error.lines().next().unwrap_or_default();
        line.push_str(&format!(
            ": {}",
            printable(&shorten(error, MAX_ERROR_CHARS))
        ));
    }
    line
}

fn skill_line(skill: &AppliedSkill) -> String {
    let how = match skill.trigger {
        SkillTrigger::Keyword => "keyword".to_owned(),
        SkillTrigger::Explicit => format!("/{}", skill.name),
        SkillTrigger::Model => "chosen by the LLM".to_owned(),
    };
    let mut line = format!("  ✦ skill {} ({how})", printable(&skill.name));
    let failed = skill
        .run
        .as_ref()
        .and_then(|run| run.failures().into_iter().next());
    if let Some(failed) = failed {
        let failed = failed.lines().next().unwrap_or_default();
        line.push_str(&format!(
            ": {}",
            printable(&shorten(failed, MAX_ERROR_CHARS))
        ));
    }
    line
}

fn milliseconds(duration: Duration) -> String {
    format!("{} ms", duration.as_millis())
}
