//! Benchmarks of the drop-in tool system: calls, worker starts, `riverse
//! tools`, parallel calls, memory and sandboxed workers, each against a
//! baseline measured in the same run. Prints a table of medians (p99 where a goal asks for it), ratios
//! and the goals of issues 2 and 14.
//!
//! ```sh
//! cargo build --release -p riverse && cargo run --release -p riverse-bench --bin host
//! ```
//!
//! `riverse tools` and the host's memory are measured on the `riverse` binary
//! found next to this one (or `--riverse PATH`).

// A binary's modules sit beside its root file; these live in `host/`, out of
// the way of the other benchmark binaries.

#[path = "host/calls.rs"]
mod calls;
#[path = "host/concurrency.rs"]
mod concurrency;
#[path = "host/features.rs"]
mod features;
#[path = "host/fixtures.rs"]
mod fixtures;
#[path = "host/fork.rs"]
mod fork;
#[path = "host/listing.rs"]
mod listing;
#[path = "host/memory.rs"]
mod memory;
#[path = "host/procfs.rs"]
mod procfs;
#[path = "host/sandbox.rs"]
mod sandbox;
#[path = "host/spawn.rs"]
mod spawn;
#[path = "host/stats.rs"]
mod stats;
#[path = "host/table.rs"]
mod table;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Parser;

use crate::table::Table;

