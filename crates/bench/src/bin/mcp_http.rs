//! `tools/call` of a trivial Python tool over MCP's streamable HTTP transport
//! on loopback: `riverse mcp --http` beside a server made with the official
//! MCP Python SDK (`MCPServer`, its streamable HTTP app under uvicorn), in
//! the same run. Clients are minimal ones of our own on a shared
//! keep-alive connection pool: each opens a session with the initialize
//! handshake (which both servers speak), then makes its calls one at a
//! time. At concurrency 1 and 16: calls per second, and p50/p99 latency.
//! The SDK's server is measured on kept-alive connections and with a new
//! connection per call, its better case (see `fresh` below).
//!
//! ```sh
//! cargo build --release -p riverse -p riverse-bench && target/release/mcp_http
//! ```
//!
//! Riverse runs the tool on `--workers` Python workers (default 8). The SDK
//! server runs on the interpreter of the test environment
//! (`target/test-venvs/mcp`, made by `scripts/test` or the first MCP test), or
//! `--python PATH`.

// The host benchmark's statistics; this one uses only part of them.
#[path = "host/stats.rs"]
#[allow(dead_code)]
mod stats;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::Instant;

use anyhow::{Context, ensure};
use clap::Parser;
use serde_json::{Value, json};
use stats::{Samples, format_duration};

/// The concurrency levels measured.
const LEVELS: [usize; 2] = [1, 16];

/// The protocol version of the handshake both servers speak.
const PROTOCOL_VERSION: &str = "2025-06-18";

#[derive(Parser)]
#[command(
    about = "MCP tools/call over loopback HTTP: riverse mcp --http beside the MCP Python SDK"
)]
struct Args {
    /// The `riverse` binary (default: the one next to this benchmark).
    #[arg(long)]
    riverse: Option<PathBuf>,
    /// An interpreter with the `mcp` package (default: target/test-venvs/mcp).
    #[arg(long)]
    python: Option<PathBuf>,
    /// Calls measured per server and level, after the warm-up.
    #[arg(long, default_value_t = 4000)]
    calls: usize,
    /// Calls made first at each level and not measured.
    #[arg(long, default_value_t = 400)]
    warmup: usize,
    /// Python workers of `riverse mcp --http` (`python.workers`).
    #[arg(long, default_value_t = 8)]
    workers: usize,
}

/// The same tool in an MCP Python SDK server over streamable HTTP, on a free
/// loopback port that it prints.
const SDK_SERVER: &str = r#"import socket

import anyio
import uvicorn
from mcp.server.mcpserver import MCPServer

server = MCPServer("ping")


@server.tool()
def ping() -> str:
    """Answers pong"""
    return "pong"


