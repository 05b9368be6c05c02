//! Test helpers shared by Riverse's crates.
//!
//! [`Project`] is a temporary Riverse project: a directory with `settings.yaml`
//! and real tool files in `agent/tools/`. Fixture tool files for every failure
//! mode of DESIGN.md section 1 live in `fixtures/` and are reached with
//! [`fixture`]. [`McpProcess`] speaks JSON-RPC on stdio to an MCP server
//! (`riverse mcp`, a standalone worker); [`eventually`] waits for what a test
//! can only poll for. With the `otlp` feature, `otlp::OtlpReceiver` is a test
//! collector that keeps the spans sent to it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

pub mod clients;
mod eventually;
pub mod index;
mod loopback;
mod mcp;
mod once;
pub mod openai;
#[cfg(feature = "otlp")]
pub mod otlp;
pub mod postgres;
mod run;
mod skips;
pub mod venv;
pub mod web;

pub use eventually::{Check, eventually, eventually_async, within};
pub use loopback::Loopback;
pub use mcp::McpProcess;
pub use skips::{SKIPS_VARIABLE, chromium_or_skip, skip};

/// A temporary project directory, removed on drop.
pub struct Project {
    dir: tempfile::TempDir,
}

impl Default for Project {
    fn default() -> Self {
        Self::new()
    }
}

impl Project {
    /// An empty project with an empty `agent/tools/`.
    pub fn new() -> Self {
        let dir = tempfile::Builder::new()
            .prefix("riverse-test-")
            .tempdir()
            .expect("create a temporary project");
        std::fs::create_dir_all(dir.path().join("agent/tools")).expect("create agent/tools");
        Project { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn tools_dir(&self) -> PathBuf {
        self.path().join("agent/tools")
    }

    /// Writes `agent/tools/<file>`.
    pub fn tool(&self, file: &str, source: &str) -> &Self {
        self.file(&format!("agent/tools/{file}"), source)
    }

    /// Copies `fixtures/<name>` into `agent/tools/<name>`.
    pub fn fixture(&self, name: &str) -> &Self {
        self.tool(name, &fixture(name))
    }

    /// The names of the entries of `dir` (relative to the project), sorted;
    /// none when it does not exist: what a tool that leaves files behind
    /// has left so far.
    pub fn file_names(&self, dir: &str) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.path().join(dir))
            .map(|entries| {
                entries
                    .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    /// Writes `settings.yaml`.
    pub fn settings(&self, yaml: &str) -> &Self {
        self.file("settings.yaml", yaml)
    }

    /// Writes any file below the project, creating its directories.
    pub fn file(&self, relative: &str, contents: &str) -> &Self {
        let path = self.path().join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create parent directories");
        }
        std::fs::write(&path, contents).expect("write project file");
        self
    }
}

/// Whether process `pid` is gone: it no longer exists, or is a zombie
/// awaiting its reaper (in a container, the reaper may be slow or absent).
pub fn is_gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

/// Waits up to a minute for process `pid` to be gone; whether it went.
pub fn wait_gone(pid: i32) -> bool {
    within(std::time::Duration::from_secs(60), || is_gone(pid)).is_some()
}

/// The text of `fixtures/<name>`.
pub fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|err| panic!("read fixture {}: {err}", path.display()))
}

/// A tool file defining one simple tool `name` whose `execute` body is `body`
/// (Python, indented by the caller's 8 spaces or none; it is re-indented).
pub fn simple_tool(name: &str, body: &str) -> String {
    let body: String = body
        .trim_matches('\n')
        .lines()
        .map(|line| format!("        {}\n", line.trim_start_matches("        ")))
        .collect();
    format!(
        r#"from agent.tools import BaseTool, ToolManifest, ToolResult


class Tool_{name}(BaseTool):
    def manifest(self):
        return ToolManifest(name="{name}", description="test tool {name}", parameters={{}})

    def execute(self, params):
{body}"#
    )
}
