//! `riverse chat`: a conversation on a terminal, or one message per line of
//! piped input.
//!
//! On a terminal, lines are read with a line editor and a history file; Ctrl-C
//! while a turn runs cancels that turn, and at the prompt clears the line;
//! Ctrl-D or `/exit` leaves. With piped input, each line is a message (or a
//! command), answers go to stdout and tool progress to stderr, and the chat
//! ends with its input.
//!
//! Each tool call shows as a live bar while it runs, with what it logs above
//! it (plain lines on a piped stderr). A tool's question is put to the
//! person when stdin and stderr are a terminal (see `live/form.rs` for how
//! answers read; Esc, Ctrl-C or Ctrl-D cancel it), and cancelled otherwise.
//! A call whose `tools.<name>.approval` asks is shown with its arguments
//! and runs on `y`, is refused on `n`, and on `a` runs with every later call
//! of that tool in the session; without a terminal it is refused.
//! Images and files that results carry are saved under `.riverse/out/`.
//!
//! A call that becomes a background task (`tools.<name>.background`) goes
//! on while the person types; when it ends, a follow-up turn answers from
//! its result, printed above the prompt, and joins the conversation. At
//! the end a terminal chat cancels the tasks still running, a piped one
//! waits for them; a line says which.

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::mpsc::Sender;

use anyhow::Context;
use riverse_agent::{
    Agent, BackgroundTask, RunMode, Settings, TaskEnd, TurnEvent, build_agent_with_sources,
};
use riverse_llm::Message;
use riverse_tool::Entry;
use rustyline::ExternalPrinter;
use rustyline::error::ReadlineError;
use tokio::io::AsyncBufReadExt;

use super::reload::{self, Report};
use super::tools;
use crate::live::{AbovePrompt, Approvals, Asker, ChatTasks, OutDir, ToolLines, TurnView};
use crate::output::Exit;
use crate::telemetry;

const HELP: &str =
    "commands: /tools lists the tools, /reset starts over, /exit leaves, /SKILL applies a skill";

pub async fn run(settings: &Settings) -> anyhow::Result<Exit> {
    let (agent, sources) = build_agent_with_sources(settings, RunMode::LongRunning).await?;
    let mut input = if io::stdin().is_terminal() {
        let input = Input::terminal()?;
        let tools = match agent.registry().available_manifests().count() {
            1 => "1 tool".to_owned(),
            count => format!("{count} tools"),
        };
        eprintln!(
            "Riverse: {}, {tools}. {HELP}; Ctrl-C cancels a turn, Ctrl-D leaves.",
            agent.provider().describe()
        );
        input
    } else {
        Input::piped()
    };
    if let Some(failed) = tools::failed_to_load(&agent.registry()) {
        eprintln!("{failed}");
    }
    let printer = input.printer();
    let _watching = reload::start(
        settings,
        sources,
        agent.live_registry(),
        Report::Lines(printer),
    );
    // Skills reload on their own, and each turn takes the set in use then.
    let (skills, _skills_reloading) = super::skills::served_skills(settings).unzip();
    if let Some(skills) = &skills {
        agent.follow_skills(skills.changes());
    }
    let mut session = Session {
        agent: &agent,
        history: Vec::new(),
        out: OutDir::of(&settings.project_dir),
        // What the person approved for the rest of the session.
        approvals: Approvals::asked(),
        tasks: ChatTasks::kept_in(super::tasks::rows_for(settings, &agent).await),
    };
    loop {
        // A task that ends while the person types is followed up at once,
        // above the prompt; a turn's own tasks wait for its end.
        let next = tokio::select! {
            line = input.next_line() => Next::Line(line?),
            (task, end) = session.tasks.next_end() => Next::Ended(task, Box::new(end)),
        };
        match next {
            Next::Ended(task, end) => session.follow_up(&task, &end, input.above()).await?,
            Next::Line(None) => break,
            Next::Line(Some(line)) => {
                if !session.take_line(line.trim()).await? {
                    break;
                }
            }
        }
    }
    input.save_history();
    session
        .finish(matches!(input, Input::Terminal { .. }))
        .await?;
    Ok(Exit::Success)
}

/// What the chat waits for at its prompt.
enum Next {
    /// A line typed or piped in; `None` at the end of input.
    Line(Option<String>),
    /// A background task ended (boxed: an end is large).
    Ended(BackgroundTask, Box<TaskEnd>),
}

/// A chat's conversation, and the tasks its calls became.
struct Session<'a> {
    agent: &'a Agent,
    history: Vec<Message>,
    out: OutDir,
    approvals: Approvals,
    tasks: ChatTasks,
}