sock = socket.socket()
sock.bind(("127.0.0.1", 0))
sock.listen(128)
print(f"serving http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
config = uvicorn.Config(server.streamable_http_app(), log_level="warning")
anyio.run(uvicorn.Server(config).serve, [sock])
"#;

fn main() -> ExitCode {
    riverse_bench::run_async("mcp_http", run(Args::parse()))
}

async fn run(args: Args) -> anyhow::Result<()> {
    ensure!(args.calls > 0, "--calls must be at least 1");
    let riverse_bin = riverse_bench::riverse_binary(args.riverse)?;
    let python = riverse_bench::mcp_python(args.python)?;
    let project = tempfile::tempdir()?;
    let tools = project.path().join("agent/tools");
    std::fs::create_dir_all(&tools)?;
    std::fs::write(tools.join("ping.py"), riverse_bench::PING_TOOL)?;
    std::fs::write(
        project.path().join("settings.yaml"),
        format!("python: {{workers: {}}}\n", args.workers),
    )?;
    std::fs::write(project.path().join("sdk_server.py"), SDK_SERVER)?;

    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(64)
        .tcp_nodelay(true)
        .build()?;

    let mut riverse_cmd = Command::new(&riverse_bin);
    riverse_cmd
        .arg("--dir")
        .arg(project.path())
        .args(["mcp", "--http", "127.0.0.1:0"])
        .env_remove("RIVERSE_TOKEN");
    let mut sdk_cmd = Command::new(&python);
    sdk_cmd.arg(project.path().join("sdk_server.py"));

    println!(
        "MCP tools/call of a trivial Python tool over loopback HTTP ({} calls per level after {} warm-up; riverse on {} Python workers)",
        args.calls, args.warmup, args.workers
    );
    println!(
        "{:<36} {:>6} {:>10} {:>10} {:>10}",
        "server", "conc.", "calls/s", "p50", "p99"
    );
    // A connection per call: on a kept-alive connection the SDK's server
    // waits for the client's delayed ACK (about 40 ms) before each reply is
    // complete; a new connection, acknowledged at once, is its best case.
    let fresh = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .tcp_nodelay(true)
        .build()?;
    let riverse = HttpServer::start(&mut riverse_cmd).context("riverse mcp --http")?;
    let sdk = HttpServer::start(&mut sdk_cmd).context("MCP Python SDK server")?;
    let mut results = Vec::new();
    for (name, server, client) in [
        ("riverse mcp --http", &riverse, &client),
        ("MCP Python SDK (MCPServer, uvicorn)", &sdk, &client),
        ("MCP Python SDK, a connection a call", &sdk, &fresh),
    ] {
        for concurrency in LEVELS {
            let mut level = measure(client, &server.url, concurrency, args.warmup, args.calls)
                .await
                .with_context(|| format!("{name} at concurrency {concurrency}"))?;
            println!(
                "{name:<36} {concurrency:>6} {:>10.0} {:>10} {:>10}",
                level.per_second,
                format_duration(level.latency.median()),
                format_duration(level.latency.percentile(99.0)),
            );
            results.push((name, concurrency, level));
        }
    }
    for concurrency in LEVELS {
        // calls/s, p50 and p99 of each server at this level.
        let mut of = |server: &str| -> Vec<(f64, f64, f64)> {
            results
                .iter_mut()
                .filter(|(name, level, _)| name.starts_with(server) && *level == concurrency)
                .map(|(_, _, level)| {
                    (
                        level.per_second,
                        level.latency.median().as_secs_f64(),
                        level.latency.percentile(99.0).as_secs_f64(),
                    )
                })
                .collect()
        };
        let ours = of("riverse");
        // The SDK's better way of the two, by calls/s.
        let sdk = of("MCP").into_iter().max_by(|a, b| a.0.total_cmp(&b.0));
        if let (Some(ours), Some(sdk)) = (ours.first(), sdk) {
            println!(
                "concurrency {concurrency}: riverse serves {:.1}x the calls/s of the SDK's best, {:.1}x faster at p50, {:.1}x at p99",
                ours.0 / sdk.0,
                sdk.1 / ours.1,
                sdk.2 / ours.2
            );
        }
    }
    Ok(())
}

/// A server process, killed when dropped, and its `/mcp` URL from the
/// first line that names one (stderr for Riverse, stdout for the SDK's).
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    fn start(command: &mut Command) -> anyhow::Result<HttpServer> {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .context("can't start the server")?;
        let stdout = child.stdout.take().context("no stdout")?;
        let stderr = child.stderr.take().context("no stderr")?;
        let (found, url) = std::sync::mpsc::channel::<String>();
        for stream in [
            Box::new(stdout) as Box<dyn std::io::Read + Send>,
            Box::new(stderr),
        ] {
            let found = found.clone();
            // Read to the end, so that the server never blocks on a full pipe.
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines() {
                    let Ok(line) = line else { break };
                    if let Some(url) = line
                        .split_whitespace()
                        .find(|word| word.starts_with("http://") && word.ends_with("/mcp"))
                    {
                        let _ = found.send(url.to_owned());
                    }
                }
            });
        }
        let url = url
            .recv_timeout(std::time::Duration::from_secs(60))
            .context("the server did not say where it listens within a minute")?;
        Ok(HttpServer { child, url })
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Level {
    per_second: f64,
    latency: Samples,
}

