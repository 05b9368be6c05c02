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

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Parser;

use crate::procfs::{Memory, format_kib};
use crate::stats::format_duration;

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
    println!("Riverse host benchmarks");
    println!(
        "python:  {} ({})",
        python.display(),
        python_version(&python)
    );
    if let Some(riverse) = &riverse {
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
    let runtime = match args.runtime {
        Runtime::Multi => "two worker threads",
        Runtime::Current => "one thread",
    };
    println!("runtime: {runtime}");
    println!();

    let mut table = Table::default();
    if wants(Bench::Calls) {
        eprintln!("timing {} warm calls per contender...", args.calls);
        let mut times = calls::measure(&python, args.calls).await?;
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
            "calls: {} each, the contenders taking turns in blocks; cpu from /proc, to 10 ms per block; warm call goals: {WARM_CALL_GOAL}x the pipe floor",
            times.registry.wall.len()
        ));
    }
    if wants(Bench::Spawn) {
        eprintln!("timing {} worker starts...", args.spawns);
        let mut times = spawn::measure(&python, args.spawns).await?;
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
    }
    if let (true, Some(riverse)) = (wants(Bench::Tools), &riverse) {
        eprintln!(
            "timing {} runs of riverse tools --json on {} tools...",
            args.runs, args.tools
        );
        let runs = args.runs;
        let tools = args.tools;
        let mut times = blocking(|| listing::measure(riverse, &python, tools, runs))?;
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
    }
    if wants(Bench::Parallel) {
        eprintln!("timing {PARALLEL} parallel calls...");
        let mut times = concurrency::measure(&python, PARALLEL, 5).await?;
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
    }
    if let (true, Some(riverse)) = (wants(Bench::Memory), &riverse) {
        eprintln!("reading resident memory...");
        let report = memory::measure(riverse, &python).await?;
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
    }
    if wants(Bench::Fork) {
        eprintln!(
            "timing forked workers and fresh interpreters, {} tools...",
            fork::TOOLS
        );
        let starts = args.spawns.min(fork::WORKERS * 2);
        let mut fresh = fork::measure(&python, false, starts).await?;
        let mut forked = fork::measure(&python, true, starts).await?;
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
    }
    if wants(Bench::Sandbox) {
        eprintln!(
            "timing {} warm calls and {} pool starts, sandboxed and not...",
            args.calls, args.spawns
        );
        let mut times = sandbox::measure(&python, args.calls, args.spawns).await?;
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
    }
    print!("{}", table.render());
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

/// One line of the results.
struct Row {
    measure: String,
    value: String,
    baseline: String,
    ratio: String,
    goal: String,
    verdict: &'static str,
}

#[derive(Default)]
struct Table {
    rows: Vec<Row>,
    notes: Vec<String>,
}

impl Table {
    fn time(
        &mut self,
        measure: &str,
        value: Duration,
        baseline: Option<(&str, Duration)>,
        goal: Option<Duration>,
    ) {
        self.rows.push(Row {
            measure: measure.to_owned(),
            value: format_duration(value),
            baseline: baseline
                .map(|(name, base)| format!("{name}: {}", format_duration(base)))
                .unwrap_or_default(),
            ratio: baseline
                .map(|(_, base)| ratio(value.as_secs_f64(), base.as_secs_f64()))
                .unwrap_or_default(),
            goal: goal
                .map(|goal| format!("≤ {}", format_duration(goal)))
                .unwrap_or_default(),
            verdict: verdict(goal.map(|goal| value <= goal)),
        });
    }

    fn memory(
        &mut self,
        measure: &str,
        value: Memory,
        baseline: Option<(&str, Memory)>,
        goal_kib: Option<u64>,
    ) {
        let show = |memory: Memory| {
            format!(
                "{} (peak {})",
                format_kib(memory.rss_kib),
                format_kib(memory.hwm_kib)
            )
        };
        self.rows.push(Row {
            measure: measure.to_owned(),
            value: show(value),
            baseline: baseline
                .map(|(name, base)| format!("{name}: {}", show(base)))
                .unwrap_or_default(),
            ratio: baseline
                .map(|(_, base)| ratio(value.rss_kib as f64, base.rss_kib as f64))
                .unwrap_or_default(),
            goal: goal_kib
                .map(|goal| format!("≤ {}", format_kib(goal)))
                .unwrap_or_default(),
            verdict: verdict(goal_kib.map(|goal| value.rss_kib <= goal)),
        });
    }

    /// A size in KiB against a baseline, with a goal as a ratio to it.
    fn kib(
        &mut self,
        measure: &str,
        value: u64,
        baseline: Option<(&str, u64)>,
        goal_ratio: Option<f64>,
    ) {
        let met = baseline
            .zip(goal_ratio)
            .map(|((_, base), goal)| value as f64 <= base as f64 * goal);
        self.rows.push(Row {
            measure: measure.to_owned(),
            value: format_kib(value),
            baseline: baseline
                .map(|(name, base)| format!("{name}: {}", format_kib(base)))
                .unwrap_or_default(),
            ratio: baseline
                .map(|(_, base)| ratio(value as f64, base as f64))
                .unwrap_or_default(),
            goal: goal_ratio
                .map(|goal| format!("≤ {goal}×"))
                .unwrap_or_default(),
            verdict: verdict(met),
        });
    }

    fn note(&mut self, note: String) {
        self.notes.push(note);
    }

    fn render(&self) -> String {
        let header = Row {
            measure: "measure".into(),
            value: "riverse".into(),
            baseline: "baseline".into(),
            ratio: "ratio".into(),
            goal: "goal".into(),
            verdict: "",
        };
        let rows: Vec<&Row> = std::iter::once(&header).chain(&self.rows).collect();
        let width = |field: fn(&Row) -> &str| {
            rows.iter()
                .map(|row| field(row).chars().count())
                .max()
                .unwrap_or(0)
        };
        let widths = [
            width(|row| &row.measure),
            width(|row| &row.value),
            width(|row| &row.baseline),
            width(|row| &row.ratio),
            width(|row| &row.goal),
        ];
        let mut out = String::new();
        for row in rows {
            let cells = [
                &row.measure,
                &row.value,
                &row.baseline,
                &row.ratio,
                &row.goal,
            ];
            let mut line = String::new();
            for (cell, width) in cells.iter().zip(widths) {
                line.push_str(&format!("{cell:width$}  "));
            }
            line.push_str(row.verdict);
            out.push_str(line.trim_end());
            out.push('\n');
        }
        for note in &self.notes {
            out.push_str(&format!("- {note}\n"));
        }
        out
    }
}

fn ratio(value: f64, base: f64) -> String {
    if base > 0.0 {
        format!("{:.2}x", value / base)
    } else {
        String::new()
    }
}

fn verdict(met: Option<bool>) -> &'static str {
    match met {
        Some(true) => "met",
        Some(false) => "MISSED",
        None => "",
    }
}
