//! The worker package (`python/riverse_worker/`), embedded in the binary and
//! written into Riverse's cache, so Python keeps its bytecode.
//!
//! Compiling the package's sources costs a worker more than all the modules
//! it imports; imported from files, its bytecode is cached in `__pycache__`
//! beside them and loaded in a fraction of a millisecond. Where the cache
//! cannot be written, a worker is handed each module's source on its command
//! line instead (`python/load_uncached.py`) and compiles them at every start.

use std::collections::hash_map::DefaultHasher;
use std::ffi::OsString;
use std::fs;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::interpreter::cache_dir;

/// The package's name: what the bootstrap imports, and its folder.
const PACKAGE: &str = "riverse_worker";

macro_rules! worker_files {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("../python/riverse_worker/", $name)))),*]
    };
}

/// The worker package's files: each one's name in `riverse_worker/` and its
/// text. A test holds this list to the folder.
pub const WORKER_FILES: &[(&str, &str)] = worker_files![
    "__init__.py",
    "__main__.py",
    "bytecode.py",
    "call.py",
    "contract.py",
    "discovery.py",
    "errors.py",
    "fork_server.py",
    "hooks.py",
    "host_channel.py",
    "host_registry.py",
    "import_hints.py",
    "manifest.py",
    "mcp_shapes.py",
    "outcome.py",
    "process.py",
    "sandbox_rules.py",
    "secrets.py",
    "server.py",
    "shim.py",
    "wire.py",
];

/// Run with `python -c BOOTSTRAP riverse-worker [POOL] PROJECT DIR`: takes
/// `DIR` off the end of `sys.argv`, puts it first on `sys.path`, in place of
/// the project directory ("") when that is first (it stays off: tools and the
/// LLM can write there), and imports the worker package from it; the
/// package's `boot` takes `DIR` back off the path and the label off
/// `sys.argv`, leaving both as `python -c` would. One short line, so that
/// `ps` shows the label after it (see [`LABEL`]).
/// The bytecode is written even under `PYTHONDONTWRITEBYTECODE`: that setting
/// keeps caches out of the user's source trees, and this directory is Riverse's.
pub(crate) const BOOTSTRAP: &str = "import sys;sys.path[:sys.path[:1]==['']]=[sys.argv.pop()];\
sys.dont_write_bytecode=0;import riverse_worker;riverse_worker.boot()";

/// Run with `python -c LOAD_UNCACHED riverse-worker [POOL] PROJECT` followed
/// by each module's name and source and their count, where there is no cache.
const LOAD_UNCACHED: &str = include_str!("../python/load_uncached.py");

/// The first argument after a worker's code, followed by its pool's sandbox
/// (when it has one) and the project directory, for `ps` to name the worker.
/// The worker package knows it (`PROCESS_LABEL`) and drops them from `sys.argv`.
pub(crate) const LABEL: &str = "riverse-worker";

/// The interpreter's arguments that run a worker of the pool whose sandbox
/// is `pool` (when it has one) in `project_dir`: the bootstrap importing
/// the cached package, or, where there is no cache, the modules' sources.
pub(crate) fn worker_args(pool: Option<&str>, project_dir: &Path) -> Vec<OsString> {
    match cached_package_parent() {
        Some(dir) => {
            let mut args = labelled(BOOTSTRAP, pool, project_dir);
            args.push(dir.into());
            args
        }
        None => uncached_args(pool, project_dir),
    }
}

/// The arguments of a worker that compiles the package from its sources at
/// start, as one does where Riverse's cache can't be written.
pub fn uncached_worker_args(project_dir: &Path) -> Vec<OsString> {
    uncached_args(None, project_dir)
}

fn uncached_args(pool: Option<&str>, project_dir: &Path) -> Vec<OsString> {
    let mut args = labelled(LOAD_UNCACHED, pool, project_dir);
    for (file, source) in WORKER_FILES {
        args.push(module_name(file).into());
        args.push(source.into());
    }
    args.push(WORKER_FILES.len().to_string().into());
    args
}

fn labelled(code: &str, pool: Option<&str>, project_dir: &Path) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec!["-c".into(), code.into(), LABEL.into()];
    args.extend(pool.map(OsString::from));
    args.push(project_dir.into());
    args
}

/// `riverse_worker` for `__init__.py`, `riverse_worker.server` for `server.py`.
fn module_name(file: &str) -> String {
    match file.trim_end_matches(".py") {
        "__init__" => PACKAGE.to_owned(),
        module => format!("{PACKAGE}.{module}"),
    }
}

/// The directory holding this binary's worker package, written on first
/// use; `None` when it cannot be. A directory per package version keeps two
/// Riverse versions from rewriting one file (and invalidating each other's
/// bytecode) in turn.
pub(crate) fn cached_package_parent() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = cache_dir()?.join(format!("worker-{:016x}", package_hash()));
        match write_worker_package(&dir) {
            Ok(_) => Some(dir),
            Err(err) => {
                tracing::debug!("can't cache the worker package in {}: {err}", dir.display());
                None
            }
        }
    })
    .as_deref()
}

fn package_hash() -> u64 {
    let mut hasher = DefaultHasher::new();
    WORKER_FILES.hash(&mut hasher);
    hasher.finish()
}

/// Writes the worker package into `dir` (as `dir/riverse_worker/`), each
/// file that is not there already with this text; its path. Each file is
/// renamed into place, so a worker started by another process never reads
/// half of one, and a process returns only once every file is whole, its
/// own or another's.
pub fn write_worker_package(dir: &Path) -> std::io::Result<PathBuf> {
    let package = dir.join(PACKAGE);
    fs::create_dir_all(&package)?;
    for (file, text) in WORKER_FILES {
        let path = package.join(file);
        if fs::read(&path).is_ok_and(|held| held == text.as_bytes()) {
            continue;
        }
        let partial = package.join(format!(".{file}.{}", std::process::id()));
        fs::write(&partial, text)?;
        fs::rename(&partial, &path)?;
    }
    Ok(package)
}

#[cfg(test)]
mod tests;
