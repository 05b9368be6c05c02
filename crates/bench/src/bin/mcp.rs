//! Round trip of one `tools/call` of a trivial Python tool through `riverse mcp`,
//! beside the same call through a server made with the official MCP Python
//! SDK. The client is a minimal one of our own: newline-delimited JSON-RPC on
//! the server's stdin and stdout, one call at a time, no SDK, so what is
//! measured is the server. `tools/list`, which involves no Python, is measured
//! too: it is the cost of the MCP layer alone. The baseline, in the same run:
//! the same client and requests against a minimal Python child that answers
//! each line with a canned reply (one pipe each way and CPython's JSON: the
//! floor of any server with a Python tool behind it). Issue 14's goal for
//! `riverse mcp`, which adds a second pipe round trip to its worker: at most
//! twice the baseline, at p50 and p99. Beside it, the floor of any host that
//! keeps its tools in a process of their own: the same minimal child behind
//! a relay that does nothing but pass each line on (this binary, run with
//! `--relay`: blocking reads and writes, no parsing), so two pipe round
//! trips and no work.
//!
//! Then the oversized-request stream (issue 28): requests of 40 MB, their id
//! first or last, each followed by a `ping` on the same stream. `riverse mcp`
//! discards each as it streams by and answers it with an error carrying its
//! id; the figure is the time to that answer beside the minimal child's time
//! to read and parse the same line, and every `ping` must be answered.
//!
//! ```sh
//! cargo build --release -p riverse -p riverse-bench && target/release/mcp
//! ```
//!
//! The SDK server runs on the interpreter of the test environment
//! (`target/test-venvs/mcp`, made by `scripts/test` or the first MCP test), or
//! `--python PATH`.

use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Parser;
use riverse_bench::StdioPeer;
use serde_json::json;

#[derive(Parser)]
#[command(about = "MCP round trip: riverse mcp beside the MCP Python SDK's server")]
struct Args {
    /// The `riverse` binary (default: the one next to this benchmark).
    #[arg(long)]
    riverse: Option<PathBuf>,
    /// An interpreter with the `mcp` package, for the SDK server (default:
    /// target/test-venvs/mcp).
    #[arg(long)]
    python: Option<PathBuf>,
    /// The interpreter of Riverse's worker and of the baseline child
    /// (default: found as Riverse finds it).
    #[arg(long)]
    tool_python: Option<String>,
    /// Calls measured per server, after the warm-up.
    #[arg(long, default_value_t = 5000)]
    calls: usize,
    /// Calls made first and not measured.
    #[arg(long, default_value_t = 500)]
    warmup: usize,
    /// Run as the two-hop floor's relay in front of this interpreter's
    /// minimal child, instead of measuring.
    #[arg(long, hide = true)]
    relay: Option<PathBuf>,
}

/// The sandbox of `riverse init`'s settings.yaml.
const INIT_SANDBOX: &str = "  sandbox:
    read: [\".\"]
    write: []
    network: [443]
    memory_mb: 2048
    processes: 64
    if_unsupported: run
";

/// The same tool as an MCP Python SDK server.
const SDK_SERVER: &str = r#"from mcp.server.mcpserver import MCPServer

server = MCPServer("ping")


@server.tool()
def ping() -> str:
    """Answers pong"""
    return "pong"


server.run()
"#;

/// The baseline: a Python child answering every request with a canned reply,
/// as the minimal MCP-shaped peer the client could talk to.
const MINIMAL_SERVER: &str = r#"
import json, sys

TOOL = {"name": "ping", "description": "Answers pong", "inputSchema": {"type": "object"}}
for line in sys.stdin:
    request = json.loads(line)
    if "id" not in request:
        continue
    method = request["method"]
    if method == "tools/call":
        result = {"content": [{"type": "text", "text": "pong"}], "isError": False}
    elif method == "tools/list":
        result = {"tools": [TOOL]}
    else:
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "minimal", "version": "0"}}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}) + "\n")
    sys.stdout.flush()
