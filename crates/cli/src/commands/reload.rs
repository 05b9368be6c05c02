//! Hot reload as the long-running commands report it.

use riverse_agent::{HotReload, Reloaded, Settings, ToolSources};
use riverse_tool::LiveRegistry;

/// Where a command reports reloads.
pub enum Report {
    /// Lines for a person at `riverse chat`, each to this printer.
    Lines(Box<dyn FnMut(String) + Send>),
    /// The log (stderr, through the lossy writer), for `mcp` and `serve`.
    Log,
}

/// Watches the project for as long as the returned handle lives. A watch that
/// can't start is a warning, not a failure: the command runs without it.
pub fn start(
    settings: &Settings,
    sources: ToolSources,
    tools: &LiveRegistry,
    report: Report,
) -> Option<HotReload> {
    let mut report = report;
    let started = HotReload::start(settings.clone(), sources, tools.clone(), move |reloaded| {
        count(&reloaded);
        for line in lines(&reloaded) {
            match (&mut report, line) {
                (Report::Lines(print), Line::Info(text) | Line::Problem(text)) => print(text),
                (Report::Log, Line::Info(text)) => tracing::info!(target: "reload", "{text}"),
                (Report::Log, Line::Problem(text)) => tracing::warn!(target: "reload", "{text}"),
            }
        }
    });
    match started {
        Ok(watching) => Some(watching),
        Err(err) => {
            tracing::warn!("hot reload is off: can't watch the project: {err}");
            None
        }
    }
}

/// Reloads by outcome, in the process's metrics (`/metrics` under `serve`).
const RELOADS: &str = "riverse_reloads_total";

fn count(reloaded: &Reloaded) {
    let outcome = match reloaded {
        Reloaded::Tools(_) => "tools",
        Reloaded::SettingsKept { .. } => "settings_kept",
        Reloaded::NeedsRestart(_) => "needs_restart",
    };
    metrics::counter!(RELOADS, "outcome" => outcome).increment(1);
}

enum Line {
    Info(String),
    Problem(String),
}

fn lines(reloaded: &Reloaded) -> Vec<Line> {
    match reloaded {
        Reloaded::Tools(changes) => {
            let mut lines = Vec::new();
            if changes.has_tool_changes() {
                lines.push(Line::Info(format!("tools changed: {changes}")));
            }
            lines.extend(
                changes
                    .failures
                    .iter()
                    .map(|failure| Line::Problem(format!("tool failed to load: {failure}"))),
            );
            lines
        }
        Reloaded::SettingsKept { error, .. } => vec![Line::Problem(format!(
            "settings not applied, the running ones stay: {error}"
        ))],
        Reloaded::NeedsRestart(keys) => vec![Line::Info(format!(
            "settings changed that apply at the next start: {}",
            keys.join(", ")
        ))],
    }
}
