//! Parallel calls of a slow tool, one per worker.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::ensure;
use riverse_python::python_tools;
use riverse_tool::{Params, Registry, RegistryOptions};
use serde_json::Value;
use tokio::task::JoinSet;

use crate::fixtures::{TempProject, nap_tool};
use crate::stats::Samples;

/// How long each call sleeps, in the tool's own terms.
pub const NAP: &str = "0.5";

pub struct ConcurrencyTimes {
    /// The first batch: all but the discovery worker start on demand.
    pub cold: Duration,
    /// Later batches, every worker already running.
    pub warm: Samples,
    /// One call alone on a warm pool.
    pub single: Samples,
}

pub async fn measure(
    interpreter: &Path,
    parallel: usize,
    rounds: usize,
) -> anyhow::Result<ConcurrencyTimes> {
    let project = TempProject::new()?;
    project.tool("nap.py", &nap_tool())?;
    let found = python_tools(project.python_options(interpreter, parallel)).await;
    let registry = Arc::new(Registry::new(found, RegistryOptions::default()));
    ensure!(registry.get("nap").is_some(), "the nap tool did not load");

    let cold = batch(&registry, parallel).await?;
    let mut times = ConcurrencyTimes {
        cold,
        warm: Samples::with_capacity(rounds),
        single: Samples::with_capacity(rounds),
    };
    for _ in 0..rounds {
        times.warm.push(batch(&registry, parallel).await?);
        times.single.push(batch(&registry, 1).await?);
    }
    Ok(times)
}

/// Starts `calls` calls at once and waits for all of them.
pub async fn batch(registry: &Arc<Registry>, calls: usize) -> anyhow::Result<Duration> {
    let start = Instant::now();
    let mut running = JoinSet::new();
    for _ in 0..calls {
        let registry = registry.clone();
        running.spawn(async move {
            let mut params = Params::new();
            params.insert("seconds".into(), Value::String(NAP.into()));
            registry.call("nap", params).await
        });
    }
    while let Some(joined) = running.join_next().await {
        let result = joined??;
        ensure!(result.success, "a nap failed: {}", result.error);
    }
    Ok(start.elapsed())
}
