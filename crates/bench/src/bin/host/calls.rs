//! A warm call of a trivial tool through the registry, against the same call
//! made by a minimal parent of a minimal Python child.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail, ensure};
use riverse_python::python_tools;
use riverse_tool::{Params, Registry, RegistryOptions};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

use crate::fixtures::{ChildGuard, PIPE_CHILD, TempProject, echo_tool};
use crate::procfs::{children, cpu_time};
use crate::stats::Samples;

/// Calls made before any is timed, per contender, so every process and cache
/// is warm.
const WARMUP: usize = 1_000;

/// Calls timed in a row before the next contender takes its turn. Taking turns
/// spreads the noise of a shared machine over all contenders alike.
const BLOCK: usize = 1_000;

/// One contender's timed calls.
#[derive(Default)]
pub struct Contender {
    pub wall: Samples,
    /// CPU time of the calling process during the timed calls.
    pub host_cpu: Duration,
    /// CPU time of the Python process serving them.
    pub child_cpu: Duration,
}

impl Contender {
    fn new(calls: usize) -> Self {
        Contender {
            wall: Samples::with_capacity(calls),
            ..Contender::default()
        }
    }

    /// CPU per call, on each side.
    pub fn cpu_per_call(&self) -> (Duration, Duration) {
        let calls = self.wall.len().max(1) as u32;
        (self.host_cpu / calls, self.child_cpu / calls)
    }
}

/// CPU times of the host and of one child, read before and after a block.
struct CpuMeter {
    child: u32,
    host: Duration,
    served: Duration,
}

impl CpuMeter {
    fn start(child: u32) -> anyhow::Result<Self> {
        Ok(CpuMeter {
            child,
            host: cpu_time(std::process::id())?,
            served: cpu_time(child)?,
        })
    }

    fn stop(self, into: &mut Contender) -> anyhow::Result<()> {
        into.host_cpu += cpu_time(std::process::id())?.saturating_sub(self.host);
        into.child_cpu += cpu_time(self.child)?.saturating_sub(self.served);
        Ok(())
    }
}

pub struct CallTimes {
    pub registry: Contender,
    /// A blocking Rust parent: write a line, read a line.
    pub pipe: Contender,
    /// The same parent on the async runtime, in one task.
    pub pipe_async: Contender,
}

pub async fn measure(interpreter: &Path, calls: usize) -> anyhow::Result<CallTimes> {
    let project = TempProject::new()?;
    project.tool("echo.py", &echo_tool())?;
    let before = children(std::process::id())?;
    let found = python_tools(project.python_options(interpreter, 2)).await;
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

    let mut times = CallTimes {
        registry: Contender::new(calls),
        pipe: Contender::new(calls),
        pipe_async: Contender::new(calls),
    };
    let mut warmup = Samples::default();
    call_registry(&registry, WARMUP, &mut warmup).await?;
    let started: Vec<u32> = children(std::process::id())?
        .into_iter()
        .filter(|pid| !before.contains(pid))
        .collect();
    // Sequential calls reuse one worker: the host's child, or the child of
    // the fork server the host started.
    let mut workers = Vec::new();
    for pid in started {
        let forked = children(pid)?;
        workers.extend(if forked.is_empty() { vec![pid] } else { forked });
    }
    let [worker] = workers[..] else {
        bail!("expected one worker after the warm-up calls, found {workers:?}");
    };
    let mut sync_child = PipeChild::spawn(interpreter)?;
    let mut async_child = AsyncPipeChild::spawn(interpreter)?;
    crate::blocking(|| sync_child.calls(WARMUP, &mut warmup))?;
    async_child.calls(WARMUP, &mut warmup).await?;

    let mut done = 0;
    while done < calls {
        let block = BLOCK.min(calls - done);
        let meter = CpuMeter::start(worker)?;
        call_registry(&registry, block, &mut times.registry.wall).await?;
        meter.stop(&mut times.registry)?;
        let meter = CpuMeter::start(sync_child.guard.0.id())?;
        crate::blocking(|| sync_child.calls(block, &mut times.pipe.wall))?;
        meter.stop(&mut times.pipe)?;
        let meter = CpuMeter::start(async_child.pid)?;
        async_child.calls(block, &mut times.pipe_async.wall).await?;
        meter.stop(&mut times.pipe_async)?;
        done += block;
    }
    Ok(times)
}