"#;

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("mcp bench: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> anyhow::Result<()> {
    if let Some(python) = args.relay {
        return relay(&python);
    }
    if args.calls == 0 {
        bail!("--calls must be at least 1");
    }
    let riverse = riverse_bench::riverse_binary(args.riverse)?;
    let python = riverse_bench::mcp_python(args.python)?;
    let project = tempfile::tempdir()?;
    let tool_python =
        riverse_python::resolve_interpreter(args.tool_python.as_deref(), project.path())?
            .executable;
    std::fs::write(
        project.path().join("settings.yaml"),
        format!(
            "python:\n  interpreter: {:?}\n",
            tool_python.display().to_string()
        ),
    )?;
    let tools = project.path().join("agent/tools");
    std::fs::create_dir_all(&tools)?;
    std::fs::write(tools.join("ping.py"), riverse_bench::PING_TOOL)?;
    std::fs::write(project.path().join("sdk_server.py"), SDK_SERVER)?;
    let sandboxed = sandboxed_project(&tool_python)?;

    let mut riverse_cmd = Command::new(&riverse);
    riverse_cmd.arg("--dir").arg(project.path()).arg("mcp");
    let mut sandboxed_cmd = Command::new(&riverse);
    sandboxed_cmd.arg("--dir").arg(sandboxed.path()).arg("mcp");
    let mut sdk_cmd = Command::new(&python);
    sdk_cmd.arg(project.path().join("sdk_server.py"));
    let mut minimal_cmd = Command::new(&tool_python);
    minimal_cmd.arg("-c").arg(MINIMAL_SERVER);
    let mut relay_cmd = Command::new(std::env::current_exe()?);
    relay_cmd.arg("--relay").arg(&tool_python);

    println!(
        "MCP round trip of a trivial Python tool ({} calls after {} warm-up)",
        args.calls, args.warmup
    );
    println!(
        "tool interpreter: {}; SDK server: {}",
        tool_python.display(),
        python.display()
    );
    let (warmup, calls) = (args.warmup, args.calls);
    let floor = measure(&mut minimal_cmd, Request::CallPing, warmup, calls)
        .context("the minimal python child")?;
    let two_hops = measure(&mut relay_cmd, Request::CallPing, warmup, calls)
        .context("the minimal child behind a relay")?;
    let ours =
        measure(&mut riverse_cmd, Request::CallPing, warmup, calls).context("riverse mcp")?;
    let ours_sandboxed = measure(&mut sandboxed_cmd, Request::CallPing, warmup, calls)
        .context("riverse mcp, sandboxed")?;
    let sdk =
        measure(&mut sdk_cmd, Request::CallPing, warmup, calls).context("MCP Python SDK server")?;
    let ours_list =
        measure(&mut riverse_cmd, Request::ListTools, warmup, calls).context("riverse mcp")?;
    let floor_list = measure(&mut minimal_cmd, Request::ListTools, warmup, calls)
        .context("the minimal python child")?;
    let sdk_list = measure(&mut sdk_cmd, Request::ListTools, warmup, calls)
        .context("MCP Python SDK server")?;
    print_table(&[
        ("minimal python child, tools/call", &floor),
        ("the same behind a bare relay", &two_hops),
        ("riverse mcp, tools/call ping", &ours),
        ("riverse mcp, init's sandbox, tools/call", &ours_sandboxed),
        ("MCP Python SDK (MCPServer), tools/call", &sdk),
        ("riverse mcp, tools/list", &ours_list),
        ("minimal python child, tools/list", &floor_list),
        ("MCP Python SDK (MCPServer), tools/list", &sdk_list),
    ]);
    let ratio = |ours: Duration, base: Duration| ours.as_secs_f64() / base.as_secs_f64();
    let (p50_ratio, p99_ratio) = (ratio(ours.p50, floor.p50), ratio(ours.p99, floor.p99));
    let verdict = |met: bool| if met { "met" } else { "missed" };
    println!(
        "tools/call: riverse mcp takes {p50_ratio:.2}x the minimal child at p50 ({}), {p99_ratio:.2}x at p99 ({}); issue 43's goal: <= 2x at p50, <= 3x at p99",
        verdict(p50_ratio <= 2.0),
        verdict(p99_ratio <= 3.0)
    );
    println!(
        "tools/call: the two-hop floor (a bare relay before the minimal child) is {:.2}x the minimal child at p50; riverse mcp is {:.2}x the two-hop floor at p50, {:.2}x at p99",
        ratio(two_hops.p50, floor.p50),
        ratio(ours.p50, two_hops.p50),
        ratio(ours.p99, two_hops.p99)
    );
    println!(
        "tools/call in riverse init's sandbox: {:.2}x the minimal child at p50, {:.2}x at p99 (issue 43's goal: <= 2x at p50, <= 3x at p99)",
        ratio(ours_sandboxed.p50, floor.p50),
        ratio(ours_sandboxed.p99, floor.p99)
    );
    println!(
        "tools/call: riverse mcp is {:.1}x faster at p50, {:.1}x at p99 (goal: p50 <= 50 µs and >= 20x)",
        sdk.p50.as_secs_f64() / ours.p50.as_secs_f64(),
        sdk.p99.as_secs_f64() / ours.p99.as_secs_f64()
    );
    println!(
        "tools/list: riverse mcp is {:.1}x faster at p50",
        sdk_list.p50.as_secs_f64() / ours_list.p50.as_secs_f64()
    );
    compare_oversized(&mut riverse_cmd, &mut minimal_cmd)
}

