//! Runs the real `riverse` binary in a temporary project.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use riverse_test_support::Project;
use riverse_test_support::index::{PackageIndex, installing_from};
use serde_json::{Value, json};

/// How one run ended.
#[derive(Debug)]
pub struct Ran {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    /// Asserts the exit status, showing everything the run wrote when it differs.
    pub fn exits(&self, code: i32) -> &Self {
        assert_eq!(self.code, code, "unexpected exit status: {self:#?}");
        self
    }
}

/// `riverse ARGS` run in `dir`, with nothing from the caller's environment
/// that would change which settings it reads, and the packages tool files
/// declare installed from the loopback index.
pub fn riverse_in(dir: &Path, args: &[&str]) -> Command {
    riverse_with_index(dir, args, &PackageIndex::shared().url())
}

/// [`riverse_in`], its packages installed from `index_url`.
pub fn riverse_with_index(dir: &Path, args: &[&str], index_url: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_riverse"));
    command
        .args(args)
        .current_dir(dir)
        .env_remove("RIVERSE_CONFIG")
        .env_remove("RUST_LOG")
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .env_remove("VIRTUAL_ENV");
    installing_from(&mut command, index_url);
    command
}

pub fn run(mut command: Command) -> Ran {
    let output = command.output().expect("run riverse");
    Ran {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

/// `riverse ARGS` run in the project's directory.
pub fn riverse(project: &Project, args: &[&str]) -> Ran {
    run(riverse_in(project.path(), args))
}

/// A project holding the given fixtures.
pub fn project(fixtures: &[&str]) -> Project {
    let project = Project::new();
    for fixture in fixtures {
        project.fixture(fixture);
    }
    project
}

/// `riverse mcp` on stdio: one process, many calls.
pub struct McpSession {
    riverse: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: u64,
}

impl McpSession {
    /// Starts `command` (a `riverse … mcp`), its stderr dropped, and
    /// opens the session.
    pub fn start(mut command: Command) -> Self {
        let mut riverse = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = riverse.stdout.take().unwrap();
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut session = McpSession {
            stdin: riverse.stdin.take().unwrap(),
            riverse,
            lines,
            next_id: 1,
        };
        session.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "1"}}),
        );
        session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        session
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
    }

    /// Sends a request and waits (a minute at most) for its reply.
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .expect("riverse mcp answered within a minute");
            let reply: Value = serde_json::from_str(&line).unwrap();
            if reply["id"] == json!(id) {
                return reply;
            }
        }
    }

    /// (succeeded, the text of the result: its text blocks, a line each).
    pub fn call(&mut self, tool: &str, arguments: Value) -> (bool, String) {
        let reply = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let result = &reply["result"];
        let text: String = result["content"]
            .as_array()
            .map(|blocks| {
                blocks
                    .iter()
                    .filter_map(|block| block["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_else(|| reply.to_string());
        (result["isError"] != json!(true), text)
    }
}

impl Drop for McpSession {
    fn drop(&mut self) {
        let _ = self.riverse.kill();
        let _ = self.riverse.wait();
    }
}
