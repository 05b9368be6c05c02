//! Sandboxed workers (`python.sandbox`: Landlock file and TCP rules, rlimits,
//! a pids cgroup for root, no new privileges) against unsandboxed ones: a
//! warm call of a trivial tool through the registry, and a fresh pool's start
//! until its first call has answered, forked and from fresh interpreters.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, bail, ensure};
use riverse_agent::Settings;
use riverse_python::{PythonOptions, WorkerPool, python_tools, resolve_interpreter};
use riverse_tool::{CallContext, Registry, RegistryOptions};

use crate::calls::{call_registry, echo_params};
use crate::fixtures::{TempProject, echo_tool};
use crate::procfs::{children, cpu_time};
use crate::stats::Samples;

/// Calls made before any is timed, per contender, so every process and cache
/// is warm.
const WARMUP: usize = 1_000;

/// Calls timed in a row before the other contender takes its turn.
const BLOCK: usize = 1_000;

/// Lets a dropped pool's processes be reaped before the next start is timed.
const SETTLE: Duration = Duration::from_millis(20);

/// The first call's deadline.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// The sandbox measured, as `settings.yaml` writes it: the project readable,
/// `out/` writable, no network, 1 GiB of data, 64 processes, 64 MB files.
pub(crate) const SANDBOX_SETTINGS: &str = r#"
python:
  sandbox:
    read: ["."]
    write: ["out"]
    network: false
    memory_mb: 1024
    processes: 64
    file_size_mb: 64
"#;

/// `RLIMIT_DATA` of `memory_mb: 1024`, as `/proc/PID/limits` shows it.
const DATA_LIMIT: &str = "1073741824";

/// One contender's warm calls.
#[derive(Default)]
pub struct Calls {
    pub wall: Samples,
    /// CPU time of the worker serving them.
    pub worker_cpu: Duration,
}

impl Calls {
    fn new(calls: usize) -> Self {
        Calls {
            wall: Samples::with_capacity(calls),
            ..Calls::default()
        }
    }

    pub fn cpu_per_call(&self) -> Duration {
        self.worker_cpu / self.wall.len().max(1) as u32
    }
}

/// A measure without the sandbox and with it, taken in the same run.
pub struct Both<T> {
    pub plain: T,
    pub sandboxed: T,
}

pub struct SandboxTimes {
    pub calls: Both<Calls>,
    /// A fresh pool, workers forked from its fork server: until the first
    /// call's answer (the server's start, discovery, a fork, the call).
    pub forked_start: Both<Samples>,
    /// The same with `fork: false`: each worker a fresh interpreter.
    pub fresh_start: Both<Samples>,
}

pub async fn measure(
    interpreter: &Path,
    calls: usize,
    starts: usize,
) -> anyhow::Result<SandboxTimes> {
    let project = TempProject::new()?;
    project.tool("echo.py", &echo_tool())?;
    let out = project.path().join("out");
    std::fs::create_dir_all(&out).with_context(|| format!("can't create {}", out.display()))?;
    let settings = Settings::from_yaml(project.path(), None, SANDBOX_SETTINGS)
        .context("the benchmark's sandbox settings don't parse")?;
    let sandbox = settings
        .python
        .sandbox
        .context("the benchmark's settings name no python.sandbox")?;
    let options = |sandboxed: bool, fork: bool| {
        let mut options = project.python_options(interpreter, 1);
        options.fork = fork;
        options.sandbox = sandboxed.then(|| sandbox.clone());
        options
    };
    let calls = measure_calls(calls, options(false, true), options(true, true)).await?;
    let mut forked_start = Both {
        plain: Samples::with_capacity(starts),
        sandboxed: Samples::with_capacity(starts),
    };
    let mut fresh_start = Both {
        plain: Samples::with_capacity(starts),
        sandboxed: Samples::with_capacity(starts),
    };
    // The first round only warms the page cache. The contenders swap places
    // every round, so neither always starts just after the other's pool went.
    for round in 0..=starts {
        for (fork, into) in [(true, &mut forked_start), (false, &mut fresh_start)] {
            let first = round % 2 == 1;
            let mut times = [Duration::ZERO; 2];
            for sandboxed in [first, !first] {
                times[usize::from(sandboxed)] = first_answer(options(sandboxed, fork)).await?;
            }
            if round > 0 {
                into.plain.push(times[0]);
                into.sandboxed.push(times[1]);
            }
        }
    }
    Ok(SandboxTimes {
        calls,
        forked_start,
        fresh_start,
    })
}

