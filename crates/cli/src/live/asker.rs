//! Who answers the questions tools ask (`self.ask`): the person at the
//! terminal, one prompt at a time, or nobody.

use std::collections::HashMap;
use std::io::{self, IsTerminal};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use riverse_agent::QuestionReply;
use riverse_tool::{Answer, AnswerAction, Question, shorten};
use serde_json::{Map, Value};
use tokio::task::JoinHandle;

use super::approvals::{self, Approvals};
use super::form::{self, Reading};
use super::lines::{ToolLines, printable};
use super::prompt::{self, Typed};

/// The most characters of a question quoted on the line that says nobody
/// answered it.
const MAX_QUOTED_CHARS: usize = 80;

/// Answers questions. Cheap to clone; clones share the prompts.
#[derive(Clone)]
pub struct Asker {
    lines: ToolLines,
    /// `None`: nobody answers.
    terminal: Option<Arc<Prompts>>,
    /// Who says yes to the calls whose approval asks.
    approvals: Approvals,
    /// How long each call, by id, waited for the person's yes or no: time
    /// it did not run.
    approval_waits: Arc<Mutex<HashMap<String, Duration>>>,
}

/// The prompts of one terminal.
#[derive(Default)]
struct Prompts {
    /// Held while a question is asked: two are never asked at once.
    one_at_a_time: Mutex<()>,
    /// Prompts not known to have ended.
    running: Mutex<Vec<JoinHandle<()>>>,
}

impl Asker {
    /// The person at the terminal when both stdin and stderr are one;
    /// nobody otherwise.
    pub fn for_terminal(lines: ToolLines) -> Self {
        if io::stdin().is_terminal() && io::stderr().is_terminal() {
            Asker {
                lines,
                terminal: Some(Arc::default()),
                approvals: Approvals::asked(),
                approval_waits: Arc::default(),
            }
        } else {
            Asker {
                approvals: Approvals::Refused(approvals::NO_TERMINAL),
                ..Asker::nobody(lines)
            }
        }
    }

    /// Every question is cancelled, and a line says so; so is every call
    /// that asks for approval.
    pub fn nobody(lines: ToolLines) -> Self {
        Asker {
            lines,
            terminal: None,
            approvals: Approvals::Refused(approvals::ASK_HAS_NOBODY),
            approval_waits: Arc::default(),
        }
    }

    /// For a turn that runs while `chat`'s line editor has the terminal (a
    /// task's follow-up): nobody is asked, each question is cancelled, but
    /// the tools approved for the session in `session` stay approved.
    pub fn at_prompt(lines: ToolLines, session: &Approvals) -> Self {
        Asker {
            approvals: session.clone(),
            ..Asker::nobody(lines)
        }
    }

    /// Remembers what the person approves for the session in `session`,
    /// which outlives this asker (a chat's turns share one).
    pub fn remembering(self, session: &Approvals) -> Self {
        match self.approvals {
            Approvals::Asked(_) => Asker {
                approvals: session.clone(),
                ..self
            },
            _ => self,
        }
    }

    /// Approves every call that asks (`--yes`) when `given`.
    pub fn approving_all(self, given: bool) -> Self {
        if !given {
            return self;
        }
        Asker {
            approvals: Approvals::Given(approvals::YES),
            ..self
        }
    }

    /// A scheduled run's answer to every call that asks: approved when the
    /// schedule's approval is `auto`, refused otherwise; nobody is asked.
    pub fn for_schedule(self, auto: bool) -> Self {
        let approvals = if auto {
            Approvals::Given(approvals::SCHEDULE_AUTO)
        } else {
            Approvals::Refused(approvals::SCHEDULE_DENIES)
        };
        Asker { approvals, ..self }
    }

    /// Asks `question` of `tool`'s call `call_id` and gives the answer to
    /// `reply`; returns at once.
    pub fn ask(&self, call_id: &str, tool: &str, question: Question, reply: QuestionReply) {
        if let Some(request) = &question.approval
            && let Some((answer, line)) = self.approvals.without_prompt(request)
        {
            if let Some(line) = line {
                self.lines.line(line);
            }
            reply.answer(answer);
            return;
        }
        let Some(prompts) = &self.terminal else {
            let quoted = shorten(&printable(&question.message), MAX_QUOTED_CHARS);
            self.lines.line(format!(
                "    {tool} asked {quoted:?}: no one to answer (cancelled)"
            ));
            reply.answer(Answer::cancel());
            return;
        };
        let lines = self.lines.clone();
        let tool = tool.to_owned();
        let shared = prompts.clone();
        let approvals = self.approvals.clone();
        let waits = self.approval_waits.clone();
        let call_id = call_id.to_owned();
        let asked = Instant::now();
        let prompt = tokio::task::spawn_blocking(move || {
            let _alone = shared.one_at_a_time.lock();
            if !reply.is_open() {
                return;
            }
            lines.pause();
            let is_open = || reply.is_open();
            let answer = match &question.approval {
                Some(request) => {
                    let answer = approvals.prompt(request, &is_open);
                    waits.lock().insert(call_id, asked.elapsed());
                    answer
                }
                None => fill_in(&tool, &question, &is_open),
            };
            lines.resume();
            if let Some(answer) = answer {
                reply.answer(answer);
            }
        });
        let mut running = prompts.running.lock();
        running.retain(|prompt| !prompt.is_finished());
        running.push(prompt);
    }

