//! Resident memory of the host with a warm pool, and of a worker before it
//! imports any tool, against idle bare interpreters.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail, ensure};
use riverse_python::WorkerPool;

use crate::fixtures::{ChildGuard, TempProject, hold_tool, ready_interpreter};
use crate::procfs::{Memory, children};

/// How long the held call may take to start.
const START_DEADLINE: Duration = Duration::from_secs(30);

pub struct MemoryReport {
    /// A `riverse call` process while its warm worker runs the call.
    pub host: Memory,
    /// That worker, one tool file imported.
    pub host_worker: Memory,
    /// A ready worker of an empty tools directory.
    pub worker: Memory,
    /// An idle `python` waiting on its input.
    pub bare: Memory,
    /// The same with `-S`: no `site`, hence no `.pth` files.
    pub bare_no_site: Memory,
}

pub async fn measure(riverse: &Path, interpreter: &Path) -> anyhow::Result<MemoryReport> {
    let (host, host_worker) = crate::blocking(|| host_during_call(riverse, interpreter))?;
    let worker = idle_worker(interpreter).await?;
    let bare = crate::blocking(|| idle_interpreter(interpreter, &[]))?;
    let bare_no_site = crate::blocking(|| idle_interpreter(interpreter, &["-S"]))?;
    Ok(MemoryReport {
        host,
        host_worker,
        worker,
        bare,
        bare_no_site,
    })
}

/// Runs `riverse call hold`, and reads the host's and its worker's memory while
/// the tool holds the call open.
fn host_during_call(riverse: &Path, interpreter: &Path) -> anyhow::Result<(Memory, Memory)> {
    let project = TempProject::new()?;
    project.tool("hold.py", &hold_tool())?;
    let settings = format!(
        "python: {{interpreter: {:?}}}\n",
        interpreter.display().to_string()
    );
    std::fs::write(project.path().join("settings.yaml"), settings)
        .context("can't write settings.yaml")?;
    let ready = project.path().join("ready");
    let release = project.path().join("release");
    let params = serde_json::json!({"ready": ready, "release": release}).to_string();
    let child = Command::new(riverse)
        .arg("--dir")
        .arg(project.path())
        .args(["call", "hold", "--params", &params])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("can't start {}", riverse.display()))?;
    let mut guard = ChildGuard(child);
    let host_pid = guard.0.id();
    let started = Instant::now();
    while !ready.exists() {
        if let Some(status) = guard.0.try_wait()? {
            bail!("riverse call hold ended before the call started: {status}");
        }
        ensure!(
            started.elapsed() < START_DEADLINE,
            "riverse call hold did not start its call"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let host = Memory::of(host_pid)?;
    let workers = children(host_pid)?;
    let [worker_pid] = workers[..] else {
        bail!("expected one worker under riverse, found {workers:?}");
    };
    let worker = Memory::of(worker_pid)?;
    std::fs::write(&release, "").context("can't release the held call")?;
    let ChildGuard(child) = &mut guard;
    let mut stdout = String::new();
    if let Some(out) = child.stdout.as_mut() {
        std::io::Read::read_to_string(out, &mut stdout)?;
    }
    let status = child.wait()?;
    ensure!(
        status.success() && stdout.trim() == "released",
        "riverse call hold ended with {status}: {stdout:?}"
    );
    Ok((host, worker))
}

/// Starts a pool on an empty tools directory and reads its one worker.
async fn idle_worker(interpreter: &Path) -> anyhow::Result<Memory> {
    let project = TempProject::new()?;
    let own = std::process::id();
    let before = children(own)?;
    let pool = WorkerPool::new(project.python_options(interpreter, 1))?;
    pool.discover().await?;
    let executable = canonical(interpreter)?;
    let mut workers = Vec::new();
    for pid in children(own)? {
        if !before.contains(&pid)
            && canonical(Path::new(&format!("/proc/{pid}/exe"))).ok() == Some(executable.clone())
        {
            workers.push(pid);
        }
    }
    let [worker] = workers[..] else {
        bail!("expected one new worker, found {workers:?}");
    };
    let memory = Memory::of(worker)?;
    drop(pool);
    Ok(memory)
}

/// Starts `python [flags] -c ...` that says it is ready and then waits on its
/// input, and reads its memory.
fn idle_interpreter(interpreter: &Path, flags: &[&str]) -> anyhow::Result<Memory> {
    let guard = ready_interpreter(interpreter, flags)?;
    Memory::of(guard.0.id())
}

fn canonical(path: &Path) -> anyhow::Result<PathBuf> {
    std::fs::canonicalize(path).with_context(|| format!("can't resolve {}", path.display()))
}
