//! The supervised child.

use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::sync::watch;

use crate::relay::{self, Relay, Stderr};
use crate::{Exit, groups};

/// A running child and its protocol streams.
#[derive(Debug)]
pub struct Spawned {
    pub child: Child,
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
}

/// A child process in a process group of its own. Dropping the handle kills
/// the group at once, without waiting; a task of the runtime reaps it.
#[derive(Debug)]
pub struct Child {
    /// Its pid, which is also its process group's id.
    pid: i32,
    /// `None` while it runs; then how it ended. Set once, by the reaping task.
    exit: watch::Receiver<Option<Exit>>,
    /// Set once the child is reaped: from then on its pid may be another
    /// process's, and no signal is sent to it.
    reaped: Arc<AtomicBool>,
    stderr: Arc<Stderr>,
}

impl Child {
    /// Starts `command` with piped standard streams in a new process group, its
    /// stderr relayed by `relay`. On Linux the child is sent SIGTERM if Riverse
    /// dies before it (the Python worker then kills its group).
    pub fn spawn(mut command: Command, relay: Relay) -> std::io::Result<Spawned> {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(false);
        set_parent_death_signal(&mut command);
        let mut child = {
            let mut live = groups::registering();
            let child = command.spawn()?;
            let pid = child.id().map(|pid| pid as i32);
            if let Some(pid) = pid {
                live.insert(pid);
            }
            child
        };
        let Some(pid) = child.id().map(|pid| pid as i32) else {
            return Err(std::io::Error::other("it ended before it could be watched"));
        };
        let streams = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let (Some(stdin), Some(stdout), Some(stderr)) = streams else {
            let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
            groups::forget(pid);
            return Err(std::io::Error::other(
                "its standard streams could not be captured",
            ));
        };
        let stderr = match stderr.into_owned_fd() {
            Ok(fd) => relay::start(std::fs::File::from(fd), relay),
            Err(err) => Err(err),
        };
        let stderr = match stderr {
            Ok(stderr) => stderr,
            Err(err) => {
                let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
                groups::forget(pid);
                return Err(std::io::Error::other(format!(
                    "can't relay its stderr: {err}"
                )));
            }
        };
        let (exit_tx, exit) = watch::channel(None);
        let reaped = Arc::new(AtomicBool::new(false));
        let reaped_by_task = reaped.clone();
        tokio::spawn(async move {
            let exit = match child.wait().await {
                Ok(status) => Exit::from_status(status),
                Err(err) => Exit::Unknown(err.to_string()),
            };
            // What it left running in its group goes with it. Members still
            // alive keep the group id from being reused until they are gone.
            let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
            reaped_by_task.store(true, Ordering::Release);
            groups::forget(pid);
            exit_tx.send_replace(Some(exit));
            let _ = tokio::task::spawn_blocking(groups::kill_escapees).await;
        });
        Ok(Spawned {
            child: Child {
                pid,
                exit,
                reaped,
                stderr,
            },
            stdin,
            stdout,
        })
    }

    pub fn pid(&self) -> u32 {
        self.pid as u32
    }

    /// How it ended, once it has.
    pub fn exit(&self) -> Option<Exit> {
        self.exit.borrow().clone()
    }

    /// Watches for the exit: `None` until the child has been reaped.
    pub fn exited(&self) -> watch::Receiver<Option<Exit>> {
        self.exit.clone()
    }

    /// Waits until it has ended.
    pub async fn wait(&self) -> Exit {
        let mut exit = self.exit.clone();
        let ended = exit.wait_for(Option::is_some).await;
        match ended.ok().and_then(|exit| exit.clone()) {
            Some(exit) => exit,
            None => Exit::Unknown("the task that reaps it was stopped".into()),
        }
    }

    /// How it ended, if it does within `grace`.
    pub async fn wait_within(&self, grace: Duration) -> Option<Exit> {
        tokio::time::timeout(grace, self.wait()).await.ok()
    }

    /// Kills its whole process group: the child and anything it started there.
    pub fn kill(&self) {
        if !self.reaped.load(Ordering::Acquire) {
            let _ = killpg(Pid::from_raw(self.pid), Signal::SIGKILL);
        }
    }

    /// The last lines it wrote to stderr (control characters escaped).
    pub fn stderr_tail(&self) -> Vec<String> {
        self.stderr.tail()
    }

    /// Waits up to `grace` for its stderr to end, so that a death is explained
    /// with all it printed. Its own children may hold stderr open: the grace
    /// should be short.
    pub async fn stderr_ended(&self, grace: Duration) {
        self.stderr.ended_within(grace).await;
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Has the program `command` starts sent SIGTERM if Riverse dies before it
/// (Linux): for a child outside Riverse's process group, which the
/// terminal's Ctrl-C does not reach (an installer run as the tools load).
pub fn die_with_riverse(command: &mut Command) {
    set_parent_death_signal(command);
}

/// Asks Linux to send the child SIGTERM when the thread that spawned it ends:
/// Riverse spawns from its runtime's threads, which live as long as it does.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn set_parent_death_signal(command: &mut Command) {
    // SAFETY: the closure runs in the forked child before exec and only makes
    // one system call, which is async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            nix::sys::prctl::set_pdeathsig(Signal::SIGTERM).map_err(std::io::Error::from)
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn set_parent_death_signal(_command: &mut Command) {}