impl Session<'_> {
    /// Answers `line`, a message or a command; `false` when it ends the
    /// chat.
    async fn take_line(&mut self, line: &str) -> anyhow::Result<bool> {
        match line {
            "" => {}
            "/exit" | "/quit" => return Ok(false),
            "/reset" => {
                self.history.clear();
                eprintln!("(conversation cleared)");
            }
            "/tools" => print_tools(self.agent)?,
            "/help" => eprintln!("{HELP}"),
            command
                if command.starts_with('/') && self.agent.skills().explicit(command).is_none() =>
            {
                eprintln!("unknown command {command}; {HELP}");
            }
            message => {
                if let Some(messages) = run_turn(self, message).await? {
                    self.history.extend(messages);
                }
            }
        }
        Ok(true)
    }

    /// Leaves the chat: on a terminal the tasks still running are
    /// cancelled; with piped input they are waited for and followed up
    /// (Ctrl-C cancels them). Either way a line says so.
    async fn finish(&mut self, on_terminal: bool) -> anyhow::Result<()> {
        if on_terminal {
            if !self.tasks.is_empty() {
                self.cancel_all("the chat ended").await;
            }
        } else if !self.tasks.is_empty() {
            eprintln!("riverse: waiting for the tasks still running; Ctrl-C cancels them");
            while !self.tasks.is_empty() {
                tokio::select! {
                    (task, end) = self.tasks.next_end() => self.follow_up(&task, &end, None).await?,
                    _ = tokio::signal::ctrl_c() => self.cancel_all("Ctrl-C was pressed").await,
                }
            }
        }
        self.tasks.written().await;
        Ok(())
    }

    async fn cancel_all(&mut self, why: &str) {
        for task in self.tasks.cancel_all().await {
            eprintln!(
                "riverse: cancelled {} ({}), still running when {why}",
                task.id(),
                task.tool()
            );
        }
    }

    /// Shows the end of `task` and has a follow-up turn answer from it,
    /// printed above the prompt through `above` while the person types
    /// (plainly without it); the follow-up joins the conversation. It asks
    /// nobody (the terminal is the line editor's): a tool's question is
    /// cancelled, a call whose approval asks is refused unless its tool was
    /// approved for the session.
    async fn follow_up(
        &mut self,
        task: &BackgroundTask,
        end: &TaskEnd,
        above: Option<Sender<String>>,
    ) -> anyhow::Result<()> {
        let lines = match &above {
            Some(above) => ToolLines::above_prompt(above.clone()),
            None => ToolLines::for_stderr(),
        };
        let asker = Asker::at_prompt(lines.clone(), &self.approvals);
        let mut view = TurnView::new(lines.clone(), asker, self.out.clone());
        view.show(TurnEvent::ToolCallFinished(task.record(end)));
        let out: Box<dyn Write + Send> = match above {
            Some(above) => Box::new(AbovePrompt::new(above)),
            None => Box::new(io::stdout()),
        };
        let mut answer = StreamedText::new(out);
        let json_logs = telemetry::json_logs();
        let tasks = &mut self.tasks;
        let outcome = {
            let mut on_event = |event: TurnEvent| {
                let shown = Shown {
                    lines: &lines,
                    view: &mut view,
                    tasks: &mut *tasks,
                    json_logs,
                };
                show_event(event, &mut answer, shown);
            };
            let (params, result) = (task.params(), &end.result);
            let follow_up = self.agent.follow_up(
                &self.history,
                task.id(),
                task.tool(),
                params,
                result,
                &mut on_event,
            );
            tokio::select! {
                turn = riverse_tool::CallOrigin::new("chat", None).scope(follow_up) => Some(turn),
                _ = tokio::signal::ctrl_c() => None,
            }
        };
        view.settle().await;
        answer.finish_line()?;
        match outcome {
            Some(Ok(turn)) => self.history.extend(turn.messages),
            Some(Err(err)) => lines.line(format!(
                "riverse: the follow-up of {} failed: {err}",
                task.id()
            )),
            None => lines.line("(cancelled)".to_owned()),
        }
        Ok(())
    }
}

/// Where a chat turn's events go.
struct Shown<'a> {
    lines: &'a ToolLines,
    view: &'a mut TurnView,
    tasks: &'a mut ChatTasks,
    /// Tools' log lines go to the JSON log rather than the terminal.
    json_logs: bool,
}

/// Shows one event of a chat turn: the answer streamed to `answer`, a
/// call that became a task announced and kept, the rest on the turn's view.
fn show_event<W: Write>(event: TurnEvent, answer: &mut StreamedText<W>, shown: Shown<'_>) {
    match event {
        TurnEvent::AnswerDelta(text) => answer.write(&text),
        TurnEvent::ToolLog {
            call_id,
            tool,
            line,
        } if shown.json_logs => telemetry::tool_log(&call_id, &tool, &line),
        TurnEvent::TaskStarted(task) => {
            announce(shown.lines, &task);
            shown.tasks.add(task);
        }
        other => shown.view.show(other),
    }
}

