//! The program that makes the tool environment and installs into it: uv
//! when it can be had, else the interpreter's own `venv` and `pip`.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use riverse_process::groups::Registered;
use riverse_process::{Line, read_line};
use tokio::io::{AsyncRead, BufReader};
use tokio::process::Command;

/// The environment's interpreter.
pub fn venv_python(venv: &Path) -> PathBuf {
    venv.join("bin/python")
}

/// Tells the log (target `environment`, which the command line shows by
/// default) how a sync goes.
pub(super) fn progress(line: &str) {
    tracing::info!(target: "environment", "{line}");
}

/// `python.installer`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum InstallerChoice {
    /// uv if one is on `PATH` or importable by the interpreter, else pip.
    #[default]
    Auto,
    Uv,
    Pip,
}

/// The installer found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Installer {
    /// The `uv` executable.
    Uv(PathBuf),
    /// `python -m venv` and the environment's `python -m pip`.
    Pip,
}

/// How many of an installer's last lines are kept to say why it failed.
const REASON_LINES: usize = 12;
/// The longest line of an installer's kept whole; the rest of one is dropped
/// as it streams by.
const LINE_BYTES: usize = 4096;
/// How long one installer run may take: a resolver or a build that never
/// ends must not keep the tools from loading.
pub const INSTALL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(15 * 60);

impl Installer {
    /// Finds the installer `choice` asks for; `base` is the interpreter the
    /// environment is made from (the `uv` package on PyPI ships its binary,
    /// so a `pip install uv` makes it importable there).
    pub async fn find(choice: InstallerChoice, base: &Path) -> Result<Installer, String> {
        if choice == InstallerChoice::Pip {
            return Ok(Installer::Pip);
        }
        if let Some(uv) = uv_on_path() {
            return Ok(Installer::Uv(uv));
        }
        if let Some(uv) = uv_of(base).await {
            return Ok(Installer::Uv(uv));
        }
        match choice {
            InstallerChoice::Uv => Err(format!(
                "python.installer is uv, but there is no uv on PATH nor in {} (pip install uv)",
                base.display()
            )),
            _ => Ok(Installer::Pip),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Installer::Uv(_) => "uv",
            Installer::Pip => "pip",
        }
    }

    /// Makes an empty environment at `venv` from `base`.
    pub async fn create(&self, base: &Path, venv: &Path) -> Result<(), String> {
        let mut command = match self {
            Installer::Uv(uv) => {
                let mut command = Command::new(uv);
                command
                    .args(["venv", "--no-project", "--python"])
                    .arg(base)
                    .arg(venv);
                command
            }
            Installer::Pip => {
                let mut command = Command::new(base);
                command.args(["-m", "venv"]).arg(venv);
                command
            }
        };
        // `-m` would import a `venv.py` of the working directory first.
        command.current_dir("/");
        run(&mut command, self.name()).await
    }

    /// Installs `wanted` into the environment at `venv`, in the tools
    /// directory `tools_dir` (where a relative path in a requirements file
    /// points from). uv installs exactly that, removing what is no longer
    /// asked for; pip keeps what it installed before.
    pub async fn install(
        &self,
        venv: &Path,
        tools_dir: &Path,
        wanted: &Wanted,
    ) -> Result<(), String> {
        let python = venv_python(venv);
        let mut command = match self {
            Installer::Uv(uv) => {
                let mut command = Command::new(uv);
                // Bytecode now, as pip makes it: else every worker that
                // imports a package compiles it again where Python may not
                // write it back (PYTHONDONTWRITEBYTECODE, a read-only tree).
                command
                    .args([
                        "pip",
                        "install",
                        "--exact",
                        "--compile-bytecode",
                        "--python",
                    ])
                    .arg(&python);
                command
            }
            Installer::Pip => {
                let mut command = Command::new(&python);
                // `-m` would put the working directory, the tools directory,
                // first on pip's own path, where a tool named `json.py`
                // replaces the standard module (Python 3.11 on; older ones
                // ignore the variable).
                command.env("PYTHONSAFEPATH", "1");
                command.args([
                    "-m",
                    "pip",
                    "install",
                    "--disable-pip-version-check",
                    "--progress-bar",
                    "off",
                ]);
                command
            }
        };
        for file in &wanted.files {
            command.arg("-r").arg(file);
        }
        // Each requirement is one argument: it can't carry an option, as a
        // line of a requirements file could (`six --hash=...`).
        command.args(&wanted.packages).current_dir(tools_dir);
        run(&mut command, self.name()).await
    }
}

/// What one install asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Wanted {
    /// PEP 508 requirements, each starting with a package name.
    pub packages: Vec<String>,
    /// Requirements files, read by the installer.
    pub files: Vec<PathBuf>,
}

/// `uv` on `PATH`.
fn uv_on_path() -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let search = std::env::var_os("PATH")?;
    std::env::split_paths(&search)
        .map(|dir| dir.join("uv"))
        .find(|path| {
            std::fs::metadata(path)
                .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
        })
}

/// The binary of the `uv` package installed for `base`, if it is.
async fn uv_of(base: &Path) -> Option<PathBuf> {
    // From `/`: no file of the working directory is imported.
    let output = Command::new(base)
        .args(["-c", "import uv, sys; sys.stdout.write(uv.find_uv_bin())"])
        .current_dir("/")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .await
        .ok()?;
    let path = PathBuf::from(String::from_utf8(output.stdout).ok()?);
    (output.status.success() && path.is_file()).then_some(path)
}

