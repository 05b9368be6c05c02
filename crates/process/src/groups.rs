//! Every process group Riverse started, so that all of them can be killed at
//! once, and the descendants that escaped them.
//!
//! A tool may start a child that leaves its worker's process group (`setsid`)
//! and forks again: killing the group misses it. On Linux the host makes itself
//! a child subreaper, so such an orphan is re-parented to Riverse rather than
//! to init; whenever a supervised child ends, and at [`shutdown`], every child
//! of Riverse's that lives in a group of its own but is not a supervised child
//! is killed and reaped (on a thread, never on the runtime). What remains
//! possible: a descendant that escapes while its intermediate parent lives on
//! is only caught once that parent is gone; tools are trusted code.
//!
//! When Riverse is killed outright none of this runs: the Python workers are
//! child subreapers themselves, and each kills what its tools left, whatever
//! its group, once it sees the host gone (the worker package's
//! `lifetime.kill_adopted_children`).

use std::collections::BTreeSet;
use std::sync::Once;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;
use parking_lot::{Condvar, Mutex, MutexGuard};

/// The process groups of supervised children that have not been reaped.
static LIVE: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

/// How many relay threads are still reading a child's stderr.
static RELAYS: Mutex<usize> = Mutex::new(0);
static RELAYS_DONE: Condvar = Condvar::new();

/// Held while a child is spawned and recorded, so that a sweep never takes a
/// child that was just spawned for an escaped one.
pub(crate) fn registering() -> MutexGuard<'static, BTreeSet<i32>> {
    static SUBREAPER: Once = Once::new();
    SUBREAPER.call_once(become_subreaper);
    LIVE.lock()
}

pub(crate) fn forget(pid: i32) {
    LIVE.lock().remove(&pid);
}

/// A process group started with tokio's own `Command` rather than as a
/// [`crate::Child`] (a YAML command tool), known to Riverse as supervised while
/// this lives: the sweep for escaped descendants leaves it alone (else it
/// would take the group's leader for an escaped process, kill it and reap it
/// under its waiting task), and [`kill_all`] kills it. Dropped, it kills the
/// group: what the program started in the background goes with it.
#[derive(Debug)]
pub struct Registered(i32);

impl Registered {
    /// Spawns `command` in a process group of its own and records that group.
    pub fn spawn(
        command: &mut tokio::process::Command,
    ) -> std::io::Result<(tokio::process::Child, Registered)> {
        command.process_group(0);
        let mut live = registering();
        let child = command.spawn()?;
        let pid = child
            .id()
            .and_then(|pid| i32::try_from(pid).ok())
            .ok_or_else(|| std::io::Error::other("the new process has no pid"))?;
        live.insert(pid);
        Ok((child, Registered(pid)))
    }
}

impl Registered {
    /// Kills the whole group (a group already gone is no error).
    pub fn kill(&self) {
        let _ = killpg(Pid::from_raw(self.0), Signal::SIGKILL);
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.kill();
        forget(self.0);
    }
}

#[cfg(target_os = "linux")]
fn become_subreaper() {
    if let Err(err) = nix::sys::prctl::set_child_subreaper(true) {
        tracing::debug!("can't become a child subreaper: {err}");
    }
}

#[cfg(not(target_os = "linux"))]
fn become_subreaper() {}

/// Kills every supervised process group and every escaped descendant. Safe to
/// call from any thread, at any time; the children are reaped by their
/// handles' tasks, or by the kernel when Riverse exits.
pub fn kill_all() {
    let live: Vec<i32> = LIVE.lock().iter().copied().collect();
    for pid in live {
        let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
    }
    kill_escapees();
}

/// Kills every process group Riverse started and waits up to `grace` for what
/// they printed to reach the log. For a command's exit, and for the handler of
/// a signal that ends Riverse.
pub fn shutdown(grace: Duration) {
    kill_all();
    let deadline = Instant::now() + grace;
    crate::sandbox::remove_cgroups(grace);
    let mut running = RELAYS.lock();
    while *running > 0 {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        RELAYS_DONE.wait_for(&mut running, left);
    }
}

