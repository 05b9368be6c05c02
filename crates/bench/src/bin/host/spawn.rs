//! A worker's start, from spawn until it is ready to serve (no tool files to
//! import), against bare interpreter starts.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use riverse_python::{WORKER_SOURCE, WorkerPool};

use crate::fixtures::TempProject;
use crate::stats::Samples;

/// Lets a killed worker be reaped before the next start is timed.
const SETTLE: Duration = Duration::from_millis(20);

pub struct SpawnTimes {
    /// A new pool's first worker: spawn, handshake, empty discovery.
    pub worker: Samples,
    /// `python -c pass`.
    pub bare: Samples,
    /// `python -S -c pass`: no `site`, hence no `.pth` files.
    pub bare_no_site: Samples,
    /// The worker script run as `python -c SOURCE`, with its input closed:
    /// start, compile, imports, exit. Workers ran so before the script's
    /// bytecode was cached.
    pub script: Samples,
}

pub async fn measure(interpreter: &Path, spawns: usize) -> anyhow::Result<SpawnTimes> {
    let project = TempProject::new()?;
    let mut times = SpawnTimes {
        worker: Samples::with_capacity(spawns),
        bare: Samples::with_capacity(spawns),
        bare_no_site: Samples::with_capacity(spawns),
        script: Samples::with_capacity(spawns),
    };
    // The first round only warms the page cache.
    for round in 0..=spawns {
        let worker = worker_start(&project, interpreter).await?;
        tokio::time::sleep(SETTLE).await;
        let bare = crate::blocking(|| run(interpreter, &["-c", "pass"]))?;
        let bare_no_site = crate::blocking(|| run(interpreter, &["-S", "-c", "pass"]))?;
        let script = crate::blocking(|| run(interpreter, &["-c", WORKER_SOURCE]))?;
        if round > 0 {
            times.worker.push(worker);
            times.bare.push(bare);
            times.bare_no_site.push(bare_no_site);
            times.script.push(script);
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

fn run(interpreter: &Path, args: &[&str]) -> anyhow::Result<Duration> {
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
        "{} {} failed: {status}",
        interpreter.display(),
        args[..args.len() - 1].join(" ")
    );
    Ok(elapsed)
}
