//! Which files a project's tools come from, and a debounced watch on them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use riverse_python::environment::REQUIREMENTS_FILE;
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::Settings;

/// Events closer together than this are one change: an editor's
/// save-as-rename (write a temporary file, rename it over the old one) is
/// reloaded once.
const DEBOUNCE: Duration = Duration::from_millis(300);

/// The files whose change rebuilds the tools.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Watched {
    pub settings_file: PathBuf,
    /// Python tool files, and modules beside them.
    pub tools_dir: Option<PathBuf>,
    /// Riverse's agents files.
    pub agents_dir: PathBuf,
    /// Hook files (`hooks.dir`), reloaded with the Python tools.
    pub hooks_dir: Option<PathBuf>,
}

impl Watched {
    pub fn of(settings: &Settings) -> Self {
        Watched {
            settings_file: settings_file(settings),
            tools_dir: settings.tools.enabled.then(|| settings.tools_dir()),
            agents_dir: settings.project_dir.join("agent/config"),
            hooks_dir: settings.hooks.enabled.then(|| settings.hooks_dir()),
        }
    }

    /// Whether a change to `path` concerns the tools: the settings file, a
    /// `.py` file under the tools directory (not compiled bytecode), its
    /// `requirements.txt`, or a YAML agents file.
    pub fn concerns(&self, path: &Path) -> bool {
        if path == self.settings_file {
            return true;
        }
        let extension = path.extension().and_then(|extension| extension.to_str());
        if let Some(hooks_dir) = &self.hooks_dir
            && path.parent() == Some(hooks_dir.as_path())
        {
            let hidden = path
                .file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with('.'));
            return !hidden && extension == Some("py");
        }
        if let Some(tools_dir) = &self.tools_dir
            && path.starts_with(tools_dir)
        {
            let in_cache = path
                .components()
                .any(|component| component.as_os_str() == "__pycache__");
            // Editors' lock and swap files (`.#weather.py`) are hidden.
            let hidden = path
                .file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with('.'));
            let requirements = path == tools_dir.join(REQUIREMENTS_FILE);
            return path == tools_dir
                || requirements
                || (!in_cache && !hidden && extension == Some("py"));
        }
        self.is_agents_file(path)
    }

    /// Whether `path` is a YAML agents file.
    pub fn is_agents_file(&self, path: &Path) -> bool {
        let extension = path.extension().and_then(|extension| extension.to_str());
        path.parent() == Some(self.agents_dir.as_path())
            && matches!(extension, Some("yaml" | "yml"))
    }

    /// The directories to watch: each that exists now. (A tools directory
    /// made later is seen once the settings change or Riverse restarts.)
    fn directories(&self) -> Vec<(PathBuf, RecursiveMode)> {
        let settings_dir = self
            .settings_file
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let mut directories = vec![(settings_dir, RecursiveMode::NonRecursive)];
        if let Some(tools_dir) = &self.tools_dir {
            directories.push((tools_dir.clone(), RecursiveMode::Recursive));
        }
        directories.push((self.agents_dir.clone(), RecursiveMode::NonRecursive));
        if let Some(hooks_dir) = &self.hooks_dir {
            directories.push((hooks_dir.clone(), RecursiveMode::NonRecursive));
        }
        directories.retain(|(directory, _)| directory.is_dir());
        directories
    }
}

/// `settings.yaml` as read, or where it would be.
fn settings_file(settings: &Settings) -> PathBuf {
    settings
        .file
        .clone()
        .map(|file| std::path::absolute(&file).unwrap_or(file))
        .unwrap_or_else(|| settings.project_dir.join("settings.yaml"))
}

/// A watch on the directories of [`Watched`]; the paths that files were
/// written, made, renamed or removed at arrive on a channel. Reading a file
/// (as importing a tool does) is not a change. Stops when dropped.
pub(crate) struct Watch {
    watcher: RecommendedWatcher,
    watching: Vec<PathBuf>,
}

impl Watch {
    pub fn start(
        watched: &Watched,
        changed: mpsc::UnboundedSender<Vec<PathBuf>>,
    ) -> notify::Result<Self> {
        let watcher =
            notify::recommended_watcher(move |event: notify::Result<Event>| match event {
                Ok(event) if is_change(&event.kind) => {
                    let _ = changed.send(event.paths);
                }
                Ok(_) => {}
                Err(err) => tracing::warn!("watching the tools for changes: {err}"),
            })?;
        let mut watch = Watch {
            watcher,
            watching: Vec::new(),
        };
        watch.follow(watched);
        Ok(watch)
    }

    /// Watches `watched`'s directories from now on, instead of the earlier ones.
    pub fn follow(&mut self, watched: &Watched) {
        for directory in self.watching.drain(..) {
            let _ = self.watcher.unwatch(&directory);
        }
        for (directory, mode) in watched.directories() {
            match self.watcher.watch(&directory, mode) {
                Ok(()) => self.watching.push(directory),
                Err(err) => tracing::warn!("can't watch {}: {err}", directory.display()),
            }
        }
    }
}

fn is_change(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) | EventKind::Any
    )
}

/// The next change: the paths of the first event and of every event that
/// follows it within [`DEBOUNCE`] of the one before. `None` when the watch
/// has stopped.
pub(crate) async fn next_change(
    changes: &mut mpsc::UnboundedReceiver<Vec<PathBuf>>,
) -> Option<Vec<PathBuf>> {
    let mut paths = changes.recv().await?;
    loop {
        match tokio::time::timeout_at(Instant::now() + DEBOUNCE, changes.recv()).await {
            Ok(Some(more)) => paths.extend(more),
            Ok(None) | Err(_) => return Some(paths),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn watched() -> Watched {
        Watched {
            settings_file: PathBuf::from("/p/settings.yaml"),
            tools_dir: Some(PathBuf::from("/p/agent/tools")),
            agents_dir: PathBuf::from("/p/agent/config"),
            hooks_dir: Some(PathBuf::from("/p/agent/hooks")),
        }
    }

    #[test]
    fn only_tool_sources_and_settings_concern_the_tools() {
        let watched = watched();
        for path in [
            "/p/settings.yaml",
            "/p/agent/tools/weather.py",
            "/p/agent/tools/helpers/units.py",
            "/p/agent/tools/requirements.txt",
            "/p/agent/tools",
            "/p/agent/config/agents.yaml",
            "/p/agent/config/more.yml",
            "/p/agent/hooks/policy.py",
        ] {
            assert!(watched.concerns(Path::new(path)), "{path}");
        }
        for path in [
            "/p/other.yaml",
            "/p/.riverse/riverse.db",
            "/p/agent/tools/__pycache__/weather.cpython-311.pyc",
            "/p/agent/tools/weather.eval.yaml",
            "/p/agent/tools/notes.txt",
            "/p/agent/tools/.weather.py.swp",
            "/p/agent/tools/.#weather.py",
            "/p/agent/config/notes.txt",
            "/p/agent/hooks/notes.txt",
            "/p/agent/hooks/__pycache__/policy.cpython-311.pyc",
            "/p/agent/hooks/.policy.py.swp",
        ] {
            assert!(!watched.concerns(Path::new(path)), "{path}");
        }
    }
}
