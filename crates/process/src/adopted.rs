//! A process Riverse did not start but supervises: a Python worker forked by
//! its generation's fork server.

use std::sync::{Arc, Weak};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::sync::watch;

use crate::relay::{self, Relay, Stderr};
use crate::{Exit, groups};

/// A process another process forked for Riverse, in a process group of its
/// own (its pid). Riverse cannot wait for it: its parent reaps it and reports
/// how it ended through an [`ExitReport`]. Dropping the handle kills the group.
#[derive(Debug)]
pub struct Adopted {
    /// Its pid, which is also its process group's id.
    pid: i32,
    /// Held here so that watchers never see the channel close: a parent that
    /// dies before the child leaves the exit unknown, not reported.
    exit_tx: Arc<watch::Sender<Option<Exit>>>,
    exit: watch::Receiver<Option<Exit>>,
    stderr: Arc<Stderr>,
}

/// Publishes how an adopted process ended; held by whoever reaps it.
#[derive(Debug, Clone)]
pub struct ExitReport {
    pid: i32,
    exit_tx: Weak<watch::Sender<Option<Exit>>>,
}

impl Adopted {
    /// Supervises `pid`, already the leader of its own process group, whose
    /// stderr is read from `stderr` and relayed by `relay`. It joins the groups
    /// [`crate::shutdown`] kills.
    pub fn adopt(
        pid: u32,
        stderr: impl std::io::Read + Send + 'static,
        relay: Relay,
    ) -> std::io::Result<Adopted> {
        let pid = pid as i32;
        let stderr = match relay::start(stderr, relay) {
            Ok(stderr) => stderr,
            Err(err) => {
                let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
                return Err(std::io::Error::other(format!(
                    "can't relay its stderr: {err}"
                )));
            }
        };
        groups::registering().insert(pid);
        let (exit_tx, exit) = watch::channel(None);
        Ok(Adopted {
            pid,
            exit_tx: Arc::new(exit_tx),
            exit,
            stderr,
        })
    }

    pub fn pid(&self) -> u32 {
        self.pid as u32
    }

    /// The handle its reaper reports the exit through.
    pub fn exit_report(&self) -> ExitReport {
        ExitReport {
            pid: self.pid,
            exit_tx: Arc::downgrade(&self.exit_tx),
        }
    }

    /// How it ended, once that has been reported.
    pub fn exit(&self) -> Option<Exit> {
        self.exit.borrow().clone()
    }

    /// Watches for the exit: `None` until it has been reported.
    pub fn exited(&self) -> watch::Receiver<Option<Exit>> {
        self.exit.clone()
    }

    /// Kills its whole process group, unless it is known to have been reaped
    /// (its pid may then be another process's).
    pub fn kill(&self) {
        if self.exit.borrow().is_none() {
            let _ = killpg(Pid::from_raw(self.pid), Signal::SIGKILL);
        }
    }

    /// The last lines it wrote to stderr (control characters escaped).
    pub fn stderr_tail(&self) -> Vec<String> {
        self.stderr.tail()
    }

    /// Waits up to `grace` for its stderr to end.
    pub async fn stderr_ended(&self, grace: Duration) {
        self.stderr.ended_within(grace).await;
    }
}

impl Drop for Adopted {
    fn drop(&mut self) {
        self.kill();
        groups::forget(self.pid);
        // Re-parented to Riverse when its parent died before it, it may now
        // await reaping.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn_blocking(groups::kill_escapees);
        }
    }
}

impl ExitReport {
    pub fn pid(&self) -> u32 {
        self.pid as u32
    }

    /// Records how it ended; what it left running in its group goes with it.
    pub fn report(&self, exit: Exit) {
        let Some(exit_tx) = self.exit_tx.upgrade() else {
            return;
        };
        let _ = killpg(Pid::from_raw(self.pid), Signal::SIGKILL);
        exit_tx.send_replace(Some(exit));
        // A descendant that left its group was re-parented to Riverse.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn_blocking(groups::kill_escapees);
        }
    }
}
