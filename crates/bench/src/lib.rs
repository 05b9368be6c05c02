//! What the bench binaries share: running a measurement on the runtime Riverse
//! itself uses ([`run_async`]), and an MCP peer spoken to in newline-delimited
//! JSON-RPC over a child's stdio ([`StdioPeer`]), lean enough to time.

use std::future::Future;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitCode, ExitStatus, Stdio};

use anyhow::{Context, bail};
use serde_json::{Value, json};

/// The trivial drop-in tool the MCP benches serve: `ping` answers `pong`.
pub const PING_TOOL: &str = r#"from agent.tools import BaseTool, ToolManifest, ToolResult


class PingTool(BaseTool):
    def manifest(self):
        return ToolManifest(name="ping", description="Answers pong", parameters={})

    def execute(self, params):
        return ToolResult(success=True, data="pong")
"#;

/// The `riverse` binary to measure: `given`, else the one beside this bench.
pub fn riverse_binary(given: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    let riverse = match given {
        Some(path) => path,
        None => std::env::current_exe()?.with_file_name("riverse"),
    };
    if !riverse.is_file() {
        bail!(
            "no riverse binary at {}; build it with cargo build --release -p riverse",
            riverse.display()
        );
    }
    Ok(riverse)
}

/// An interpreter with the official `mcp` package: `given`, else the test
/// environment `scripts/test` makes.
pub fn mcp_python(given: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    let python = given.unwrap_or_else(|| {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/test-venvs/mcp/bin/python")
    });
    if !python.is_file() {
        bail!(
            "no interpreter with the mcp package at {}; run scripts/test or cargo test -p riverse-mcp once, or pass --python",
            python.display()
        );
    }
    Ok(python)
}

/// Runs `measure` on a two-thread runtime, as `riverse` runs its commands;
/// an error is printed after `name` and fails the process.
pub fn run_async(name: &str, measure: impl Future<Output = anyhow::Result<()>>) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("{name}: can't start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(measure) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("{name}: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// A child speaking MCP on its stdin and stdout; killed when dropped.
pub struct StdioPeer {
    child: Child,
    /// `None` once [`StdioPeer::close`] has ended the session.
    stdin: Option<BufWriter<ChildStdin>>,
    stdout: BufReader<ChildStdout>,
    line: String,
}

impl StdioPeer {
    /// Starts `command` with piped stdin and stdout (its stderr is the
    /// caller's to set) and completes the MCP handshake.
    pub fn start(command: &mut Command) -> anyhow::Result<StdioPeer> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .context("can't start the server")?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            bail!("the server's stdio could not be captured");
        };
        let mut peer = StdioPeer {
            child,
            stdin: Some(BufWriter::new(stdin)),
            stdout: BufReader::new(stdout),
            line: String::new(),
        };
        peer.send(&json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "riverse-bench", "version": "0"}
            }
        }))?;
        peer.reply(0)?;
        peer.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        Ok(peer)
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn send(&mut self, message: &Value) -> anyhow::Result<()> {
        self.send_line(&format!("{message}\n"))
    }

    /// Writes `line` (which ends with a newline) as it is.
    pub fn send_line(&mut self, line: &str) -> anyhow::Result<()> {
        let Some(stdin) = self.stdin.as_mut() else {
            bail!("the session is closed");
        };
        stdin.write_all(line.as_bytes())?;
        stdin.flush()?;
        Ok(())
    }

    /// Reads lines until the reply to `id`, skipping notifications. A cheap
    /// text check keeps JSON parsing out of what is timed.
    pub fn reply(&mut self, id: u64) -> anyhow::Result<&str> {
        let ends = [
            format!("\"id\":{id},"),
            format!("\"id\":{id}}}"),
            format!("\"id\": {id},"),
            format!("\"id\": {id}}}"),
        ];
        loop {
            self.line.clear();
            if self.stdout.read_line(&mut self.line)? == 0 {
                bail!("the server closed its stdout");
            }
            if ends.iter().any(|end| self.line.contains(end.as_str())) {
                return Ok(&self.line);
            }
        }
    }

    /// Ends the session by closing stdin, and waits for the server to exit.
    pub fn close(&mut self) -> anyhow::Result<ExitStatus> {
        self.stdin = None;
        Ok(self.child.wait()?)
    }
}

impl Drop for StdioPeer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