/// Warm calls through two registries, one per pool, taking turns in blocks.
async fn measure_calls(
    calls: usize,
    plain: PythonOptions,
    sandboxed: PythonOptions,
) -> anyhow::Result<Both<Calls>> {
    let (plain_registry, plain_worker) = warm_registry(plain).await?;
    let (sandboxed_registry, sandboxed_worker) = warm_registry(sandboxed).await?;
    ensure!(
        data_limit(plain_worker)? != DATA_LIMIT,
        "the unsandboxed worker {plain_worker} has the sandbox's data limit"
    );
    ensure!(
        data_limit(sandboxed_worker)? == DATA_LIMIT,
        "the sandboxed worker {sandboxed_worker} is not held by the sandbox's data limit"
    );
    let mut times = Both {
        plain: Calls::new(calls),
        sandboxed: Calls::new(calls),
    };
    let mut done = 0;
    while done < calls {
        let block = BLOCK.min(calls - done);
        let served = cpu_time(plain_worker)?;
        call_registry(&plain_registry, block, &mut times.plain.wall).await?;
        times.plain.worker_cpu += cpu_time(plain_worker)?.saturating_sub(served);
        let served = cpu_time(sandboxed_worker)?;
        call_registry(&sandboxed_registry, block, &mut times.sandboxed.wall).await?;
        times.sandboxed.worker_cpu += cpu_time(sandboxed_worker)?.saturating_sub(served);
        done += block;
    }
    Ok(times)
}

/// A registry of the echo tool, warmed up, and the pid of the one worker
/// serving its sequential calls.
async fn warm_registry(options: PythonOptions) -> anyhow::Result<(Registry, u32)> {
    let before = children(std::process::id())?;
    let found = python_tools(options).await;
    let registry = Registry::new(found, RegistryOptions::default());
    ensure!(
        registry.get("echo").is_some(),
        "the echo tool did not load: {:?}",
        registry
            .entries()
            .iter()
            .map(|entry| entry.error())
            .collect::<Vec<_>>()
    );
    let mut warmup = Samples::default();
    call_registry(&registry, WARMUP, &mut warmup).await?;
    let started: Vec<u32> = children(std::process::id())?
        .into_iter()
        .filter(|pid| !before.contains(pid))
        .collect();
    // The host's child, or the child of the fork server the host started.
    let mut workers = Vec::new();
    for pid in started {
        let forked = children(pid)?;
        workers.extend(if forked.is_empty() { vec![pid] } else { forked });
    }
    let [worker] = workers[..] else {
        bail!("expected one worker after the warm-up calls, found {workers:?}");
    };
    Ok((registry, worker))
}

/// A process's soft `RLIMIT_DATA`, as `/proc/PID/limits` writes it.
fn data_limit(pid: u32) -> anyhow::Result<String> {
    let path = format!("/proc/{pid}/limits");
    let text = std::fs::read_to_string(&path).with_context(|| format!("can't read {path}"))?;
    text.lines()
        .find_map(|line| line.strip_prefix("Max data size"))
        .and_then(|limits| limits.split_whitespace().next())
        .map(str::to_owned)
        .with_context(|| format!("{path} has no data size limit"))
}

/// A fresh pool's start until its first call has answered: the sandbox's
/// preparation, the first interpreter's start, discovery, the call.
async fn first_answer(options: PythonOptions) -> anyhow::Result<Duration> {
    // Finding the interpreter is the same for both contenders, and not timed.
    let interpreter = resolve_interpreter(options.interpreter.as_deref(), &options.project_dir)?;
    let context = CallContext::default();
    let start = Instant::now();
    let pool = WorkerPool::with_interpreter(options, interpreter, Vec::new());
    let discovery = pool.discover().await?;
    let result = pool
        .call("echo", echo_params(), CALL_TIMEOUT, &context)
        .await;
    let elapsed = start.elapsed();
    ensure!(
        discovery.files.len() == 1,
        "the tools directory yielded {:?}",
        discovery.files
    );
    ensure!(
        result.success && result.data == "hi",
        "echo answered {result:?}"
    );
    drop(pool);
    tokio::time::sleep(SETTLE).await;
    Ok(elapsed)
}