/// Counts a relay thread as running until dropped.
pub(crate) struct RelayRunning(());

impl RelayRunning {
    pub(crate) fn start() -> RelayRunning {
        *RELAYS.lock() += 1;
        RelayRunning(())
    }
}

impl Drop for RelayRunning {
    fn drop(&mut self) {
        let mut running = RELAYS.lock();
        *running = running.saturating_sub(1);
        RELAYS_DONE.notify_all();
    }
}

/// Kills Riverse's children that live in a process group other than Riverse's
/// and are not supervised: descendants of a supervised child that escaped its
/// group and were re-parented here. A thread reaps them.
#[cfg(target_os = "linux")]
pub(crate) fn kill_escapees() {
    let escaped = {
        let live = LIVE.lock();
        escaped_children(&live)
    };
    if escaped.is_empty() {
        return;
    }
    for &pid in &escaped {
        tracing::debug!(pid, "killing a process that escaped its worker's group");
        let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
        let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
    }
    let reaper = std::thread::Builder::new()
        .name("reap-escaped".into())
        .stack_size(64 * 1024)
        .spawn(move || {
            for pid in escaped {
                let _ = nix::sys::wait::waitpid(Pid::from_raw(pid), None);
            }
        });
    if let Err(err) = reaper {
        tracing::debug!("can't start a thread to reap escaped processes: {err}");
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn kill_escapees() {}

/// Children of this process whose process group is neither this process's nor
/// a supervised child's.
#[cfg(target_os = "linux")]
fn escaped_children(live: &BTreeSet<i32>) -> Vec<i32> {
    let me = std::process::id() as i32;
    let my_group = nix::unistd::getpgrp().as_raw();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| !live.contains(pid))
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let (parent, group) = parent_and_group(&stat)?;
            (parent == me && group != my_group && !live.contains(&group)).then_some(pid)
        })
        .collect()
}

/// The parent and process group fields of a `/proc/PID/stat` line. The command
/// name in parentheses may itself hold spaces and parentheses.
#[cfg(target_os = "linux")]
fn parent_and_group(stat: &str) -> Option<(i32, i32)> {
    let (_, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_whitespace().skip(1);
    let parent = fields.next()?.parse().ok()?;
    let group = fields.next()?.parse().ok()?;
    Some((parent, group))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn sleeper() -> tokio::process::Command {
        let mut command = tokio::process::Command::new("sleep");
        command.arg("30").process_group(0).kill_on_drop(true);
        command
    }

    /// Issue 21: a YAML command tool's process, in a group of its own, was
    /// taken for an escaped one when a worker ended, killed, and reaped under
    /// the task waiting for it ("No child processes").
    #[tokio::test]
    async fn the_sweep_leaves_registered_groups_alone_and_takes_the_others() {
        let (mut registered, _registration) = Registered::spawn(&mut sleeper()).unwrap();
        let mut unregistered = sleeper().spawn().unwrap();
        let unregistered_pid = Pid::from_raw(unregistered.id().unwrap() as i32);
        kill_escapees();
        // Gone once it has exited (reaped by its task, or by the sweep's thread).
        riverse_test_support::eventually_async(
            Duration::from_secs(20),
            "the sweep to end the escaped process",
            || {
                !matches!(unregistered.try_wait(), Ok(None))
                    || kill(unregistered_pid, None).is_err()
            },
        )
        .await;
        assert_eq!(
            registered.try_wait().unwrap(),
            None,
            "a registered group was swept"
        );
        registered.kill().await.unwrap();
    }

    #[test]
    fn a_stat_line_gives_its_parent_and_group_whatever_the_command_name() {
        assert_eq!(
            parent_and_group("42 (a b) c) S 7 42 42 0 -1"),
            Some((7, 42))
        );
    }
}
