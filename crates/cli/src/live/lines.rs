//! The tool lines on stderr: a live bar per running call on a terminal, plain
//! lines otherwise.

use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use parking_lot::Mutex;
use riverse_tool::{LogLevel, LogLine, Progress, shorten};
use serde_json::Value;

/// The most characters of a call's parameters on its bar; the plain
/// `→` line shows them whole.
const MAX_BAR_PARAMS_CHARS: usize = 60;
/// How often a bar's spinner turns while its call runs.
const SPINNER_INTERVAL: Duration = Duration::from_millis(120);
/// Steps of a bar that has a total; a fraction of the total is shown as so
/// many of them.
const BAR_STEPS: u64 = 1000;

/// The lines tools write on stderr, shared by the event sink, the question
/// prompt and call listeners. Cheap to clone; clones write the same lines.
#[derive(Clone)]
pub struct ToolLines {
    inner: Arc<Mutex<State>>,
    /// Whether log lines at `debug` are shown: with `-vv`, or
    /// `RUST_LOG=tool=debug`, as for what tools print on stderr.
    show_debug: bool,
}

struct State {
    output: Output,
    /// Lines written while a question is asked, printed once it is answered
    /// so they do not break the prompt; `None` when none is asked.
    held: Option<Vec<String>>,
}

enum Output {
    /// A terminal: bars drawn by indicatif, lines printed above them.
    Live {
        bars: MultiProgress,
        /// The bar of each running call, by call id.
        running: HashMap<String, ProgressBar>,
    },
    /// Piped: plain lines only, no progress.
    Plain,
    /// Plain lines, printed above `chat`'s prompt while it reads a line
    /// (see [`ToolLines::above_prompt`]).
    Above(std::sync::mpsc::Sender<String>),
}

/// The bars drawn on this process's stderr, once a command draws any.
static STDERR_BARS: OnceLock<MultiProgress> = OnceLock::new();

/// While `chat`'s line editor reads a line: where stderr's lines go instead,
/// to be printed above its prompt (see [`print_above_prompt`]).
static ABOVE_PROMPT: std::sync::Mutex<Option<std::sync::mpsc::Sender<String>>> =
    std::sync::Mutex::new(None);

/// Sends what is written to stderr to `lines` (`chat`'s line editor prints
/// them above its prompt and draws the prompt and the line being typed again
/// beneath them) until it is called with `None`.
pub fn print_above_prompt(lines: Option<std::sync::mpsc::Sender<String>>) {
    if let Ok(mut above) = ABOVE_PROMPT.lock() {
        *above = lines;
    }
}

/// Writes `text` to stderr above the bars, if any are drawn, so that a log
/// line (Riverse's own, or what a tool prints) does not break one; above the
/// prompt while `chat` reads a line.
pub fn write_above_bars(text: &[u8]) -> io::Result<()> {
    if let Ok(above) = ABOVE_PROMPT.lock()
        && let Some(lines) = above.as_ref()
        && lines
            .send(String::from_utf8_lossy(text).into_owned())
            .is_ok()
    {
        return Ok(());
    }
    match STDERR_BARS.get() {
        Some(bars) => bars.suspend(|| io::stderr().write_all(text)),
        None => io::stderr().write_all(text),
    }
}

impl ToolLines {
    /// Bars when stderr is a terminal, plain lines otherwise.
    pub fn for_stderr() -> Self {
        let stderr = ProgressDrawTarget::stderr();
        // What indicatif would not draw on (a pipe, a file) gets plain lines.
        let output = if stderr.is_hidden() {
            Output::Plain
        } else {
            let bars = STDERR_BARS.get_or_init(|| MultiProgress::with_draw_target(stderr));
            Output::Live {
                bars: bars.clone(),
                running: HashMap::new(),
            }
        };
        ToolLines {
            inner: Arc::new(Mutex::new(State { output, held: None })),
            show_debug: tracing::enabled!(target: "tool", tracing::Level::DEBUG),
        }
    }