/// The oversized-request stream through `riverse mcp` beside the minimal
/// child's parse of the same lines.
fn compare_oversized(riverse: &mut Command, minimal: &mut Command) -> anyhow::Result<()> {
    let ours = oversized(riverse, OVERSIZED_ROUNDS).context("riverse mcp")?;
    let floor = oversized(minimal, OVERSIZED_ROUNDS).context("the minimal python child")?;
    println!(
        "{OVERSIZED_MB} MB requests (id first, then last), {OVERSIZED_ROUNDS} each followed by a ping: riverse mcp answers each with its error in {:.1} ms at p50 ({:.0} MB/s), the minimal child parses it in {:.1} ms ({:.2}x); every ping answered",
        ours.as_secs_f64() * 1e3,
        OVERSIZED_MB as f64 / ours.as_secs_f64(),
        floor.as_secs_f64() * 1e3,
        ours.as_secs_f64() / floor.as_secs_f64()
    );
    Ok(())
}

/// The two-hop floor's relay: starts the minimal child on `python` and
/// passes each line of stdin to it, and each of its lines back, waiting for
/// the answer of each request (a line with an id) before reading on.
fn relay(python: &std::path::Path) -> anyhow::Result<()> {
    use std::io::{BufRead, BufReader, Write};
    let mut child = Command::new(python)
        .arg("-c")
        .arg(MINIMAL_SERVER)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .context("can't start the minimal child")?;
    let (Some(mut to_child), Some(from_child)) = (child.stdin.take(), child.stdout.take()) else {
        bail!("the minimal child's stdio could not be captured");
    };
    let mut from_child = BufReader::new(from_child);
    let (stdin, stdout) = (std::io::stdin(), std::io::stdout());
    let (mut requests, mut replies) = (stdin.lock(), stdout.lock());
    let (mut request, mut reply) = (Vec::new(), Vec::new());
    loop {
        request.clear();
        if requests.read_until(b'\n', &mut request)? == 0 {
            break;
        }
        to_child.write_all(&request)?;
        to_child.flush()?;
        if !request.windows(4).any(|window| window == b"\"id\"") {
            continue; // a notification: the child answers none
        }
        reply.clear();
        if from_child.read_until(b'\n', &mut reply)? == 0 {
            break;
        }
        replies.write_all(&reply)?;
        replies.flush()?;
    }
    drop(to_child);
    child.wait()?;
    Ok(())
}

/// Each server and request's p50, p99 and mean.
fn print_table(rows: &[(&str, &Stats)]) {
    println!(
        "{:<40} {:>10} {:>10} {:>10}",
        "server, request", "p50", "p99", "mean"
    );
    for (name, stats) in rows {
        println!(
            "{:<40} {:>10} {:>10} {:>10}",
            name,
            micros(stats.p50),
            micros(stats.p99),
            micros(stats.mean)
        );
    }
}