/// `calls` calls from `concurrency` clients, each in a session of its own,
/// after `warmup` untimed ones.
async fn measure(
    client: &reqwest::Client,
    url: &str,
    concurrency: usize,
    warmup: usize,
    calls: usize,
) -> anyhow::Result<Level> {
    let mut sessions = Vec::with_capacity(concurrency);
    for _ in 0..concurrency {
        sessions.push(Session::open(client.clone(), url).await?);
    }
    let warm_each = warmup.div_ceil(concurrency);
    let calls_each = calls.div_ceil(concurrency);
    let run = |sessions: Vec<Session>, each: usize| async move {
        let handles: Vec<_> = sessions
            .into_iter()
            .map(|mut session| {
                tokio::spawn(async move {
                    let mut took = Vec::with_capacity(each);
                    for _ in 0..each {
                        let started = Instant::now();
                        session.call_ping().await?;
                        took.push(started.elapsed());
                    }
                    anyhow::Ok((session, took))
                })
            })
            .collect();
        let mut sessions = Vec::new();
        let mut all = Vec::new();
        for handle in handles {
            let (session, took) = handle.await??;
            sessions.push(session);
            all.extend(took);
        }
        anyhow::Ok((sessions, all))
    };
    let (sessions, _) = run(sessions, warm_each).await?;
    let started = Instant::now();
    let (sessions, took) = run(sessions, calls_each).await?;
    let elapsed = started.elapsed();
    for session in sessions {
        session.close().await;
    }
    let mut latency = Samples::with_capacity(took.len());
    for one in took {
        latency.push(one);
    }
    Ok(Level {
        per_second: latency.len() as f64 / elapsed.as_secs_f64(),
        latency,
    })
}

/// One client session: its id, and the next request id.
struct Session {
    client: reqwest::Client,
    url: String,
    id: String,
    next: u64,
}

impl Session {
    async fn open(client: reqwest::Client, url: &str) -> anyhow::Result<Session> {
        let initialize = json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": PROTOCOL_VERSION, "capabilities": {},
                       "clientInfo": {"name": "riverse-bench", "version": "1"}}
        });
        let reply = client
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(initialize.to_string())
            .send()
            .await?
            .error_for_status()?;
        let id = reply
            .headers()
            .get("mcp-session-id")
            .and_then(|id| id.to_str().ok())
            .context("no mcp-session-id in the reply to initialize")?
            .to_owned();
        let _ = reply.text().await?;
        let mut session = Session {
            client,
            url: url.to_owned(),
            id,
            next: 1,
        };
        session
            .post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await?;
        Ok(session)
    }

    async fn post(&mut self, message: &Value) -> anyhow::Result<String> {
        let reply = self
            .client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", &self.id)
            .header("mcp-protocol-version", PROTOCOL_VERSION)
            .body(message.to_string())
            .send()
            .await?
            .error_for_status()?;
        Ok(reply.text().await?)
    }

    async fn call_ping(&mut self) -> anyhow::Result<()> {
        let id = self.next;
        self.next += 1;
        let reply = self
            .post(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                           "params": {"name": "ping", "arguments": {}}}))
            .await?;
        ensure!(
            reply.contains("pong") && !reply.contains("\"isError\":true"),
            "unexpected reply: {reply}"
        );
        Ok(())
    }

    /// Ends the session, as a client going away does.
    async fn close(self) {
        let _ = self
            .client
            .delete(&self.url)
            .header("mcp-session-id", &self.id)
            .header("mcp-protocol-version", PROTOCOL_VERSION)
            .send()
            .await;
    }
}
