//! Hot reload: tool files edited, added, removed and broken under a running
//! `riverse mcp`, driven by the official MCP Python SDK's client, while a
//! slow call is in flight.

use std::path::Path;

use pretty_assertions::assert_eq;
use riverse_test_support::venv::mcp_python;
use riverse_test_support::{Project, fixture};
use serde_json::{Value, json};

/// A tool `name` described as `description` that returns `answer`; given a
/// `release` path, it first writes its worker's pid to `pid_file` and waits
/// for `release` to exist.
fn tool(name: &str, description: &str, answer: &str) -> String {
    format!(
        r#"import os
import time

from agent.tools import BaseTool, ToolManifest, ToolResult


class Tool_{name}(BaseTool):
    def manifest(self):
        return ToolManifest(name="{name}", description="{description}", parameters={{}})

    def execute(self, params):
        release = params.get("release")
        if release:
            with open(params["pid_file"], "w") as file:
                file.write(str(os.getpid()))
            while not os.path.exists(release):
                time.sleep(0.05)
        return ToolResult(success=True, data="{answer}")
"#
    )
}

/// Runs the SDK client (`mode`: `legacy` or `auto`) against `riverse mcp` in
/// `project` through `steps`; what it saw, and what Riverse wrote on stderr.
pub fn drive(project: &Project, mode: &str, steps: Value) -> (Vec<Value>, String) {
    let errlog = project.path().join("riverse-stderr.txt");
    let plan = json!({
        "command": [env!("CARGO_BIN_EXE_riverse"), "--dir", project.path(), "mcp"],
        "mode": mode,
        "tools_dir": project.tools_dir(),
        "errlog": errlog,
        "steps": steps,
    });
    let plan_file = project.path().join("plan.json");
    std::fs::write(&plan_file, plan.to_string()).unwrap();
    let client = project.path().join("mcp_reload_client.py");
    std::fs::write(&client, fixture("mcp_reload_client.py")).unwrap();
    let output = std::process::Command::new(mcp_python())
        .arg(&client)
        .arg(&plan_file)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = std::fs::read_to_string(&errlog).unwrap_or_default();
    assert!(
        output.status.success(),
        "the sdk client failed:\n{stdout}\n{}\nriverse: {stderr}",
        String::from_utf8_lossy(&output.stderr)
    );
    let seen = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|err| panic!("{err}: {stdout}\nriverse: {stderr}"));
    (seen, stderr)
}

fn arguments(dir: &Path) -> Value {
    json!({
        "release": dir.join("release"),
        "pid_file": dir.join("slow.pid"),
    })
}