    /// Plain lines, each sent to `lines` (`chat`'s line editor prints them
    /// above its prompt): for a turn that runs while the person types.
    pub fn above_prompt(lines: std::sync::mpsc::Sender<String>) -> Self {
        ToolLines {
            inner: Arc::new(Mutex::new(State {
                output: Output::Above(lines),
                held: None,
            })),
            show_debug: tracing::enabled!(target: "tool", tracing::Level::DEBUG),
        }
    }

    /// Whether calls are shown as live bars.
    pub fn is_live(&self) -> bool {
        matches!(self.inner.lock().output, Output::Live { .. })
    }

    /// The terminal's width in columns, when calls are shown as live bars:
    /// their ended lines must fit it, since their `→` line is gone.
    pub fn live_width(&self) -> Option<usize> {
        if !self.is_live() {
            return None;
        }
        console::Term::stderr()
            .size_checked()
            .map(|(_, columns)| usize::from(columns))
    }

    /// A call starts: its bar on a terminal, else its `→` line.
    pub fn start(&self, call_id: &str, tool: &str, params: &Value) {
        let mut state = self.inner.lock();
        match &mut state.output {
            Output::Live { bars, running } => {
                let params = shorten(&params.to_string(), MAX_BAR_PARAMS_CHARS);
                let bar = bars.add(ProgressBar::new_spinner());
                bar.set_style(waiting_style());
                bar.set_prefix(printable(&format!("{tool} {params}")));
                bar.enable_steady_tick(SPINNER_INTERVAL);
                if let Some(replaced) = running.insert(call_id.to_owned(), bar) {
                    finish_bar(bars, &replaced);
                }
            }
            Output::Plain | Output::Above(_) => {
                drop(state);
                self.line(format!("  → {tool} {params}"));
            }
        }
    }

    /// How far a call has got: its bar and message. Not shown when piped.
    pub fn progress(&self, call_id: &str, progress: &Progress) {
        let state = self.inner.lock();
        let Output::Live { running, .. } = &state.output else {
            return;
        };
        let Some(bar) = running.get(call_id) else {
            return;
        };
        let count = progress_count(progress);
        let message = match &progress.message {
            Some(message) => format!("{count} {}", printable(message)),
            None => count,
        };
        // A spinner has no length; a bar with a total has `BAR_STEPS`.
        match progress.total.filter(|total| *total > 0.0) {
            Some(total) => {
                if bar.length().is_none() {
                    bar.set_style(measured_style());
                    bar.set_length(BAR_STEPS);
                }
                let fraction = (progress.progress / total).clamp(0.0, 1.0);
                bar.set_position((fraction * BAR_STEPS as f64).round() as u64);
            }
            None if bar.length().is_some() => {
                bar.set_style(waiting_style());
                bar.unset_length();
            }
            None => {}
        }
        bar.set_message(message);
    }

    /// A line the call logged, under its tool's name; `debug` lines only
    /// when asked for.
    pub fn log(&self, tool: &str, line: &LogLine) {
        if line.level == LogLevel::Debug && !self.show_debug {
            return;
        }
        let level = if line.level >= LogLevel::Warning {
            format!("{}: ", line.level.as_str())
        } else {
            String::new()
        };
        let mut text = String::new();
        for part in line.message.lines() {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&format!("    {tool}: {level}{}", printable(part)));
        }
        if text.is_empty() {
            text = format!("    {tool}: {level}");
        }
        self.line(text);
    }

    /// A call ends: its bar goes, and `lines` (its `✓`/`✗` line, what it
    /// saved) are printed where it was.
    pub fn finish(&self, call_id: &str, lines: &[String]) {
        {
            let mut state = self.inner.lock();
            if let Output::Live { bars, running } = &mut state.output
                && let Some(bar) = running.remove(call_id)
            {
                finish_bar(bars, &bar);
            }
        }
        if !lines.is_empty() {
            self.line(lines.join("\n"));
        }
    }

    /// Prints `text` (one line or more) above the bars, or holds it while a
    /// question is asked.
    pub fn line(&self, text: String) {
        let mut state = self.inner.lock();
        if let Some(held) = &mut state.held {
            held.push(text);
            return;
        }
        write_line(&state.output, &text);
    }

    /// Clears the bars and holds every line until [`ToolLines::resume`]:
    /// the terminal is the prompt's.
    pub fn pause(&self) {
        let mut state = self.inner.lock();
        if state.held.is_none() {
            state.held = Some(Vec::new());
        }
        if let Output::Live { bars, running } = &state.output {
            // A spinner's ticker draws from its own thread: stopped (and
            // joined) first, it cannot draw its bar again between the clear
            // and the hiding, over the prompt.
            for bar in running.values() {
                bar.disable_steady_tick();
            }
            let _ = bars.clear();
            bars.set_draw_target(ProgressDrawTarget::hidden());
        }
    }

    /// Draws the bars again, and prints the lines held meanwhile.
    pub fn resume(&self) {
        let mut state = self.inner.lock();
        let held = state.held.take().unwrap_or_default();
        if let Output::Live { bars, running } = &state.output {
            bars.set_draw_target(ProgressDrawTarget::stderr());
            for bar in running.values() {
                bar.enable_steady_tick(SPINNER_INTERVAL);
            }
        }
        for text in held {
            write_line(&state.output, &text);
        }
    }
}

