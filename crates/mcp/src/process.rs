//! A stdio MCP server's process: spawned in its own process group, its stderr
//! logged under the server's name, its exit recorded, killed with its children
//! when the handle drops.

use std::collections::{BTreeMap, VecDeque};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{ChildStderr, ChildStdin, ChildStdout, Command};
use tokio::sync::{oneshot, watch};

use crate::Error;

/// How many of the last stderr lines are kept to explain a death.
const STDERR_TAIL_LINES: usize = 5;
/// The most of one stderr line kept for that explanation.
const STDERR_LINE_CHARS: usize = 300;

/// What a stdio server is started with.
pub(crate) struct Launch<'a> {
    pub server: &'a str,
    pub command: &'a str,
    pub args: &'a [String],
    pub env: &'a BTreeMap<String, String>,
    /// The server runs here; a relative command path resolves against it.
    pub dir: &'a Path,
}

/// A running server process. Dropping it kills the process group.
pub(crate) struct ServerProcess {
    /// `None` while running; then how it ended.
    exit: watch::Receiver<Option<String>>,
    /// The last lines the server wrote to stderr.
    tail: Arc<Mutex<VecDeque<String>>>,
    /// Becomes true when stderr ends, so a death is explained with all of it.
    stderr_closed: watch::Receiver<bool>,
    /// Dropped with the handle, which tells the watcher to kill the group.
    _kill: oneshot::Sender<()>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl ServerProcess {
    pub(crate) fn spawn(
        launch: Launch<'_>,
    ) -> Result<(ServerProcess, ChildStdout, ChildStdin), Error> {
        let program = if launch.command.contains('/') {
            launch.dir.join(launch.command)
        } else {
            launch.command.into()
        };
        let spawn_failed = |cause: String| Error::SpawnFailed {
            server: launch.server.to_owned(),
            command: launch.command.to_owned(),
            cause,
        };
        let mut child = Command::new(&program)
            .args(launch.args)
            .envs(launch.env)
            .current_dir(launch.dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Servers started through npx, uv or a shell leave children behind:
            // a group of their own lets one signal end them all.
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .map_err(|err| spawn_failed(err.to_string()))?;
        let pid = child.id().unwrap_or_default();
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(spawn_failed(
                "its standard streams could not be captured".into(),
            ));
        };
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let (closed_tx, stderr_closed) = watch::channel(false);
        let logger = log_stderr(launch.server.to_owned(), stderr, tail.clone());
        tokio::spawn(async move {
            logger.await;
            closed_tx.send_replace(true);
        });
        let (exit_tx, exit) = watch::channel(None);
        let (kill, kill_rx) = oneshot::channel::<()>();
        let server = launch.server.to_owned();
        tokio::spawn(async move {
            let status = tokio::select! {
                status = child.wait() => status,
                _ = kill_rx => {
                    let _ = killpg(Pid::from_raw(pid as i32), Signal::SIGKILL);
                    child.wait().await
                }
            };
            let how = match status {
                Ok(status) => describe_exit(status),
                Err(err) => format!("ended, its exit status unknown ({err})"),
            };
            tracing::debug!(target: "mcp", "{server}: the server {how}");
            exit_tx.send_replace(Some(how));
        });
        Ok((
            ServerProcess {
                exit,
                tail,
                stderr_closed,
                _kill: kill,
            },
            stdout,
            stdin,
        ))
    }

    pub(crate) fn is_running(&self) -> bool {
        self.exit.borrow().is_none()
    }

    /// Why the server is gone, waiting up to `grace` for its exit to be seen,
    /// with the last lines it wrote to stderr.
    pub(crate) async fn death(&self, grace: Duration) -> String {
        let how = self.exit_within(grace).await;
        let how = how.as_deref().unwrap_or("closed its connection");
        format!("the server {how}{}", self.stderr_detail())
    }

    /// How the process ended, if it does within `grace`.
    pub(crate) async fn exit_within(&self, grace: Duration) -> Option<String> {
        let mut exit = self.exit.clone();
        let mut stderr_closed = self.stderr_closed.clone();
        let ended = tokio::time::timeout(grace, exit.wait_for(Option::is_some)).await;
        let how = ended.ok()?.ok()?.clone();
        // Children of the server may hold stderr open: wait only a little.
        let _ = tokio::time::timeout(grace, stderr_closed.wait_for(|closed| *closed)).await;
        how
    }

    /// `; its stderr ended with: ...`, or nothing when it printed nothing.
    pub(crate) fn stderr_detail(&self) -> String {
        let tail = lock(&self.tail);
        if tail.is_empty() {
            return String::new();
        }
        let lines: Vec<&str> = tail.iter().map(String::as_str).collect();
        format!("; its stderr ended with: {}", lines.join(" | "))
    }
}

/// Logs each stderr line under the server's name and keeps the last few.
async fn log_stderr(server: String, stderr: ChildStderr, tail: Arc<Mutex<VecDeque<String>>>) {
    let mut reader = BufReader::new(stderr);
    let mut line = Vec::new();
    while reader
        .read_until(b'\n', &mut line)
        .await
        .is_ok_and(|read| read > 0)
    {
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end();
        tracing::info!(target: "mcp", "{server}: {text}");
        if !text.trim().is_empty() {
            let mut tail = lock(&tail);
            if tail.len() == STDERR_TAIL_LINES {
                tail.pop_front();
            }
            tail.push_back(text.chars().take(STDERR_LINE_CHARS).collect());
        }
        line.clear();
    }
}

/// `exited with status 3`, `was killed by signal SIGSEGV`.
fn describe_exit(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exited with status {code}");
    }
    match status.signal() {
        Some(number) => match Signal::try_from(number) {
            Ok(signal) => format!("was killed by signal {}", signal.as_str()),
            Err(_) => format!("was killed by signal {number}"),
        },
        None => "ended for an unknown reason".to_owned(),
    }
}