/// The echo tool's parameters, as each timed call sends them.
pub(crate) fn echo_params() -> Params {
    let mut params = Params::new();
    params.insert("text".into(), Value::String("hi".into()));
    params
}

/// `calls` warm calls of the echo tool through `registry`, each timed.
pub(crate) async fn call_registry(
    registry: &Registry,
    calls: usize,
    samples: &mut Samples,
) -> anyhow::Result<()> {
    for _ in 0..calls {
        let params = echo_params();
        let start = Instant::now();
        let result = registry.call("echo", params).await?;
        samples.push(start.elapsed());
        ensure!(
            result.success && result.data == "hi",
            "echo answered {result:?}"
        );
    }
    Ok(())
}

fn request_line(id: u64) -> String {
    let request = json!({"jsonrpc": "2.0", "id": id, "method": "call", "params": echo_params()});
    let mut line = request.to_string();
    line.push('\n');
    line
}

fn check_reply(line: &str, id: u64) -> anyhow::Result<()> {
    let reply: Value =
        serde_json::from_str(line).with_context(|| format!("unreadable reply {line:?}"))?;
    if reply["id"] != id || reply["result"]["data"] != "hi" {
        bail!("the baseline child answered {line:?} to call {id}");
    }
    Ok(())
}

fn spawn_child(interpreter: &Path) -> anyhow::Result<std::process::Child> {
    Command::new(interpreter)
        .args(["-c", PIPE_CHILD])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .with_context(|| format!("can't start {}", interpreter.display()))
}

pub(crate) struct PipeChild {
    guard: ChildGuard,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
    next_id: u64,
}

impl PipeChild {
    pub(crate) fn spawn(interpreter: &Path) -> anyhow::Result<Self> {
        let mut guard = ChildGuard(spawn_child(interpreter)?);
        let (Some(stdin), Some(stdout)) = (guard.0.stdin.take(), guard.0.stdout.take()) else {
            bail!("the baseline child's pipes were not captured");
        };
        Ok(PipeChild {
            guard,
            stdin,
            stdout: BufReader::new(stdout),
            next_id: 0,
        })
    }

    pub(crate) fn calls(&mut self, calls: usize, samples: &mut Samples) -> anyhow::Result<()> {
        let mut reply = String::new();
        for _ in 0..calls {
            self.next_id += 1;
            let id = self.next_id;
            let start = Instant::now();
            let line = request_line(id);
            self.stdin.write_all(line.as_bytes())?;
            self.stdin.flush()?;
            reply.clear();
            self.stdout.read_line(&mut reply)?;
            check_reply(&reply, id)?;
            samples.push(start.elapsed());
        }
        ensure!(
            self.guard.0.try_wait()?.is_none(),
            "the baseline child exited"
        );
        Ok(())
    }
}

struct AsyncPipeChild {
    // Held for its kill-on-drop.
    _child: tokio::process::Child,
    pid: u32,
    stdin: tokio::process::ChildStdin,
    stdout: tokio::io::BufReader<tokio::process::ChildStdout>,
    next_id: u64,
}

impl AsyncPipeChild {
    fn spawn(interpreter: &Path) -> anyhow::Result<Self> {
        let mut child = tokio::process::Command::new(interpreter)
            .args(["-c", PIPE_CHILD])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .with_context(|| format!("can't start {}", interpreter.display()))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            bail!("the baseline child's pipes were not captured");
        };
        let pid = child.id().context("the baseline child has no pid")?;
        Ok(AsyncPipeChild {
            _child: child,
            pid,
            stdin,
            stdout: tokio::io::BufReader::new(stdout),
            next_id: 0,
        })
    }

    async fn calls(&mut self, calls: usize, samples: &mut Samples) -> anyhow::Result<()> {
        let mut reply = String::new();
        for _ in 0..calls {
            self.next_id += 1;
            let id = self.next_id;
            let start = Instant::now();
            let line = request_line(id);
            self.stdin.write_all(line.as_bytes()).await?;
            self.stdin.flush().await?;
            reply.clear();
            self.stdout.read_line(&mut reply).await?;
            check_reply(&reply, id)?;
            samples.push(start.elapsed());
        }
        Ok(())
    }
}