fn write_line(output: &Output, text: &str) {
    match output {
        // A line that can't be drawn (stderr gone) is not worth failing for.
        Output::Live { bars, .. } => {
            let _ = bars.println(text);
        }
        Output::Plain => eprintln!("{text}"),
        Output::Above(lines) => {
            let _ = lines.send(format!("{text}\n"));
        }
    }
}

fn finish_bar(bars: &MultiProgress, bar: &ProgressBar) {
    bar.finish_and_clear();
    bars.remove(bar);
}

/// A running call's bar before it says how far it has got, or when it has
/// no total: `  → weather {"city":"Oslo"} ⠋ 3 fetching`.
fn waiting_style() -> ProgressStyle {
    ProgressStyle::with_template("  → {prefix} {spinner} {wide_msg}")
        .unwrap_or_else(|_| ProgressStyle::default_spinner())
}

/// A call's bar with a total: `  → report {} [####>-----] 1/3 page 1 of 3`.
fn measured_style() -> ProgressStyle {
    ProgressStyle::with_template("  → {prefix} [{bar:20}] {wide_msg}")
        .map(|style| style.progress_chars("#>-"))
        .unwrap_or_else(|_| ProgressStyle::default_bar())
}

/// `1/3` when progress and total are whole numbers, `40%` when the total
/// is not, the progress alone without a total.
fn progress_count(progress: &Progress) -> String {
    let whole = |value: f64| value.fract() == 0.0 && value.abs() < 1e15;
    match progress.total {
        Some(total) if whole(progress.progress) && whole(total) => {
            format!("{}/{}", progress.progress as i64, total as i64)
        }
        Some(total) if total > 0.0 => format!("{:.0}%", progress.progress / total * 100.0),
        _ if whole(progress.progress) => format!("{}", progress.progress as i64),
        _ => format!("{}", progress.progress),
    }
}

/// `text` without control characters: what a tool says must not move the
/// cursor or recolour the terminal.
pub fn printable(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\t' => ' ',
            c if c.is_control() => '\u{fffd}',
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn at(progress: f64, total: Option<f64>) -> Progress {
        Progress {
            progress,
            total,
            message: None,
        }
    }

    #[test]
    fn a_count_reads_as_steps_or_a_share() {
        assert_eq!(progress_count(&at(1.0, Some(3.0))), "1/3");
        assert_eq!(progress_count(&at(0.4, Some(1.0))), "40%");
        assert_eq!(progress_count(&at(7.0, None)), "7");
        assert_eq!(progress_count(&at(2.5, None)), "2.5");
    }

    #[test]
    fn control_characters_do_not_reach_the_terminal() {
        assert_eq!(
            printable("red\x1b[31m\tbell\x07"),
            "red\u{fffd}[31m bell\u{fffd}"
        );
    }
}
