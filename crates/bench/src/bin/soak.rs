//! Soak test of `riverse mcp` (issue 13): thousands of `tools/call`s that mix
//! well-behaved tools with crashes, hangs past their deadline, huge results and
//! signals sent to the workers from outside, while Riverse's stderr is a pipe
//! nobody reads. Every `--sample` calls it records Riverse's memory (RSS), its
//! open descriptors and its live descendants; at the end it checks that no
//! process started in the project outlives Riverse.
//!
//! ```sh
//! cargo build -p riverse -p riverse-bench && target/debug/soak --calls 10000
//! ```

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Parser;
use riverse_bench::StdioPeer;
use serde_json::{Value, json};

#[derive(Parser)]
#[command(about = "riverse mcp under crashes, hangs, huge results and signals")]
struct Args {
    /// The `riverse` binary (default: the one next to this benchmark).
    #[arg(long)]
    riverse: Option<PathBuf>,
    #[arg(long, default_value_t = 10_000)]
    calls: usize,
    /// Calls between two samples of memory, descriptors and processes.
    #[arg(long, default_value_t = 1000)]
    sample: usize,
}

/// The tools: one well-behaved, one of each misbehaviour.
const TOOLS: &str = r#"import os, time
from agent.tools import BaseTool, ToolManifest, ToolResult


def manifest(name):
    return ToolManifest(name=name, description=name, parameters={})


class Ping(BaseTool):
    def manifest(self): return manifest("ping")
    def execute(self, params): return ToolResult(success=True, data="pong")


class Pid(BaseTool):
    def manifest(self): return manifest("pid")
    def execute(self, params): return ToolResult(success=True, data=str(os.getpid()))


class Crash(BaseTool):
    def manifest(self): return manifest("crash")
    def execute(self, params): os._exit(1)


class Hang(BaseTool):
    def manifest(self): return manifest("hang")
    def execute(self, params):
        if os.fork() == 0:
            time.sleep(600)
        time.sleep(600)


class Huge(BaseTool):
    def manifest(self): return manifest("huge")
    def execute(self, params): return ToolResult(success=True, data="x" * 50_000_000)
"#;

/// Waits until process `pid` no longer exists (reaped by its parent), or
/// `limit` has passed.
fn gone_within(pid: i32, limit: Duration) {
    let deadline = Instant::now() + limit;
    while Path::new(&format!("/proc/{pid}")).exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(err) => {
            eprintln!("soak: {err:#}");
            ExitCode::from(2)
        }
    }
}

/// What one call is, by its number.
fn tool_for(call: usize) -> &'static str {
    match call % 200 {
        0 => "hang",
        1 | 101 => "crash",
        2 | 52 | 102 | 152 => "huge",
        3 | 103 => "pid", // and its worker is then sent a signal
        _ => "ping",
    }
}