fn edits_reach_a_running_server(mode: &str) {
    let project = Project::new();
    project
        .tool("slow.py", &tool("slow", "waits to be released", "slow v1"))
        .tool("stay.py", &tool("stay", "first version", "stay v1"))
        .tool("gone.py", &tool("gone", "to be removed", "gone"));
    let dir = project.path().to_path_buf();
    let broken = "from agent.tools import BaseTool\n\nclass Broken(BaseTool:\n    pass\n";
    let (seen, stderr) = drive(
        &project,
        mode,
        json!([
            {"list": true},
            {"start": "slow", "arguments": arguments(&dir)},
            {"save": "stay.py", "text": tool("stay", "second version", "stay v2")},
            {"await_tools": ["slow", "stay", "gone"]},
            {"list": true},
            {"call": "stay", "arguments": {}},
            {"save": "added.py", "text": tool("added", "new here", "added")},
            {"await_tools": ["slow", "stay", "gone", "added"]},
            {"call": "added", "arguments": {}},
            {"remove": "gone.py"},
            {"await_tools": ["slow", "stay", "added"]},
            {"call": "gone", "arguments": {}},
            {"save": "stay.py", "text": broken},
            {"await_tools": ["slow", "added"]},
            {"write": dir.join("release")},
            {"finish": "slow"},
            {"await_exit": dir.join("slow.pid")},
            {"call": "slow", "arguments": arguments(&dir)},
        ]),
    );
    let descriptions = |step: &Value| step["tools"].clone();
    assert_eq!(
        descriptions(&seen[0]),
        json!({"slow": "waits to be released", "stay": "first version", "gone": "to be removed"})
    );
    assert_eq!(seen[3], json!({"notified": true}), "after editing stay.py");
    assert_eq!(
        descriptions(&seen[4]),
        json!({"slow": "waits to be released", "stay": "second version", "gone": "to be removed"})
    );
    assert_eq!(seen[5], json!({"isError": false, "text": "stay v2"}));
    assert_eq!(seen[7], json!({"notified": true}), "after adding added.py");
    assert_eq!(seen[8], json!({"isError": false, "text": "added"}));
    assert_eq!(
        seen[10],
        json!({"notified": true}),
        "after removing gone.py"
    );
    assert!(
        seen[11]["protocolError"]
            .as_str()
            .is_some_and(|error| error.contains("unknown tool \"gone\"")),
        "{}",
        seen[11]
    );
    assert_eq!(
        seen[13],
        json!({"notified": true}),
        "after breaking stay.py"
    );
    // The call in flight through all of it finished on the first generation,
    // whose worker then exited; the next one runs on the current generation.
    assert_eq!(seen[15], json!({"isError": false, "text": "slow v1"}));
    assert_eq!(seen[16], json!({"exited": true}), "the old worker exits");
    assert_eq!(seen[17], json!({"isError": false, "text": "slow v1"}));
    assert!(
        stderr.contains("tools changed: +added")
            && stderr.contains("tools changed: -gone")
            && stderr.contains("tools changed: ~stay"),
        "{stderr}"
    );
    assert!(
        stderr.contains("tool failed to load: agent/tools/stay.py: syntax error")
            && stderr.contains("(stay.py:3)"),
        "{stderr}"
    );
}

#[test]
fn edits_reach_a_client_of_the_initialize_handshake() {
    edits_reach_a_running_server("legacy");
}

#[test]
fn edits_reach_a_client_listening_for_changes() {
    edits_reach_a_running_server("auto");
}

/// Saving a Python tool starts the Python tools again, not the MCP servers
/// (a server's state survives); changing `mcp` in the settings restarts them.
#[test]
fn only_the_source_that_changed_starts_again() {
    let project = Project::new();
    project
        .file("mcp_sdk_server.py", &fixture("mcp_sdk_server.py"))
        .tool("stay.py", &tool("stay", "first version", "stay v1"));
    let settings = |timeout: u32| {
        format!(
            "mcp:\n  enabled: true\n  startup_timeout: {timeout}\n  servers:\n    \
             - {{name: demo, command: {python:?}, args: [mcp_sdk_server.py]}}\n",
            python = mcp_python().display().to_string()
        )
    };
    project.settings(&settings(120));
    let settings_file = project.path().join("settings.yaml");
    let pid = || json!({"call": "mcp_demo_pid", "arguments": {}});
    let (seen, stderr) = drive(
        &project,
        "legacy",
        json!([
            pid(),
            {"save": "stay.py", "text": tool("stay", "second version", "stay v2")},
            {"await_change": true},
            {"call": "stay", "arguments": {}},
            pid(),
            {"write": settings_file, "text": settings(121)},
            {"await_change": true},
            pid(),
        ]),
    );
    assert_eq!(seen[2], json!({"notified": true}), "{stderr}");
    assert_eq!(seen[3], json!({"isError": false, "text": "stay v2"}));
    assert_eq!(seen[0], seen[4], "the MCP server was not restarted");
    assert_eq!(seen[6], json!({"notified": true}), "{stderr}");
    assert_ne!(seen[4], seen[7], "the MCP server was restarted");
    assert_eq!(seen[7]["isError"], false, "{}", seen[7]);
}