/// The line that says a call became `task`.
fn announce(lines: &ToolLines, task: &BackgroundTask) {
    lines.line(format!(
        "    {} goes on in the background as {}; its answer comes here when it ends",
        task.tool(),
        task.id()
    ));
}

/// One turn, cancelled by Ctrl-C. Returns the messages to keep, or `None`
/// when the turn failed or was cancelled (the history stays as it was).
/// The calls that become tasks join `session`'s.
async fn run_turn(
    session: &mut Session<'_>,
    message: &str,
) -> anyhow::Result<Option<Vec<Message>>> {
    let lines = ToolLines::for_stderr();
    let asker = Asker::for_terminal(lines.clone()).remembering(&session.approvals);
    let mut view = TurnView::new(lines.clone(), asker, session.out.clone());
    let mut answer = StreamedText::new(io::stdout());
    let json_logs = telemetry::json_logs();
    let tasks = &mut session.tasks;
    let outcome = {
        let mut on_event = |event: TurnEvent| {
            let shown = Shown {
                lines: &lines,
                view: &mut view,
                tasks: &mut *tasks,
                json_logs,
            };
            show_event(event, &mut answer, shown);
        };
        let turn = session.agent.turn(&session.history, message, &mut on_event);
        tokio::select! {
            turn = riverse_tool::CallOrigin::new("chat", None).scope(turn) => Some(turn),
            _ = tokio::signal::ctrl_c() => None,
        }
    };
    // A question still on the terminal gives it back before the line editor
    // reads again.
    view.settle().await;
    answer.finish_line()?;
    match outcome {
        Some(Ok(turn)) => {
            view.show_skills(&turn.skills);
            Ok(Some(turn.messages))
        }
        Some(Err(err)) => {
            eprintln!("riverse: {err}");
            Ok(None)
        }
        None => {
            eprintln!("(cancelled)");
            Ok(None)
        }
    }
}

fn print_tools(agent: &Agent) -> anyhow::Result<()> {
    let mut out = String::new();
    for entry in agent.registry().entries() {
        let name = entry.name().unwrap_or("-");
        match entry {
            Entry::Available { manifest, .. } => {
                let description = manifest.description.lines().next().unwrap_or_default();
                out.push_str(&format!("{name}: {description}\n"));
            }
            _ => {
                let status = entry.status();
                let error = entry.error().unwrap_or_default();
                out.push_str(&format!(
                    "{name} ({}): {}\n",
                    status.as_str(),
                    first_line(error)
                ));
            }
        }
    }
    if out.is_empty() {
        out.push_str("no tools\n");
    }
    let mut stdout = io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()?;
    Ok(())
}

/// The editor reading a line, which gives itself back with the line.
type Reading =
    tokio::task::JoinHandle<(Box<rustyline::DefaultEditor>, Result<String, ReadlineError>)>;

/// Where messages come from.
enum Input {
    Terminal {
        /// Boxed: it is large, and moves to a blocking thread for each line.
        editor: Option<Box<rustyline::DefaultEditor>>,
        history_file: Option<PathBuf>,
        /// Where stderr's lines go while the editor reads: printed above
        /// the prompt by the editor, which draws it again beneath them.
        above_prompt: Option<Sender<String>>,
        /// The line being read, on a blocking thread: it goes on when
        /// waiting for it stops (a task ended meanwhile).
        reading: Option<Reading>,
    },
    Piped {
        lines: tokio::io::Split<tokio::io::BufReader<tokio::io::Stdin>>,
        /// Lines read so far, to name one that is skipped.
        read: usize,
    },
}

impl Input {
    fn terminal() -> anyhow::Result<Input> {
        let mut editor = rustyline::DefaultEditor::new().context("can't set up line editing")?;
        let history_file = history_file();
        if let Some(file) = &history_file {
            // A missing or unreadable history only means starting afresh.
            let _ = editor.load_history(file);
        }
        let above_prompt = editor.create_external_printer().ok().map(|mut printer| {
            let (lines, received) = std::sync::mpsc::channel::<String>();
            // Printing may wait for the editor: never on the thread that logs.
            std::thread::spawn(move || {
                for line in received {
                    let _ = printer.print(line);
                }
            });
            lines
        });
        Ok(Input::Terminal {
            editor: Some(Box::new(editor)),
            history_file,
            above_prompt,
            reading: None,
        })
    }

    /// Where text goes to be printed above the prompt, on a terminal.
    fn above(&self) -> Option<Sender<String>> {
        match self {
            Input::Terminal { above_prompt, .. } => above_prompt.clone(),
            Input::Piped { .. } => None,
        }
    }