/// The same project with the sandbox `riverse init` writes (issue 43: a
/// fresh project runs its tools sandboxed).
fn sandboxed_project(tool_python: &std::path::Path) -> anyhow::Result<tempfile::TempDir> {
    let project = tempfile::tempdir()?;
    std::fs::write(
        project.path().join("settings.yaml"),
        format!(
            "python:\n  interpreter: {:?}\n{INIT_SANDBOX}",
            tool_python.display().to_string()
        ),
    )?;
    let tools = project.path().join("agent/tools");
    std::fs::create_dir_all(&tools)?;
    std::fs::write(tools.join("ping.py"), riverse_bench::PING_TOOL)?;
    Ok(project)
}

/// The size of an oversized request, over `riverse mcp`'s 8 MiB limit.
const OVERSIZED_MB: usize = 40;
const OVERSIZED_ROUNDS: usize = 6;

/// The median time from writing an oversized request to its answer, each
/// followed by a `ping` that must be answered too.
fn oversized(command: &mut Command, rounds: usize) -> anyhow::Result<Duration> {
    let mut server = StdioPeer::start(command.stderr(Stdio::null()))?;
    let text = "x".repeat(OVERSIZED_MB << 20);
    let mut samples = Vec::with_capacity(rounds);
    for round in 0..rounds as u64 {
        let (id, ping) = (1000 + 2 * round, 1001 + 2 * round);
        let params = json!({"name": "ping", "arguments": {"text": text}});
        // TypeScript's SDK writes the id last.
        let line = if round % 2 == 0 {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
                .to_string()
        } else {
            format!(r#"{{"method":"tools/call","params":{params},"jsonrpc":"2.0","id":{id}}}"#)
        };
        let started = Instant::now();
        server.send_line(&(line + "\n"))?;
        server.send_line(&Request::CallPing.line(ping))?;
        server.reply(id)?;
        samples.push(started.elapsed());
        let reply = server.reply(ping)?;
        if !reply.contains(Request::CallPing.expected()) {
            bail!("the ping after an oversized request got: {reply}");
        }
    }
    server.close()?;
    samples.sort();
    Ok(samples[samples.len() / 2])
}

fn micros(duration: Duration) -> String {
    format!("{:.1} µs", duration.as_secs_f64() * 1e6)
}

struct Stats {
    p50: Duration,
    p99: Duration,
    mean: Duration,
}

/// What is sent, and a piece of text its reply must contain.
#[derive(Clone, Copy)]
enum Request {
    /// `tools/call` of `ping`: the whole path, the Python tool included.
    CallPing,
    /// `tools/list`: the MCP layer alone, no Python involved.
    ListTools,
}

impl Request {
    fn line(self, id: u64) -> String {
        let message = match self {
            Request::CallPing => json!({
                "jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "ping", "arguments": {}}
            }),
            Request::ListTools => {
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {}})
            }
        };
        format!("{message}\n")
    }

    fn expected(self) -> &'static str {
        match self {
            Request::CallPing => "pong",
            Request::ListTools => "\"ping\"",
        }
    }
}

fn measure(
    command: &mut Command,
    request: Request,
    warmup: usize,
    calls: usize,
) -> anyhow::Result<Stats> {
    let mut server = StdioPeer::start(command.stderr(Stdio::null()))?;
    let mut samples = Vec::with_capacity(calls);
    for id in 1..=(warmup + calls) as u64 {
        let line = request.line(id);
        let started = Instant::now();
        server.send_line(&line)?;
        let reply = server.reply(id)?;
        let elapsed = started.elapsed();
        if !reply.contains(request.expected()) {
            bail!("unexpected reply: {reply}");
        }
        if id as usize > warmup {
            samples.push(elapsed);
        }
    }
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    let total: Duration = samples.iter().sum();
    Ok(Stats {
        p50: at(0.50),
        p99: at(0.99),
        mean: total / samples.len().max(1) as u32,
    })
}
