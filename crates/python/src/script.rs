//! The worker script as a file in Riverse's cache, so Python keeps its bytecode.
//!
//! Run with `python -c SOURCE`, the script is compiled at every worker start,
//! which costs more than all the modules it imports. Imported from a file, its
//! bytecode is cached in `__pycache__` beside it and loaded in a fraction of a
//! millisecond. Where the cache cannot be written, workers fall back to `-c`.

use std::collections::hash_map::DefaultHasher;
use std::fs;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::WORKER_SOURCE;
use crate::interpreter::cache_dir;

/// Run with `python -c BOOTSTRAP riverse-worker [POOL] PROJECT DIR`: takes
/// `DIR` off the end of `sys.argv`, puts it first on `sys.path`, in place of
/// the project directory ("") when that is first (it stays off: tools and the
/// LLM can write there), and imports the worker script from it; the worker's
/// `boot` takes `DIR` back off the path and the label off `sys.argv`, leaving
/// both as `python -c SOURCE` would. One short line, so that `ps` shows the
/// label after it (see [`LABEL`]).
/// The bytecode is written even under `PYTHONDONTWRITEBYTECODE`: that setting
/// keeps caches out of the user's source trees, and this directory is Riverse's.
pub(crate) const BOOTSTRAP: &str = "import sys;sys.path[:sys.path[:1]==['']]=[sys.argv.pop()];\
sys.dont_write_bytecode=0;import riverse_worker;riverse_worker.boot()";

/// The first argument after a worker's code, followed by its pool's sandbox
/// (when it has one) and the project directory, for `ps` to name the worker.
/// The worker script knows it (`PROCESS_LABEL`) and drops them from `sys.argv`.
pub(crate) const LABEL: &str = "riverse-worker";

/// The directory holding `riverse_worker.py` with this binary's worker source,
/// written on first use; `None` when it cannot be.
pub(crate) fn cached_script_dir() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = cache_dir()?.join(format!("worker-{:016x}", source_hash()));
        match write_script(&dir) {
            Ok(()) => Some(dir),
            Err(err) => {
                tracing::debug!("can't cache the worker script in {}: {err}", dir.display());
                None
            }
        }
    })
    .as_deref()
}

/// Keeps two Riverse versions from rewriting one file (and invalidating each
/// other's bytecode) in turn.
fn source_hash() -> u64 {
    let mut hasher = DefaultHasher::new();
    WORKER_SOURCE.hash(&mut hasher);
    hasher.finish()
}

fn write_script(dir: &Path) -> std::io::Result<()> {
    let path = dir.join("riverse_worker.py");
    if fs::read(&path).is_ok_and(|text| text == WORKER_SOURCE.as_bytes()) {
        return Ok(());
    }
    fs::create_dir_all(dir)?;
    // Renamed into place, so a worker started by another process never reads
    // half a file.
    let partial = dir.join(format!(".riverse_worker.py.{}", std::process::id()));
    fs::write(&partial, WORKER_SOURCE)?;
    fs::rename(&partial, &path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve_interpreter;

    #[test]
    fn the_bootstrap_imports_the_script_from_its_directory_and_caches_its_bytecode() {
        let dir = tempfile::tempdir().unwrap();
        // A stand-in worker that reports what the real one's `boot` is given.
        fs::write(
            dir.path().join("riverse_worker.py"),
            "import json, sys\n\
             def boot():\n    print(json.dumps([sys.argv, sys.path[0], '' in sys.path, __file__]))\n",
        )
        .unwrap();
        let python = resolve_interpreter(None, Path::new("/nonexistent")).unwrap();
        let output = std::process::Command::new(&python.executable)
            .args(["-c", BOOTSTRAP, LABEL, "/a/project"])
            .arg(dir.path())
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let seen: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let script = dir.path().join("riverse_worker.py");
        assert_eq!(
            seen,
            serde_json::json!([["-c", LABEL, "/a/project"], dir.path(), false, script])
        );
        let cached = fs::read_dir(dir.path().join("__pycache__"))
            .unwrap()
            .count();
        assert_eq!(cached, 1);
    }

    #[test]
    fn the_cached_script_is_the_embedded_source() {
        let dir = cached_script_dir().expect("a writable cache directory");
        let cached = fs::read_to_string(dir.join("riverse_worker.py")).unwrap();
        assert_eq!(cached, WORKER_SOURCE);
    }
}