fn run(args: Args) -> anyhow::Result<bool> {
    let riverse = match args.riverse {
        Some(path) => path,
        None => std::env::current_exe()?
            .parent()
            .context("no directory")?
            .join("riverse"),
    };
    let project = tempfile::tempdir()?;
    let tools = project.path().join("agent/tools");
    std::fs::create_dir_all(&tools)?;
    std::fs::write(tools.join("soak.py"), TOOLS)?;
    std::fs::write(
        project.path().join("settings.yaml"),
        "tools:\n  hang: {timeout: 0.5}\n",
    )?;
    let mut server = StdioPeer::start(
        Command::new(&riverse)
            .arg("--dir")
            .arg(project.path())
            .arg("mcp")
            .env("RUST_LOG", "info")
            // Never read: Riverse must not stall on it.
            .stderr(Stdio::piped()),
    )?;

    println!("calls\trss_kib\tfds\tdescendants\tseconds");
    let start = Instant::now();
    let mut samples = Vec::new();
    let mut wrong = 0usize;
    for call in 1..=args.calls {
        let tool = tool_for(call);
        let id = call as u64;
        server.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": {}}}))?;
        let reply: Value = serde_json::from_str(server.reply(id)?)?;
        let failed = reply["result"]["isError"] == json!(true);
        let expected_failure = matches!(tool, "hang" | "crash");
        if failed != expected_failure {
            wrong += 1;
            eprintln!("call {call} ({tool}): unexpected {reply}");
        }
        if tool == "pid" {
            let text = reply["result"]["content"][0]["text"].as_str().unwrap_or("");
            if let Ok(pid) = text.parse::<i32>() {
                let signal = if call % 400 == 3 { "-KILL" } else { "-TERM" };
                Command::new("kill")
                    .args([signal, &pid.to_string()])
                    .status()?;
                // The next call comes once Riverse has reaped the worker: a
                // call sent while the signal is still on its way reaches a live
                // worker and fails with it, as it should.
                gone_within(pid, Duration::from_secs(2));
            }
        }
        if call % args.sample == 0 {
            let sample = Sample::of(server.pid() as i32, call, start.elapsed());
            println!("{sample}");
            samples.push(sample);
        }
    }
    let status = server.close()?;
    // What was started in the project (workers, tools' children) must be gone.
    std::thread::sleep(Duration::from_millis(500));
    let left = processes_in(project.path());
    println!(
        "riverse exited with {status}; wrong results: {wrong}; processes left in the project: {left:?}"
    );
    let (Some(first), Some(last)) = (samples.first(), samples.last()) else {
        bail!("no samples: fewer calls than --sample");
    };
    // A sample may fall while a worker is being replaced (its pipes open
    // beside the old one's), so descriptors are compared as the most either
    // half of the run held: a leak raises the second half's.
    let (early, late) = samples.split_at(samples.len() / 2);
    let most_fds = |half: &[Sample]| half.iter().map(|s| s.fds).max().unwrap_or(0);
    let fds_grew = !early.is_empty() && most_fds(late) > most_fds(early);
    let rss_grew = last.rss_kib > first.rss_kib + 8 * 1024;
    println!(
        "rss {} -> {} KiB, fds at most {} in the first half, {} in the second, {:.1} calls/s",
        first.rss_kib,
        last.rss_kib,
        most_fds(early),
        most_fds(late),
        args.calls as f64 / start.elapsed().as_secs_f64()
    );
    Ok(wrong == 0 && left.is_empty() && !fds_grew && !rss_grew)
}

struct Sample {
    calls: usize,
    rss_kib: u64,
    fds: usize,
    descendants: usize,
    elapsed: Duration,
}

impl Sample {
    fn of(pid: i32, calls: usize, elapsed: Duration) -> Sample {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let rss_kib = status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
            .unwrap_or(0);
        let fds = std::fs::read_dir(format!("/proc/{pid}/fd"))
            .map(|dir| dir.count())
            .unwrap_or(0);
        Sample {
            calls,
            rss_kib,
            fds,
            descendants: descendants(pid),
            elapsed,
        }
    }
}

impl std::fmt::Display for Sample {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}\t{}\t{}\t{}\t{:.1}",
            self.calls,
            self.rss_kib,
            self.fds,
            self.descendants,
            self.elapsed.as_secs_f64()
        )
    }
}

/// (pid, parent) of every live process that is not a zombie.
fn processes() -> Vec<(i32, i32)> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| {
            let pid: i32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let (_, rest) = stat.rsplit_once(')')?;
            let mut fields = rest.split_whitespace();
            let state = fields.next()?;
            let parent = fields.next()?.parse().ok()?;
            (state != "Z").then_some((pid, parent))
        })
        .collect()
}

fn descendants(root: i32) -> usize {
    let all = processes();
    let mut found = vec![root];
    let mut at = 0;
    while at < found.len() {
        let parent = found[at];
        found.extend(
            all.iter()
                .filter(|(_, p)| *p == parent)
                .map(|(pid, _)| *pid),
        );
        at += 1;
    }
    found.len() - 1
}

/// Live processes whose working directory is `dir`.
fn processes_in(dir: &Path) -> Vec<i32> {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_owned());
    processes()
        .into_iter()
        .map(|(pid, _)| pid)
        .filter(|pid| std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd == dir))
        .collect()
}