    fn piped() -> Input {
        Input::Piped {
            lines: tokio::io::BufReader::new(tokio::io::stdin()).split(b'\n'),
            read: 0,
        }
    }

    /// Where lines that arrive by themselves (hot reload's) are printed: above
    /// the prompt on a terminal, so they do not break the line being typed.
    fn printer(&mut self) -> Box<dyn FnMut(String) + Send> {
        if let Input::Terminal {
            editor: Some(editor),
            ..
        } = self
            && let Ok(mut printer) = editor.create_external_printer()
        {
            return Box::new(move |line: String| {
                let _ = printer.print(format!("{line}\n"));
            });
        }
        Box::new(|line: String| eprintln!("{line}"))
    }

    /// The next line, or `None` at the end of input.
    async fn next_line(&mut self) -> anyhow::Result<Option<String>> {
        match self {
            Input::Piped { lines, read } => loop {
                // Ctrl-C no longer ends the program once a turn has listened
                // for it, so waiting for input listens too.
                let line = tokio::select! {
                    line = lines.next_segment() => line.context("can't read standard input")?,
                    _ = tokio::signal::ctrl_c() => None,
                };
                let Some(mut line) = line else {
                    return Ok(None);
                };
                *read += 1;
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                // A line that is not UTF-8 is reported and skipped: the
                // conversation goes on (issue 13).
                match String::from_utf8(line) {
                    Ok(line) => return Ok(Some(line)),
                    Err(_) => {
                        eprintln!("riverse: line {read} of standard input is not UTF-8; skipped");
                    }
                }
            },
            Input::Terminal {
                editor,
                above_prompt,
                reading,
                ..
            } => loop {
                if reading.is_none() {
                    let Some(mut owned) = editor.take() else {
                        return Ok(None);
                    };
                    crate::live::print_above_prompt(above_prompt.clone());
                    // The editor blocks its thread while it reads.
                    *reading = Some(tokio::task::spawn_blocking(move || {
                        let line = owned.readline("> ");
                        (owned, line)
                    }));
                }
                let Some(pending) = reading.as_mut() else {
                    continue;
                };
                // Cancel-safe: the read goes on, and is waited for again.
                let read = pending.await;
                *reading = None;
                crate::live::print_above_prompt(None);
                let (owned, line) = read.context("the line editor stopped")?;
                *editor = Some(owned);
                match line {
                    Ok(line) => {
                        if let Some(editor) = editor.as_mut()
                            && !line.trim().is_empty()
                        {
                            let _ = editor.add_history_entry(line.as_str());
                        }
                        return Ok(Some(line));
                    }
                    Err(ReadlineError::Interrupted) => continue,
                    Err(ReadlineError::Eof) => return Ok(None),
                    Err(err) => return Err(err).context("can't read from the terminal"),
                }
            },
        }
    }

    fn save_history(&mut self) {
        if let Input::Terminal {
            editor: Some(editor),
            history_file: Some(file),
            ..
        } = self
        {
            if let Some(parent) = file.parent() {
                let _ = std::fs::create_dir_all(parent);
            }
            if let Err(err) = editor.save_history(file) {
                tracing::warn!("can't save the chat history to {}: {err}", file.display());
            }
        }
    }
}

/// `$XDG_STATE_HOME/riverse/chat_history`, or under `~/.local/state`.
fn history_file() -> Option<PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".local/state"))
        })?;
    Some(state.join("riverse").join("chat_history"))
}

/// Answer text written as it streams in. A failed write (a closed pipe) is
/// kept and reported once the turn is over.
pub(super) struct StreamedText<W: Write> {
    out: W,
    /// Whether the last thing written ended a line.
    at_line_start: bool,
    failed: Option<io::Error>,
}

impl<W: Write> StreamedText<W> {
    pub(super) fn new(out: W) -> Self {
        StreamedText {
            out,
            at_line_start: true,
            failed: None,
        }
    }

    pub(super) fn write(&mut self, text: &str) {
        if self.failed.is_some() || text.is_empty() {
            return;
        }
        match self
            .out
            .write_all(text.as_bytes())
            .and_then(|()| self.out.flush())
        {
            Ok(()) => self.at_line_start = text.ends_with('\n'),
            Err(err) => self.failed = Some(err),
        }
    }

    /// Ends the last line, and reports a write that failed.
    pub(super) fn finish_line(&mut self) -> io::Result<()> {
        if let Some(err) = self.failed.take() {
            return Err(err);
        }
        if !self.at_line_start {
            self.out.write_all(b"\n")?;
            self.out.flush()?;
            self.at_line_start = true;
        }
        Ok(())
    }
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_owned()
}
