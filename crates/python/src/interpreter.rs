//! Finding the Python interpreter, once, as a real executable.
//!
//! Version managers put shell scripts named `python3` on `PATH` that cost about
//! 100 ms per spawn. A script is resolved to the interpreter it runs by asking
//! that interpreter for `sys.executable`, and the answer is cached on disk,
//! keyed by the script's path, size and modification time.

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::UNIX_EPOCH;

use crate::Error;

/// The interpreter workers run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interpreter {
    /// What was configured or found on `PATH`, for messages.
    pub requested: String,
    /// The executable to spawn.
    pub executable: PathBuf,
}

/// `python.interpreter` if given, else `$VIRTUAL_ENV/bin/python`, else
/// `PROJECT/.venv/bin/python`, else `python3` on `PATH`.
pub fn resolve_interpreter(
    configured: Option<&str>,
    project_dir: &Path,
) -> Result<Interpreter, Error> {
    let candidates: Vec<String> = match configured {
        Some(command) => vec![command.to_owned()],
        None => {
            let mut list = Vec::new();
            if let Some(venv) = std::env::var_os("VIRTUAL_ENV") {
                list.push(Path::new(&venv).join("bin/python").display().to_string());
            }
            list.push(project_dir.join(".venv/bin/python").display().to_string());
            list.push("python3".to_owned());
            list
        }
    };
    for candidate in &candidates {
        if let Some(found) = locate(candidate, project_dir) {
            let executable = real_executable(&found).map_err(|cause| Error::SpawnFailed {
                interpreter: found.clone(),
                cause,
            })?;
            return Ok(Interpreter {
                requested: candidate.clone(),
                executable,
            });
        }
    }
    Err(Error::InterpreterNotFound {
        tried: candidates.join(", "),
    })
}

/// A path as given (relative to the project), or a bare name searched on `PATH`.
fn locate(command: &str, project_dir: &Path) -> Option<PathBuf> {
    if command.contains('/') {
        let path = project_dir.join(command);
        return is_executable(&path).then_some(path);
    }
    let search = std::env::var_os("PATH")?;
    std::env::split_paths(&search)
        .map(|dir| dir.join(command))
        .find(|path| is_executable(path))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

fn is_script(path: &Path) -> bool {
    let mut magic = [0u8; 2];
    fs::File::open(path)
        .and_then(|mut file| file.read_exact(&mut magic))
        .is_ok_and(|()| &magic == b"#!")
}

fn real_executable(path: &Path) -> Result<PathBuf, String> {
    if !is_script(path) {
        return Ok(path.to_owned());
    }
    let key = cache_key(path);
    let cache_file = cache_dir().map(|dir| dir.join("interpreters.json"));
    let mut cache: BTreeMap<String, PathBuf> = cache_file
        .as_ref()
        .and_then(|file| fs::read(file).ok())
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default();
    let known = key.as_ref().and_then(|key| cache.get(key));
    if let Some(known) = known.filter(|known| is_executable(known)) {
        return Ok(known.clone());
    }
    let output = Command::new(path)
        .args(["-c", "import sys; sys.stdout.write(sys.executable)"])
        .output()
        .map_err(|err| err.to_string())?;
    if !output.status.success() {
        let how = match output.status.code() {
            Some(code) => format!("it exited with status {code}"),
            None => "it was killed by a signal".to_owned(),
        };
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(match stderr.trim().lines().last() {
            Some(last) => format!("{how}: {last}"),
            None => how,
        });
    }
    let executable = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    if !is_executable(&executable) {
        return Err(format!(
            "it reported {} as its executable",
            executable.display()
        ));
    }
    if let (Some(key), Some(file)) = (key, cache_file) {
        cache.insert(key, executable.clone());
        // A cache that cannot be written only costs the next start some time.
        let _ = file
            .parent()
            .map(fs::create_dir_all)
            .transpose()
            .ok()
            .and_then(|_| serde_json::to_vec_pretty(&cache).ok())
            .map(|bytes| fs::write(&file, bytes));
    }
    Ok(executable)
}

fn cache_key(path: &Path) -> Option<String> {
    let meta = fs::metadata(path).ok()?;
    let modified = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
    Some(format!(
        "{}|{}|{}",
        path.display(),
        meta.len(),
        modified.as_nanos()
    ))
}

/// `$XDG_CACHE_HOME/riverse`, else `~/.cache/riverse`.
pub(crate) fn cache_dir() -> Option<PathBuf> {
    Some(dirs::cache_dir()?.join("riverse"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_interpreter_names_what_was_tried() {
        let err = resolve_interpreter(Some("no-such-python-anywhere"), Path::new("/")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "can't find a Python interpreter (tried no-such-python-anywhere)"
        );
    }

    #[test]
    fn a_shell_shim_resolves_to_a_binary() {
        let resolved = resolve_interpreter(None, Path::new("/nonexistent")).unwrap();
        assert!(!is_script(&resolved.executable), "{resolved:?}");
    }
}
