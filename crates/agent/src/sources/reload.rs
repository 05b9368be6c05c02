//! Hot reload for the long-running commands (`chat`, `mcp`, `serve`).
//!
//! The tools directory, the YAML agents files and `settings.yaml` are
//! watched. A change (debounced, so a save counts once) starts the tool
//! source it concerns again (a Python file: new workers; an agents file: the
//! agents read again; the settings: every source, MCP servers only when
//! `mcp` changed) and swaps a new generation into the [`LiveRegistry`]:
//! calls in flight finish on the old generation, whose workers exit once the
//! last of them is done; the next call sees the new tools.
//!
//! A tool file that fails after an edit is withdrawn: the new generation has
//! its error row (file and line), not its last good version, so what runs is
//! always what is on disk. A `settings.yaml` that no longer reads keeps the
//! running settings.

mod changes;
mod watch;

use std::path::PathBuf;

use riverse_tool::LiveRegistry;
use tokio::sync::mpsc;

pub use changes::ToolChanges;

use super::ToolSources;
use crate::Settings;
use watch::{Watch, Watched, next_change};

/// Settings that only a restart applies: the model, the turn's limits, the
/// server's address (and where traces go), how logs are written. Everything else reaches the tools at the next reload
/// (tools read the whole settings document).
const RESTART_KEYS: [&str; 8] = [
    "language",
    "llm_provider",
    "openai",
    "local",
    "embedded",
    "agent",
    "serve",
    "log_format",
];

/// What a reload did.
#[derive(Debug, Clone, PartialEq)]
pub enum Reloaded {
    /// A new generation of tools is in use.
    Tools(ToolChanges),
    /// The settings file changed but can't be used: the running settings stay.
    SettingsKept { file: PathBuf, error: String },
    /// Settings that take effect at the next start changed (their keys).
    NeedsRestart(Vec<String>),
}

/// Watches the project while it lives; dropping it stops the watch.
pub struct HotReload {
    task: tokio::task::JoinHandle<()>,
}

impl Drop for HotReload {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl HotReload {
    /// Starts watching `settings`' project, whose tools `sources` yielded;
    /// each reload replaces `tools` and is reported to `report`.
    pub fn start(
        settings: Settings,
        sources: ToolSources,
        tools: LiveRegistry,
        report: impl FnMut(Reloaded) + Send + 'static,
    ) -> Result<Self, notify::Error> {
        let (sender, batches) = mpsc::unbounded_channel();
        let watched = Watched::of(&settings);
        let watch = Watch::start(&watched, sender)?;
        let reloader = Reloader {
            settings,
            sources,
            watched,
            watch,
            tools,
        };
        Ok(HotReload {
            task: tokio::spawn(reloader.run(batches, report)),
        })
    }
}

struct Reloader {
    settings: Settings,
    sources: ToolSources,
    watched: Watched,
    watch: Watch,
    tools: LiveRegistry,
}

impl Reloader {
    async fn run(
        mut self,
        mut batches: mpsc::UnboundedReceiver<Vec<PathBuf>>,
        mut report: impl FnMut(Reloaded),
    ) {
        while let Some(mut touched) = next_change(&mut batches).await {
            touched.retain(|path| self.watched.concerns(path));
            touched.sort();
            touched.dedup();
            if touched.is_empty() {
                continue;
            }
            let mut sources = Changed::of(&touched, &self.watched);
            if sources.settings {
                match self.reread_settings() {
                    Ok(reread) => {
                        if !reread.restart.is_empty() {
                            report(Reloaded::NeedsRestart(reread.restart));
                        }
                        // Tools read the whole document: every Python tool
                        // starts again with the new one.
                        sources.python = true;
                        sources.agents = true;
                        sources.mcp = reread.mcp_changed;
                    }
                    Err(error) => report(Reloaded::SettingsKept {
                        file: self.watched.settings_file.clone(),
                        error,
                    }),
                }
            }
            if !(sources.python || sources.agents || sources.mcp) {
                continue;
            }
            let old = self.tools.current();
            self.rediscover(&sources).await;
            let new = self.sources.registry(&self.settings);
            let changes = ToolChanges::between(&old, &new, &touched, &self.settings.project_dir);
            self.tools.replace(new);
            drop(old);
            report(Reloaded::Tools(changes));
        }
    }

    /// Starts again the sources that changed.
    async fn rediscover(&mut self, changed: &Changed) {
        if changed.mcp {
            let mut fresh = ToolSources::discover(&self.settings, self.sources.mode()).await;
            if !changed.python {
                fresh.keep_python_of(&mut self.sources);
            }
            self.sources = fresh;
            return;
        }
        if changed.python {
            self.sources.rediscover_python(&self.settings).await;
        }
        if changed.agents {
            self.sources.reread_agents(&self.settings);
        }
    }

    /// Reads the settings file again: what changed, or why the file can't
    /// be used.
    fn reread_settings(&mut self) -> Result<Reread, String> {
        let file = &self.watched.settings_file;
        if !file.is_file() {
            return Err(format!("{}: the file is gone", file.display()));
        }
        let settings = Settings::load(&self.settings.project_dir, Some(file))
            .map_err(|err| err.to_string())?;
        for warning in &settings.warnings {
            tracing::warn!("{warning}");
        }
        let restart: Vec<String> = RESTART_KEYS
            .iter()
            .filter(|key| settings.document.get(**key) != self.settings.document.get(**key))
            .map(|key| (*key).to_owned())
            .collect();
        let mcp_changed = settings.document.get("mcp") != self.settings.document.get("mcp");
        self.watched = Watched::of(&settings);
        self.watch.follow(&self.watched);
        self.settings = settings;
        Ok(Reread {
            restart,
            mcp_changed,
        })
    }
}

/// What a good settings file changed.
struct Reread {
    /// Keys that apply at the next start.
    restart: Vec<String>,
    mcp_changed: bool,
}

/// Which sources a change concerns.
#[derive(Debug, Default)]
struct Changed {
    settings: bool,
    python: bool,
    agents: bool,
    mcp: bool,
}

impl Changed {
    fn of(touched: &[PathBuf], watched: &Watched) -> Self {
        let mut changed = Changed::default();
        for path in touched {
            if *path == watched.settings_file {
                changed.settings = true;
            } else if watched.is_agents_file(path) {
                changed.agents = true;
            } else {
                changed.python = true;
            }
        }
        changed
    }
}