#[derive(Parser)]
#[command(about = "Benchmarks of Riverse's drop-in tool system")]
struct Args {
    /// The `riverse` binary to run (default: the one next to this benchmark).
    #[arg(long)]
    riverse: Option<PathBuf>,
    /// The Python interpreter (default: found as Riverse finds it).
    #[arg(long)]
    python: Option<String>,
    /// Timed warm calls per contender.
    #[arg(long, default_value_t = 20_000)]
    calls: usize,
    /// Timed worker starts.
    #[arg(long, default_value_t = 30)]
    spawns: usize,
    /// Timed runs of `riverse tools --json`.
    #[arg(long, default_value_t = 15)]
    runs: usize,
    /// Tool files for `riverse tools --json`.
    #[arg(long, default_value_t = 200)]
    tools: usize,
    /// The async runtime.
    #[arg(long, value_enum, default_value_t = Runtime::Multi)]
    runtime: Runtime,
    /// Only these benchmarks (default: all).
    #[arg(long, value_enum, value_delimiter = ',')]
    only: Vec<Bench>,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Runtime {
    /// Two worker threads, as the `riverse` binary runs.
    Multi,
    /// One thread.
    Current,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Bench {
    Calls,
    Spawn,
    Tools,
    Parallel,
    Memory,
    /// Forked workers against fresh interpreters (issue 14).
    Fork,
    /// Sandboxed workers against unsandboxed ones.
    Sandbox,
    /// What each configurable feature adds to a warm call (issue 43).
    Features,
}

/// A warm call's goal, as a multiple of the pipe floor of the same run.
const WARM_CALL_GOAL: f64 = 1.3;

/// A sandboxed warm call's goal, as a multiple of an unsandboxed one of the
/// same run.
const SANDBOXED_CALL_GOAL: f64 = 1.1;

/// Parallel calls, and workers, of the parallel benchmark.
const PARALLEL: usize = 8;

fn main() -> ExitCode {
    let args = Args::parse();
    let runtime = match args.runtime {
        Runtime::Multi => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build(),
        Runtime::Current => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
    };
    let outcome = match runtime {
        // As in the `riverse` binary, the work runs as a task on the
        // runtime's threads, not on the thread that blocks on it.
        Ok(runtime) => runtime.block_on(async {
            match tokio::spawn(run(args)).await {
                Ok(outcome) => outcome,
                Err(err) => Err(err.into()),
            }
        }),
        Err(err) => Err(err.into()),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("host bench: {err:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> anyhow::Result<()> {
    let here = std::env::current_dir().context("can't read the current directory")?;
    let interpreter = riverse_python::resolve_interpreter(args.python.as_deref(), &here)?;
    let python = interpreter.executable.clone();
    let wants = |bench: Bench| args.only.is_empty() || args.only.contains(&bench);
    let riverse = if wants(Bench::Tools) || wants(Bench::Memory) {
        Some(riverse_binary(args.riverse.as_deref())?)
    } else {
        None
    };
    print_setup(&python, riverse.as_deref(), args.runtime);

    let mut table = Table::default();
    if wants(Bench::Calls) {
        time_calls(&mut table, &python, args.calls).await?;
    }
    if wants(Bench::Spawn) {
        time_spawns(&mut table, &python, args.spawns).await?;
    }
    if let (true, Some(riverse)) = (wants(Bench::Tools), &riverse) {
        time_listing(&mut table, riverse, &python, args.runs, args.tools)?;
    }
    if wants(Bench::Parallel) {
        time_parallel(&mut table, &python).await?;
    }
    if let (true, Some(riverse)) = (wants(Bench::Memory), &riverse) {
        measure_memory(&mut table, riverse, &python).await?;
    }
    if wants(Bench::Fork) {
        time_fork(&mut table, &python, args.spawns).await?;
    }
    if wants(Bench::Sandbox) {
        time_sandbox(&mut table, &python, args.calls, args.spawns).await?;
    }
    if wants(Bench::Features) {
        time_features(&mut table, &python, args.calls)?;
    }
    print!("{}", table.render());
    Ok(())
}

/// What the results depend on: the interpreter, the binary, the machine's
/// load, the environment and the runtime.
fn print_setup(python: &Path, riverse: Option<&Path>, runtime: Runtime) {
    println!("Riverse host benchmarks");
    println!("python:  {} ({})", python.display(), python_version(python));
    if let Some(riverse) = riverse {
        println!("riverse: {}", riverse.display());
    }
    println!(
        "cpus:    {}, load {} (1-minute average at the start)",
        std::thread::available_parallelism().map_or(0, |cpus| cpus.get()),
        load_average()
    );
    // Both change what Python does at every start.
    for var in ["PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED"] {
        if let Some(value) = std::env::var_os(var) {
            println!("env:     {var}={}", value.to_string_lossy());
        }
    }
    let runtime = match runtime {
        Runtime::Multi => "two worker threads",
        Runtime::Current => "one thread",
    };
    println!("runtime: {runtime}");
    println!();
}

/// Warm calls through the registry against a pipe to a child (issue 14).
async fn time_calls(table: &mut Table, python: &Path, count: usize) -> anyhow::Result<()> {
    eprintln!("timing {count} warm calls per contender...");
    let mut times = calls::measure(python, count).await?;
    let pipe_p50 = times.pipe.wall.median();
    let pipe_p99 = times.pipe.wall.percentile(99.0);
    // Issue 14: at most 1.3 times the pipe floor measured in this run.
    let goal_p50 = pipe_p50.mul_f64(WARM_CALL_GOAL);
    let goal_p99 = pipe_p99.mul_f64(WARM_CALL_GOAL);
    let baseline = "pipe NDJSON child";
    table.time(
        "warm call via registry, p50",
        times.registry.wall.median(),
        Some((baseline, pipe_p50)),
        Some(goal_p50),
    );
    table.time(
        "warm call via registry, p99",
        times.registry.wall.percentile(99.0),
        Some((baseline, pipe_p99)),
        Some(goal_p99),
    );
    table.time(
        "  async parent, same child, p50",
        times.pipe_async.wall.median(),
        Some((baseline, pipe_p50)),
        None,
    );
    table.time(
        "  async parent, same child, p99",
        times.pipe_async.wall.percentile(99.0),
        Some((baseline, pipe_p99)),
        None,
    );
    let (pipe_host, pipe_child) = times.pipe.cpu_per_call();
    let (host, worker) = times.registry.cpu_per_call();
    let (async_host, async_child) = times.pipe_async.cpu_per_call();
    table.time(
        "  cpu per call: host",
        host,
        Some(("blocking parent", pipe_host)),
        None,
    );
    table.time(
        "  cpu per call: python worker",
        worker,
        Some(("baseline child", pipe_child)),
        None,
    );
    table.time(
        "  cpu per call: async parent",
        async_host,
        Some(("blocking parent", pipe_host)),
        None,
    );
    table.time(
        "  cpu per call: its child",
        async_child,
        Some(("baseline child", pipe_child)),
        None,
    );
    table.note(format!(
        "calls: {} each, the contenders taking turns in blocks; cpu from each thread's /proc schedstat; warm call goals: {WARM_CALL_GOAL}x the pipe floor",
        times.registry.wall.len()
    ));
    Ok(())
}

/// Worker starts against bare interpreter starts.
async fn time_spawns(table: &mut Table, python: &Path, spawns: usize) -> anyhow::Result<()> {
    eprintln!("timing {spawns} worker starts...");
    let mut times = spawn::measure(python, spawns).await?;
    let ready = ("bare python, first line", times.bare_ready.median());
    let exit = ("python -c pass, to exit", times.bare_exit.median());
    table.time(
        "worker spawn to ready, median",
        times.worker.median(),
        Some(ready),
        Some(Duration::from_millis(40)),
    );
    table.time(
        "  python -S, first line",
        times.bare_ready_no_site.median(),
        Some(ready),
        None,
    );
    table.time("  python -c pass, to exit", exit.1, Some(ready), None);
    table.time(
        "  worker via -c uncached, to exit",
        times.script_exit.median(),
        Some(exit),
        None,
    );
    table.note(format!("{} starts each", times.worker.len()));
    Ok(())
}

/// `riverse tools --json` against the same listing in plain Python.
fn time_listing(
    table: &mut Table,
    riverse: &Path,
    python: &Path,
    runs: usize,
    tools: usize,
) -> anyhow::Result<()> {
    eprintln!("timing {runs} runs of riverse tools --json on {tools} tools...");
    let mut times = blocking(|| listing::measure(riverse, python, tools, runs))?;
    table.time(
        &format!("riverse tools --json, {tools} tools"),
        times.riverse.median(),
        Some(("same in plain python", times.pure_python.median())),
        Some(Duration::from_millis(200)),
    );
    table.time(
        "  riverse tools --json, no tools",
        times.riverse_empty.median(),
        Some(("same in plain python", times.pure_python_empty.median())),
        None,
    );
    let bare = times.bare_start.median();
    table.time(
        &format!("  riverse tools --json, {tools} tools"),
        times.riverse.median(),
        Some(("python -c pass", bare)),
        None,
    );
    table.time(
        "  riverse tools --json, no tools",
        times.riverse_empty.median(),
        Some(("python -c pass", bare)),
        None,
    );
    table.note(format!("{} runs each, whole process", times.riverse.len()));
    Ok(())
}

/// Calls at once on as many workers, warm and cold, against one call alone.
async fn time_parallel(table: &mut Table, python: &Path) -> anyhow::Result<()> {
    eprintln!("timing {PARALLEL} parallel calls...");
    let mut times = concurrency::measure(python, PARALLEL, 5).await?;
    let single = times.single.median();
    let goal = Duration::from_millis(700);
    let what = format!(
        "{PARALLEL} x {} s sleep, {PARALLEL} workers",
        concurrency::NAP
    );
    table.time(
        &format!("{what}, warm"),
        times.warm.median(),
        Some(("one call alone", single)),
        Some(goal),
    );
    table.time(
        &format!("{what}, cold"),
        times.cold,
        Some(("one call alone", single)),
        Some(goal),
    );
    table.note(format!(
        "warm: median of {} batches; cold: the first batch, starting {} workers",
        times.warm.len(),
        PARALLEL - 1
    ));
    Ok(())
}

/// Resident memory of the host and its workers against idle Python.
async fn measure_memory(table: &mut Table, riverse: &Path, python: &Path) -> anyhow::Result<()> {
    eprintln!("reading resident memory...");
    let report = memory::measure(riverse, python).await?;
    table.memory(
        "host (riverse call, warm worker)",
        report.host,
        None,
        Some(15 * 1024),
    );
    table.memory(
        "worker before tool imports",
        report.worker,
        Some(("idle python", report.bare)),
        Some(12 * 1024),
    );
    table.memory(
        "  worker running one tool",
        report.host_worker,
        Some(("idle python", report.bare)),
        None,
    );
    table.memory(
        "  idle python -S",
        report.bare_no_site,
        Some(("idle python", report.bare)),
        None,
    );
    table.note("memory goals are judged on VmRSS".to_owned());
    Ok(())
}

/// Forked workers against fresh interpreters (issue 14).
async fn time_fork(table: &mut Table, python: &Path, spawns: usize) -> anyhow::Result<()> {
    eprintln!(
        "timing forked workers and fresh interpreters, {} tools...",
        fork::TOOLS
    );
    let starts = spawns.min(fork::WORKERS * 2);
    let mut fresh = fork::measure(python, false, starts).await?;
    let mut forked = fork::measure(python, true, starts).await?;
    table.time(
        &format!(
            "additional worker ready, {} tools imported, forked",
            fork::TOOLS
        ),
        forked.add_worker.median(),
        Some(("fresh interpreter", fresh.add_worker.median())),
        Some(Duration::from_millis(5)),
    );
    let workers = fork::WORKERS;
    table.time(
        &format!("{workers} x 0.5 s calls, {workers} workers, first batch, forked"),
        forked.cold_batch,
        Some(("fresh interpreters", fresh.cold_batch)),
        Some(Duration::from_millis(550)),
    );
    table.kib(
        &format!("PSS of {workers} workers, {} tools, forked", fork::TOOLS),
        forked.pss_kib,
        Some(("one fresh worker", fresh.one_worker_pss_kib)),
        Some(2.5),
    );
    table.kib(
        &format!("  PSS of {workers} workers, fresh interpreters"),
        fresh.pss_kib,
        Some(("one fresh worker", fresh.one_worker_pss_kib)),
        None,
    );
    table.note(format!(
        "fork: {starts} additional starts each; the first batch on a fresh pool; PSS summed over the pool's processes, the fork server included"
    ));
    Ok(())
}

/// Sandboxed workers against unsandboxed ones.
async fn time_sandbox(
    table: &mut Table,
    python: &Path,
    calls: usize,
    spawns: usize,
) -> anyhow::Result<()> {
    eprintln!("timing {calls} warm calls and {spawns} pool starts, sandboxed and not...");
    let mut times = sandbox::measure(python, calls, spawns).await?;
    let plain_p50 = times.calls.plain.wall.median();
    let plain_p99 = times.calls.plain.wall.percentile(99.0);
    let baseline = "unsandboxed";
    table.time(
        "sandboxed warm call via registry, p50",
        times.calls.sandboxed.wall.median(),
        Some((baseline, plain_p50)),
        Some(plain_p50.mul_f64(SANDBOXED_CALL_GOAL)),
    );
    table.time(
        "  sandboxed warm call, p99",
        times.calls.sandboxed.wall.percentile(99.0),
        Some((baseline, plain_p99)),
        None,
    );
    table.time(
        "  cpu per call: sandboxed worker",
        times.calls.sandboxed.cpu_per_call(),
        Some(("unsandboxed worker", times.calls.plain.cpu_per_call())),
        None,
    );
    table.time(
        "sandboxed pool to first answer, forked",
        times.forked_start.sandboxed.median(),
        Some((baseline, times.forked_start.plain.median())),
        None,
    );
    table.time(
        "  sandboxed pool to first answer, fresh",
        times.fresh_start.sandboxed.median(),
        Some((baseline, times.fresh_start.plain.median())),
        None,
    );
    table.note(format!(
        "sandbox: read the project, write out/, network off, memory 1024 MB, 64 processes, files 64 MB; calls: {} each, taking turns in blocks; starts: {} each, taking turns, from a new pool through discovery to the first call's answer",
        times.calls.plain.wall.len(),
        times.forked_start.plain.len()
    ));
    table.note(format!(
        "sandboxed call goal: a sandboxed call's p50 within {:.0} % of an unsandboxed one",
        (SANDBOXED_CALL_GOAL - 1.0) * 100.0
    ));
    Ok(())
}

/// What each configured feature adds to a warm call, each beside the call
/// with none (and that one beside the pipe floor), all in the same run.
fn time_features(table: &mut Table, python: &Path, calls: usize) -> anyhow::Result<()> {
    eprintln!("timing {calls} warm calls per configured feature...");
    let mut times = blocking(|| features::measure(python, calls))?;
    let pipe = ("pipe NDJSON child", times.pipe.median());
    let pipe_p99 = ("pipe NDJSON child", times.pipe.percentile(99.0));
    let (_, none) = &mut times.calls[0];
    let floor = ("no feature", none.median());
    let floor_p99 = ("no feature", none.percentile(99.0));
    for (feature, samples) in &mut times.calls {
        let (p50, p99) = (samples.median(), samples.percentile(99.0));
        if *feature == features::Feature::None {
            table.time(&format!("{}, p50", feature.label()), p50, Some(pipe), None);
            table.time(
                &format!("{}, p99", feature.label()),
                p99,
                Some(pipe_p99),
                None,
            );
            continue;
        }
        table.time(&format!("{}, p50", feature.label()), p50, Some(floor), None);
        table.time(
            &format!("{}, p99", feature.label()),
            p99,
            Some(floor_p99),
            None,
        );
    }
    table.note(format!(
        "features: {} calls each, every contender on a thread and one-thread runtime of its own, taking turns in blocks with the pipe floor; sandbox: {}",
        times.pipe.len(),
        "as the sandbox benchmark's"
    ));
    Ok(())
}

/// Runs blocking work (a baseline's synchronous I/O, a child process) without
/// stalling the runtime's other tasks where there are other threads for them.
pub fn blocking<T>(work: impl FnOnce() -> T) -> T {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::current().runtime_flavor() {
        RuntimeFlavor::MultiThread => tokio::task::block_in_place(work),
        _ => work(),
    }
}

/// `--riverse`, else `riverse` next to this binary.
fn riverse_binary(given: Option<&Path>) -> anyhow::Result<PathBuf> {
    let path = match given {
        Some(path) => path.to_owned(),
        None => {
            let own = std::env::current_exe().context("can't locate this benchmark's binary")?;
            own.with_file_name("riverse")
        }
    };
    if !path.is_file() {
        bail!(
            "can't find the riverse binary at {}; build it first (cargo build --release -p riverse) or pass --riverse PATH",
            path.display()
        );
    }
    Ok(path)
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "unknown".into())
}

fn python_version(python: &Path) -> String {
    std::process::Command::new(python)
        .args(["-c", "import sys; print(sys.version.split()[0])"])
        .output()
        .ok()
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned())
        .unwrap_or_else(|| "unknown version".into())
}