/// Runs an installer command to its end, each line it writes shown as
/// progress; a failure is what it said of it.
async fn run(command: &mut Command, label: &str) -> Result<(), String> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // uv: never fetch an interpreter; plain lines, not a terminal's.
        .env("UV_PYTHON_DOWNLOADS", "never")
        .env("NO_COLOR", "1")
        .kill_on_drop(true);
    // Ctrl-C reaches Riverse's group, not the installer's own.
    riverse_process::die_with_riverse(command);
    let program = command
        .as_std()
        .get_program()
        .to_string_lossy()
        .into_owned();
    let (mut child, _group) =
        Registered::spawn(command).map_err(|err| format!("can't start {program}: {err}"))?;
    let tail = parking_lot::Mutex::new(VecDeque::new());
    let read = |stream: Option<Box<dyn AsyncRead + Unpin + Send>>| {
        let tail = &tail;
        async move {
            let Some(stream) = stream else { return };
            let mut reader = BufReader::new(stream);
            while let Ok(Some(line)) = read_line(&mut reader, LINE_BYTES).await {
                let bytes = match line {
                    Line::Complete(bytes) | Line::Unterminated(bytes) => bytes,
                    Line::TooLong { start, .. } => start,
                };
                let line = String::from_utf8_lossy(&bytes).trim_end().to_owned();
                if line.trim().is_empty() || line.starts_with("Activate with:") {
                    continue;
                }
                progress(&format!("{label}: {line}"));
                let mut tail = tail.lock();
                if tail.len() == REASON_LINES {
                    tail.pop_front();
                }
                tail.push_back(line);
            }
        }
    };
    let stdout = child
        .stdout
        .take()
        .map(|s| Box::new(s) as Box<dyn AsyncRead + Unpin + Send>);
    let stderr = child
        .stderr
        .take()
        .map(|s| Box::new(s) as Box<dyn AsyncRead + Unpin + Send>);
    let finished = tokio::time::timeout(INSTALL_TIMEOUT, async {
        tokio::join!(read(stdout), read(stderr));
        child.wait().await
    })
    .await;
    // Past the deadline, dropping the group's handle kills what it started.
    let status = finished
        .map_err(|_| {
            format!(
                "{program} was stopped after {} minutes",
                INSTALL_TIMEOUT.as_secs() / 60
            )
        })?
        .map_err(|err| format!("{program} could not be waited for: {err}"))?;
    if status.success() {
        return Ok(());
    }
    let said: Vec<String> = tail.into_inner().into_iter().collect();
    Err(reason(&said).unwrap_or_else(|| match status.code() {
        Some(code) => format!("{program} exited with status {code}"),
        None => format!("{program} was killed by a signal"),
    }))
}

/// The lines of an installer's last words that say why it failed: from its
/// first error line on (uv's `error:` or `×`, pip's `ERROR:`), without the
/// lines that only say which interpreter it used.
fn reason(said: &[String]) -> Option<String> {
    let kept: Vec<&str> = said
        .iter()
        .map(String::as_str)
        .filter(|line| !line.starts_with("Using Python") && !line.starts_with("Using CPython"))
        .collect();
    let first_error = kept.iter().position(|line| {
        let lower = line.trim_start().to_ascii_lowercase();
        lower.starts_with("error") || lower.starts_with('×')
    });
    let from = first_error.unwrap_or(0);
    let mut reason: Vec<&str> = Vec::new();
    // pip says why it found no version (the index refused the connection)
    // only in a warning before its error.
    if let Some(warning) = kept[..from]
        .iter()
        .rev()
        .find(|line| line.starts_with("WARNING: Retrying"))
    {
        reason.push(warning);
    }
    reason.extend(&kept[from..]);
    (!reason.is_empty()).then(|| reason.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    #[test]
    fn the_reason_is_the_error_without_the_interpreter_lines() {
        let uv = lines(
            "Using Python 3.11.7 environment at: .riverse/venv\n\
             error: No solution found when resolving dependencies\n  cause: Because you require six==1.16.0 and six==1.17.0, ...",
        );
        assert_eq!(
            reason(&uv).as_deref(),
            Some(
                "error: No solution found when resolving dependencies\n  cause: Because you require six==1.16.0 and six==1.17.0, ..."
            )
        );
        let pip = lines(
            "Looking in indexes: http://127.0.0.1:9/simple\n\
             WARNING: Retrying (Retry(total=4)) after connection broken: Connection refused: /simple/six/\n\
             WARNING: Retrying (Retry(total=3)) after connection broken: Connection refused: /simple/six/\n\
             ERROR: Could not find a version that satisfies the requirement six==1.17.0 (from versions: none)\n\
             ERROR: No matching distribution found for six==1.17.0",
        );
        assert_eq!(
            reason(&pip).as_deref(),
            Some(
                "WARNING: Retrying (Retry(total=3)) after connection broken: Connection refused: /simple/six/\nERROR: Could not find a version that satisfies the requirement six==1.17.0 (from versions: none)\nERROR: No matching distribution found for six==1.17.0"
            )
        );
        assert_eq!(reason(&lines("Using CPython 3.11.7")), None);
    }
}
