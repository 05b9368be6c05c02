//! Workers forked from a fork server against fresh interpreters (issue 14),
//! with 200 tool files to import: an additional worker's start, the first
//! batch of parallel calls on a fresh server, and the workers' memory.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use riverse_python::{WorkerPool, python_tools};
use riverse_tool::{Registry, RegistryOptions};

use crate::concurrency;
use crate::fixtures::{TempProject, nap_tool};
use crate::procfs::children;
use crate::stats::Samples;

/// Tool files in the project, each importing a few standard modules.
pub const TOOLS: usize = 200;
/// Workers, and calls in the parallel batch.
pub const WORKERS: usize = 8;

/// One mode's numbers.
pub struct ForkTimes {
    /// An additional worker's start, the tools already imported (by the fork
    /// server, or by nothing for fresh interpreters).
    pub add_worker: Samples,
    /// The first batch of `WORKERS` 0.5 s calls on a fresh pool.
    pub cold_batch: Duration,
    /// PSS summed over every Python process of the pool (the fork server
    /// included) with `WORKERS` workers, in KiB.
    pub pss_kib: u64,
    /// PSS of a pool's single worker, in KiB.
    pub one_worker_pss_kib: u64,
}

pub async fn measure(interpreter: &Path, fork: bool, starts: usize) -> anyhow::Result<ForkTimes> {
    let project = TempProject::new()?;
    for index in 0..TOOLS {
        project.tool(&format!("t{index:03}.py"), &small_tool(index))?;
    }
    project.tool("nap.py", &nap_tool())?;
    let options = |workers: usize| {
        let mut options = project.python_options(interpreter, workers);
        options.fork = fork;
        options
    };

    let mut add_worker = Samples::with_capacity(starts);
    let pool = WorkerPool::new(options(starts + 1))?;
    pool.discover().await?;
    let one_worker_pss_kib = pool_pss()?;
    for _ in 0..starts {
        let start = Instant::now();
        pool.add_worker().await?;
        add_worker.push(start.elapsed());
    }
    drop(pool);
    tokio::time::sleep(Duration::from_millis(200)).await;

    let found = python_tools(options(WORKERS)).await;
    let registry = Arc::new(Registry::new(found, RegistryOptions::default()));
    ensure!(registry.get("nap").is_some(), "the nap tool did not load");
    let cold_batch = concurrency::batch(&registry, WORKERS).await?;
    let pss_kib = pool_pss()?;
    Ok(ForkTimes {
        add_worker,
        cold_batch,
        pss_kib,
        one_worker_pss_kib,
    })
}

/// A tool file like many: a few standard imports and a manifest.
fn small_tool(index: usize) -> String {
    format!(
        r#"import dataclasses, json, re

from agent.tools import BaseTool, ToolManifest, ToolResult

PATTERN = re.compile(r"t{index}\w+")


@dataclasses.dataclass
class Settings{index}:
    depth: int = {index}


class Tool{index}(BaseTool):
    def manifest(self):
        return ToolManifest(name="t{index:03}", description="tool {index}", parameters={{"q": "query"}})

    def execute(self, params):
        return ToolResult(success=True, data=json.dumps(params))
"#
    )
}

/// PSS summed over this process's descendants (the pool's Python processes).
fn pool_pss() -> anyhow::Result<u64> {
    let mut total = 0;
    let mut queue = children(std::process::id())?;
    while let Some(pid) = queue.pop() {
        // A process may end between the listing and the read.
        total += pss_kib(pid).unwrap_or(0);
        queue.extend(children(pid).unwrap_or_default());
    }
    Ok(total)
}

fn pss_kib(pid: u32) -> anyhow::Result<u64> {
    let path = format!("/proc/{pid}/smaps_rollup");
    let text = std::fs::read_to_string(&path).with_context(|| format!("can't read {path}"))?;
    let line = text
        .lines()
        .find_map(|line| line.strip_prefix("Pss:"))
        .with_context(|| format!("{path} has no Pss"))?;
    line.trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .with_context(|| format!("{path}: Pss is not a number"))
}
