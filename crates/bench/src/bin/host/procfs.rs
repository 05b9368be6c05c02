//! Resident memory and child processes, read from `/proc`.

use std::fs;
use std::time::Duration;

use anyhow::{Context, bail};

/// Resident memory of one process, in KiB as the kernel reports it.
#[derive(Debug, Clone, Copy)]
pub struct Memory {
    /// `VmRSS`: resident now.
    pub rss_kib: u64,
    /// `VmHWM`: the most it was ever resident.
    pub hwm_kib: u64,
}

impl Memory {
    pub fn of(pid: u32) -> anyhow::Result<Memory> {
        let path = format!("/proc/{pid}/status");
        let status = fs::read_to_string(&path).with_context(|| format!("can't read {path}"))?;
        let field = |name: &str| -> anyhow::Result<u64> {
            let line = status
                .lines()
                .find_map(|line| line.strip_prefix(name))
                .with_context(|| format!("{path} has no {name}"))?;
            let kib = line.trim().trim_end_matches("kB").trim();
            kib.parse()
                .with_context(|| format!("{path}: {name} is not a number: {kib:?}"))
        };
        Ok(Memory {
            rss_kib: field("VmRSS:")?,
            hwm_kib: field("VmHWM:")?,
        })
    }
}

/// CPU time (user and system) a process has used so far, summed over its
/// threads, to the nanosecond: the first field of each thread's
/// `/proc/PID/task/TID/schedstat` (the scheduler's own count), where
/// `/proc/PID/stat` counts whole ticks of 10 ms, too coarse for calls of
/// microseconds.
pub fn cpu_time(pid: u32) -> anyhow::Result<Duration> {
    let tasks = format!("/proc/{pid}/task");
    let mut total = 0u64;
    for entry in fs::read_dir(&tasks).with_context(|| format!("can't list {tasks}"))? {
        let Ok(entry) = entry else { continue };
        // A thread may end between the listing and the read.
        let Ok(text) = fs::read_to_string(entry.path().join("schedstat")) else {
            continue;
        };
        let nanos: u64 = text
            .split_whitespace()
            .next()
            .and_then(|field| field.parse().ok())
            .with_context(|| {
                format!("{}/schedstat: unreadable {text:?}", entry.path().display())
            })?;
        total += nanos;
    }
    Ok(Duration::from_nanos(total))
}

/// `12.3 MiB`
pub fn format_kib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

/// The processes whose parent is `pid`.
pub fn children(pid: u32) -> anyhow::Result<Vec<u32>> {
    let mut found = Vec::new();
    for entry in fs::read_dir("/proc").context("can't list /proc")? {
        let Ok(entry) = entry else { continue };
        let Some(child) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<u32>().ok())
        else {
            continue;
        };
        // A process may end between the listing and the read.
        let Ok(stat) = fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        if parent(&stat)? == pid {
            found.push(child);
        }
    }
    found.sort_unstable();
    Ok(found)
}

/// The parent pid in a `/proc/PID/stat` line: `PID (COMM) STATE PPID ...`,
/// where COMM may itself hold spaces and parentheses.
fn parent(stat: &str) -> anyhow::Result<u32> {
    after_command(stat)?
        .split_whitespace()
        .nth(1)
        .and_then(|ppid| ppid.parse().ok())
        .with_context(|| format!("no parent pid in /proc stat line: {stat:?}"))
}

/// A `/proc/PID/stat` line from the state field on.
fn after_command(stat: &str) -> anyhow::Result<&str> {
    match stat.rsplit_once(')') {
        Some((_, rest)) => Ok(rest),
        None => bail!("unreadable /proc stat line: {stat:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parent_is_read_past_a_command_name_with_parentheses() {
        let stat = "4242 (python (x) y) S 17 4242 4242 0 -1 4194560";
        assert_eq!(parent(stat).unwrap(), 17);
    }

    #[test]
    fn cpu_time_grows_while_this_process_computes() {
        let pid = std::process::id();
        let before = cpu_time(pid).unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        let mut after = before;
        let mut spin = 0u64;
        while after == before && std::time::Instant::now() < deadline {
            for _ in 0..1_000_000 {
                spin = std::hint::black_box(spin.wrapping_add(1));
            }
            after = cpu_time(pid).unwrap();
        }
        assert!(after > before, "{after:?} after {before:?}");
    }

    #[test]
    fn this_process_reports_its_memory_and_appears_among_its_parents_children() {
        let memory = Memory::of(std::process::id()).unwrap();
        assert!(
            memory.rss_kib > 0 && memory.hwm_kib >= memory.rss_kib,
            "{memory:?}"
        );
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        let listed = children(std::process::id()).unwrap();
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(
            listed.contains(&child.id()),
            "{listed:?} lacks {}",
            child.id()
        );
    }
}