    /// How long call `call_id` waited for the person to approve it (zero
    /// when nobody was asked); said once.
    pub fn approval_wait(&self, call_id: &str) -> Duration {
        self.approval_waits
            .lock()
            .remove(call_id)
            .unwrap_or_default()
    }

    /// Waits for the prompts still on the terminal to end: each ends soon
    /// after its question is withdrawn, and the terminal must be the line
    /// editor's again before it reads.
    pub async fn settle(&self) {
        let Some(prompts) = &self.terminal else {
            return;
        };
        let running: Vec<JoinHandle<()>> = std::mem::take(&mut *prompts.running.lock());
        for prompt in running {
            let _ = prompt.await;
        }
    }
}

/// Shows the question and reads its answer, field by field; `None` when it
/// was withdrawn first.
fn fill_in(tool: &str, question: &Question, is_open: &dyn Fn() -> bool) -> Option<Answer> {
    let mut message = question.message.trim().lines();
    eprintln!(
        "  ? {tool} asks: {}",
        printable(message.next().unwrap_or_default())
    );
    for more in message {
        eprintln!("    {}", printable(more));
    }
    let answer = match read_answer(question, is_open) {
        Ok(answer) => answer,
        Err(err) => {
            eprintln!("    can't read the answer: {err}");
            Some(Answer::cancel())
        }
    };
    match answer.as_ref().map(|answer| answer.action) {
        Some(AnswerAction::Accept) => {}
        Some(AnswerAction::Decline) => eprintln!("    (declined)"),
        Some(AnswerAction::Cancel) => eprintln!("    (cancelled)"),
        None => eprintln!("    (no longer asked: the call ended)"),
    }
    answer
}

fn read_answer(question: &Question, is_open: &dyn Fn() -> bool) -> io::Result<Option<Answer>> {
    let fields = form::fields(question);
    if fields.is_empty() {
        let prompted = prompt_until_read(form::CONFIRM_PROMPT, is_open, form::read_confirmation)?;
        return Ok(match prompted {
            Prompted::Value(_) => Some(Answer::accept(Map::new())),
            Prompted::Declined => Some(Answer::decline()),
            Prompted::Cancelled => Some(Answer::cancel()),
            Prompted::Withdrawn => None,
        });
    }
    let yes_or_no = form::is_yes_or_no(&fields);
    let mut content = Map::new();
    for field in &fields {
        let read = |typed: &str| field.read(typed, yes_or_no);
        match prompt_until_read(&field.prompt(), is_open, read)? {
            Prompted::Value(Some(value)) => {
                content.insert(field.name.clone(), value);
            }
            Prompted::Value(None) => {}
            Prompted::Declined => return Ok(Some(Answer::decline())),
            Prompted::Cancelled => return Ok(Some(Answer::cancel())),
            Prompted::Withdrawn => return Ok(None),
        }
    }
    Ok(Some(Answer::accept(content)))
}

/// How the prompt for one field (or a confirmation) ended.
enum Prompted {
    /// What the field holds; `None` leaves it out.
    Value(Option<Value>),
    Declined,
    Cancelled,
    Withdrawn,
}

/// Prompts until a typed line reads as `read` wants, saying why each one
/// that does not.
fn prompt_until_read(
    prompt: &str,
    is_open: &dyn Fn() -> bool,
    read: impl Fn(&str) -> Reading,
) -> io::Result<Prompted> {
    loop {
        match prompt::read_line(prompt, is_open)? {
            Typed::Line(typed) => match read(&typed) {
                Reading::Again(why) => eprintln!("    {why}"),
                Reading::Value(value) => return Ok(Prompted::Value(value)),
                Reading::Decline => return Ok(Prompted::Declined),
            },
            Typed::Cancelled => return Ok(Prompted::Cancelled),
            Typed::Withdrawn => return Ok(Prompted::Withdrawn),
        }
    }
}
