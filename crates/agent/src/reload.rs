//! Hot reload for the long-running commands (`chat`, `mcp`, `serve`).
//!
//! The tools directory, the YAML agents files and `settings.yaml` are
//! watched. A change (debounced, so a save counts once) rebuilds every tool
//! source in a new generation and swaps it into the [`LiveRegistry`]: calls
//! in flight finish on the old generation, whose workers exit once the last
//! of them is done; the next call sees the new tools.
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

use crate::{Settings, build_registry};
use watch::{Watch, Watched, next_change};

/// Settings that only a restart applies: the model, the turn's limits, the
/// server's address. Everything else reaches the tools at the next reload
/// (tools read the whole settings document).
const RESTART_KEYS: [&str; 7] = [
    "language",
    "llm_provider",
    "openai",
    "local",
    "embedded",
    "agent",
    "serve",
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
    /// Starts watching `settings`' project; each reload replaces `tools` and
    /// is reported to `report`.
    pub fn start(
        settings: Settings,
        tools: LiveRegistry,
        report: impl FnMut(Reloaded) + Send + 'static,
    ) -> Result<Self, notify::Error> {
        let (sender, batches) = mpsc::unbounded_channel();
        let watched = Watched::of(&settings);
        let watch = Watch::start(&watched, sender)?;
        let reloader = Reloader {
            settings,
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
            if touched.contains(&self.watched.settings_file) {
                match self.reread_settings() {
                    Ok(restart) if !restart.is_empty() => report(Reloaded::NeedsRestart(restart)),
                    Ok(_) => {}
                    Err(error) => {
                        report(Reloaded::SettingsKept {
                            file: self.watched.settings_file.clone(),
                            error,
                        });
                        touched.retain(|path| *path != self.watched.settings_file);
                        if touched.is_empty() {
                            continue;
                        }
                    }
                }
            }
            let old = self.tools.current();
            let new = build_registry(&self.settings).await;
            let changes = ToolChanges::between(&old, &new, &touched, &self.settings.project_dir);
            self.tools.replace(new);
            drop(old);
            report(Reloaded::Tools(changes));
        }
    }

    /// Reads the settings file again. The keys that need a restart to apply,
    /// or why the file can't be used.
    fn reread_settings(&mut self) -> Result<Vec<String>, String> {
        let file = &self.watched.settings_file;
        if !file.is_file() {
            return Err(format!("{}: the file is gone", file.display()));
        }
        let settings = Settings::load(&self.settings.project_dir, Some(file))
            .map_err(|err| err.to_string())?;
        for warning in &settings.warnings {
            tracing::warn!("{warning}");
        }
        let restart = RESTART_KEYS
            .iter()
            .filter(|key| settings.document.get(**key) != self.settings.document.get(**key))
            .map(|key| (*key).to_owned())
            .collect();
        self.watched = Watched::of(&settings);
        self.watch.follow(&self.watched);
        self.settings = settings;
        Ok(restart)
    }
}
