//! Temporary projects, the tool files they hold, and the Python programs the
//! baselines run.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::{Context, ensure};
use riverse_python::PythonOptions;
use serde_json::json;

/// A temporary project with `agent/tools/`, removed on drop.
pub struct TempProject {
    dir: tempfile::TempDir,
}

impl TempProject {
    pub fn new() -> anyhow::Result<Self> {
        let dir = tempfile::Builder::new()
            .prefix("riverse-bench-")
            .tempdir()
            .context("can't create a temporary project")?;
        let project = TempProject { dir };
        std::fs::create_dir_all(project.tools_dir())
            .with_context(|| format!("can't create {}", project.tools_dir().display()))?;
        Ok(project)
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn tools_dir(&self) -> PathBuf {
        self.path().join("agent/tools")
    }

    pub fn tool(&self, file: &str, source: &str) -> anyhow::Result<&Self> {
        let path = self.tools_dir().join(file);
        std::fs::write(&path, source).with_context(|| format!("can't write {}", path.display()))?;
        Ok(self)
    }

    /// What the agent would hand the pool for this project with
    /// `python.workers: workers`.
    pub fn python_options(&self, interpreter: &Path, workers: usize) -> PythonOptions {
        PythonOptions {
            interpreter: Some(interpreter.display().to_string()),
            project_dir: self.path().to_owned(),
            tools_dir: PathBuf::from("agent/tools"),
            workers,
            import_timeout: Duration::from_secs(10),
            config: json!({}),
            host: Default::default(),
            limits: riverse_tool::CallLimits::default(),
            env: Default::default(),
            interpreter_hint: None,
            fork: true,
            prestart: false,
            first_worker_fresh: false,
            environment: Default::default(),
            sandbox: None,
            tool_sandboxes: Default::default(),
            tool_secrets: Default::default(),
        }
    }
}

/// A tool file defining tool `name` with one string parameter `param` and the
/// given `execute` body (Python, indented eight spaces).
pub fn tool_source(name: &str, param: &str, body: &str) -> String {
    format!(
        r#"import os
import time

from agent.tools import BaseTool, ToolManifest, ToolResult


class Tool(BaseTool):
    def manifest(self):
        return ToolManifest(
            name="{name}",
            description="Benchmark tool {name}",
            parameters={{"{param}": "what the tool works on"}},
            examples=["Use {name}"],
        )

    def execute(self, params):
{body}
"#
    )
}

/// Echoes `text`: the trivial tool whose calls are timed.
pub fn echo_tool() -> String {
    tool_source(
        "echo",
        "text",
        r#"        return ToolResult(success=True, data=params.get("text", ""))"#,
    )
}

/// Sleeps `seconds`.
pub fn nap_tool() -> String {
    tool_source(
        "nap",
        "seconds",
        r#"        time.sleep(float(params.get("seconds", "0.5")))
        return ToolResult(success=True, data="rested")"#,
    )
}

/// Creates the file `ready`, then waits (at most 30 s) for the file `release`:
/// holds a call open while its host is inspected.
pub fn hold_tool() -> String {
    tool_source(
        "hold",
        "ready",
        r#"        open(params["ready"], "w").close()
        deadline = time.monotonic() + 30
        while not os.path.exists(params["release"]) and time.monotonic() < deadline:
            time.sleep(0.01)
        return ToolResult(success=True, data="released")"#,
    )
}

/// The baseline child of the call benchmark: a trivial handler behind
/// newline-delimited JSON on stdin and stdout, with nothing else.
pub const PIPE_CHILD: &str = r#"
import json, sys

def handle(params):
    return {"success": True, "data": params.get("text", ""), "error": ""}

for line in sys.stdin:
    request = json.loads(line)
    reply = {"jsonrpc": "2.0", "id": request["id"], "result": handle(request["params"])}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
"#;

/// The baseline of the listing benchmark: the same discovery in one plain
/// Python process (its own `agent.tools`, import every file, instantiate,
/// print the manifests as JSON), as a Python implementation of Riverse does it.
/// Run as `python -c PURE_PYTHON_LISTING TOOLS_DIR`.
pub const PURE_PYTHON_LISTING: &str = r#"
import abc, dataclasses, importlib, json, os, sys, types

@dataclasses.dataclass
class ToolManifest:
    name: str
    description: str
    parameters: dict
    examples: list = dataclasses.field(default_factory=list)
    parameter_types: dict = dataclasses.field(default_factory=dict)

@dataclasses.dataclass
class ToolResult:
    success: bool
    data: str
    error: str = ""

class BaseTool(abc.ABC):
    def __init__(self, config):
        self.config = config
    @abc.abstractmethod
    def manifest(self): ...
    @abc.abstractmethod
    def execute(self, params): ...
    def is_available(self):
        return True

tools_dir = sys.argv[1]
agent = types.ModuleType("agent")
agent.__path__ = []
tools = types.ModuleType("agent.tools")
tools.__path__ = [tools_dir]
tools.BaseTool, tools.ToolManifest, tools.ToolResult = BaseTool, ToolManifest, ToolResult
sys.modules["agent"], sys.modules["agent.tools"] = agent, tools

listed = []
for file in sorted(os.listdir(tools_dir)):
    if not file.endswith(".py") or file.startswith("_"):
        continue
    module = importlib.import_module("agent.tools." + file[:-3])
    for obj in list(vars(module).values()):
        if isinstance(obj, type) and issubclass(obj, BaseTool) and obj.__module__ == module.__name__:
            tool = obj({})
            if tool.is_available():
                listed.append(dataclasses.asdict(tool.manifest()))
print(json.dumps({"tools": listed}))
"#;

/// Kills and reaps a child process when dropped, so an early return or a
/// failed measurement leaves nothing running.
pub struct ChildGuard(pub Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `python [flags] -c ...`, which says `ready` and then waits on its
/// input, and returns once it has said so: a bare interpreter, for baselines
/// of start-up time and memory.
pub fn ready_interpreter(interpreter: &Path, flags: &[&str]) -> anyhow::Result<ChildGuard> {
    let child = Command::new(interpreter)
        .args(flags)
        .args([
            "-c",
            "import sys; print('ready', flush=True); sys.stdin.read()",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .with_context(|| format!("can't start {}", interpreter.display()))?;
    let mut guard = ChildGuard(child);
    let mut line = String::new();
    if let Some(out) = guard.0.stdout.take() {
        BufReader::new(out).read_line(&mut line)?;
    }
    ensure!(
        line.trim() == "ready",
        "{} said {line:?}",
        interpreter.display()
    );
    Ok(guard)
}
