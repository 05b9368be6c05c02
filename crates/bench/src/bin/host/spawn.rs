//! A worker's start, from spawn until it is ready to serve (no tool files to
//! import), against bare interpreter starts.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use riverse_python::{WorkerPool, uncached_worker_args};

use crate::fixtures::{TempProject, ready_interpreter};
use crate::stats::Samples;

/// Lets a killed worker be reaped before the next start is timed.
const SETTLE: Duration = Duration::from_millis(20);

pub struct SpawnTimes {
    /// A new pool's first worker: spawn, handshake, empty discovery.
    pub worker: Samples,
    /// A bare `python` until it writes its first line: the same point for an
    /// interpreter with nothing to import.
    pub bare_ready: Samples,
    /// The same with `-S`: no `site`, hence no `.pth` files.
    pub bare_ready_no_site: Samples,
    /// `python -c pass`, until it has exited: start and finalization.
    pub bare_exit: Samples,
    /// The worker package run from the sources on its command line, with its
    /// input closed: start, compile, imports, exit. Workers run so where
    /// Riverse's cache can't be written (and all ran so before its bytecode
    /// was cached).
    pub script_exit: Samples,
}

pub async fn measure(interpreter: &Path, spawns: usize) -> anyhow::Result<SpawnTimes> {
    let project = TempProject::new()?;
    let mut times = SpawnTimes {
        worker: Samples::with_capacity(spawns),
        bare_ready: Samples::with_capacity(spawns),
        bare_ready_no_site: Samples::with_capacity(spawns),
        bare_exit: Samples::with_capacity(spawns),
        script_exit: Samples::with_capacity(spawns),
    };
    // The first round only warms the page cache.
    for round in 0..=spawns {
        let worker = worker_start(&project, interpreter).await?;
        let bare_ready = crate::blocking(|| first_line(interpreter, &[]))?;
        let bare_ready_no_site = crate::blocking(|| first_line(interpreter, &["-S"]))?;
        let bare_exit = crate::blocking(|| run_to_exit(interpreter, ["-c", "pass"]))?;
        let uncached = uncached_worker_args(project.path());
        let script_exit = crate::blocking(|| run_to_exit(interpreter, &uncached))?;
        if round > 0 {
            times.worker.push(worker);
            times.bare_ready.push(bare_ready);
            times.bare_ready_no_site.push(bare_ready_no_site);
            times.bare_exit.push(bare_exit);
            times.script_exit.push(script_exit);
        }
    }
    Ok(times)
}

async fn worker_start(project: &TempProject, interpreter: &Path) -> anyhow::Result<Duration> {
    let pool = WorkerPool::new(project.python_options(interpreter, 1))?;
    let start = Instant::now();
    let discovery = pool.discover().await?;
    let elapsed = start.elapsed();
    ensure!(
        discovery.files.is_empty(),
        "the empty tools directory yielded {:?}",
        discovery.files
    );
    drop(pool);
    tokio::time::sleep(SETTLE).await;
    Ok(elapsed)
}

/// Time from spawn until `python [flags]` writes a line; the process is then
/// killed.
fn first_line(interpreter: &Path, flags: &[&str]) -> anyhow::Result<Duration> {
    let start = Instant::now();
    let _ready = ready_interpreter(interpreter, flags)?;
    Ok(start.elapsed())
}

/// Time from spawn until `python ARGS`, its input closed, has exited.
fn run_to_exit<I>(interpreter: &Path, args: I) -> anyhow::Result<Duration>
where
    I: IntoIterator,
    I::Item: AsRef<std::ffi::OsStr>,
{
    let start = Instant::now();
    let status = Command::new(interpreter)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .with_context(|| format!("can't start {}", interpreter.display()))?;
    let elapsed = start.elapsed();
    ensure!(
        status.success(),
        "{} failed: {status}",
        interpreter.display()
    );
    Ok(elapsed)
}
