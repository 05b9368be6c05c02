//! A refusal by the sandbox names the settings line that allows it, for the
//! tool in question, whether the tool let the `PermissionError` escape or
//! caught it and returned its text; the line, put in `settings.yaml`, makes
//! the call succeed (issue 49).

use std::net::TcpListener;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use riverse_test_support::Project;
use serde_json::{Value, json};

use super::command::{riverse, riverse_in, run};

/// A tool that connects to a loopback port and lets the refusal escape
/// (`how=raise`), returns its text as its error (`fail`) or as its data
/// (`tell`), or fails in words of its own (`own`).
const PROBE: &str = r#"import socket

from agent.tools import BaseTool, ToolManifest, ToolResult


def connect(port):
    with socket.create_connection(("127.0.0.1", int(port)), timeout=10):
        return "connected"


class Probe(BaseTool):
    def manifest(self):
        return ToolManifest(
            name="probe",
            description="connects to a local service",
            parameters={"port": "a TCP port", "how": "raise, fail or tell"},
        )

    def execute(self, params):
        if params.get("how", "raise") == "raise":
            return ToolResult(True, connect(params["port"]))
        try:
            return ToolResult(True, connect(params["port"]))
        except OSError as exc:
            if params["how"] == "tell":
                return ToolResult(True, f"could not connect: {exc}")
            if params["how"] == "own":
                return ToolResult(False, "", error="can't reach the local service")
            return ToolResult(False, "", error=str(exc))
"#;

/// A project made by `riverse init`, with the probe tool.
fn initialised() -> (Project, PathBuf) {
    let project = Project::new();
    riverse(&project, &["init", "demo"]).exits(0);
    let demo = project.path().join("demo");
    std::fs::write(demo.join("agent/tools/probe.py"), PROBE).unwrap();
    (project, demo)
}

/// `riverse call probe port=PORT how=HOW --json` in `dir`.
fn probe(dir: &Path, port: u16, how: &str) -> Value {
    let ran = run(riverse_in(
        dir,
        &[
            "call",
            "probe",
            &format!("port={port}"),
            &format!("how={how}"),
            "--json",
        ],
    ));
    serde_json::from_str(&ran.stdout)
        .unwrap_or_else(|err| panic!("no JSON result ({err}): {ran:#?}"))
}

/// The line a call's text ends with, and what it sets (`KEY: VALUE`).
fn settings_line(text: &str) -> (String, String) {
    let line = text.lines().last().unwrap_or_default().to_owned();
    let set = line
        .strip_prefix("to allow it, set ")
        .unwrap_or_else(|| panic!("no settings line ends {text:?}"));
    let set = set
        .split(" (a sandbox of")
        .next()
        .unwrap_or_default()
        .to_owned();
    (line, set)
}

/// `settings` with `set` (`tools.probe.sandbox: {…}`) put where its dotted
/// key says, beneath the top-level key it begins with.
fn pasted(settings: &str, set: &str) -> String {
    let (key, value) = set.split_once(": ").unwrap();
    let mut keys = key.split('.');
    let top = format!("{}:\n", keys.next().unwrap());
    let mut nested = String::new();
    let rest: Vec<&str> = keys.collect();
    for (depth, key) in rest.iter().enumerate() {
        let indent = "  ".repeat(depth + 1);
        let tail = if depth + 1 == rest.len() {
            format!(" {value}")
        } else {
            String::new()
        };
        nested.push_str(&format!("{indent}{key}:{tail}\n"));
    }
    assert!(settings.contains(&top), "no {top:?} in the settings");
    settings.replacen(&top, &format!("{top}{nested}"), 1)
}

#[test]
fn a_refused_loopback_port_names_the_settings_line_that_allows_it() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (_project, demo) = initialised();
    let breach =
        format!("sandbox: connecting to port {port} is outside python.sandbox.network (ports 443)");
    let line = format!(
        "to allow it, set tools.probe.sandbox: {{network: [443, {port}]}} \
         (a sandbox of the tool's own; its other keys come from python.sandbox)"
    );

    let raised = probe(&demo, port, "raise");
    let error = raised["error"].as_str().unwrap();
    assert_eq!(raised["success"], json!(false), "{raised}");
    assert!(
        error.starts_with(&format!("{breach} (execute() raised PermissionError: ")),
        "{error}"
    );
    assert_eq!(settings_line(error).0, line, "{error}");

    let failed = probe(&demo, port, "fail");
    assert_eq!(
        failed["error"],
        json!(format!("[Errno 13] Permission denied\n{breach}\n{line}")),
        "{failed}"
    );

    // Caught, and failed in its own words: a refused connection is named.
    let own = probe(&demo, port, "own");
    assert_eq!(
        own["error"],
        json!(format!("can't reach the local service\n{breach}\n{line}")),
        "{own}"
    );

    let told = probe(&demo, port, "tell");
    assert_eq!(
        (&told["success"], &told["data"]),
        (
            &json!(true),
            &json!(format!(
                "could not connect: [Errno 13] Permission denied\n{breach}\n{line}"
            ))
        ),
        "{told}"
    );

    let settings = std::fs::read_to_string(demo.join("settings.yaml")).unwrap();
    let (_, set) = settings_line(error);
    std::fs::write(demo.join("settings.yaml"), pasted(&settings, &set)).unwrap();
    let allowed = probe(&demo, port, "raise");
    assert_eq!(
        (&allowed["success"], &allowed["data"]),
        (&json!(true), &json!("connected")),
        "{allowed}"
    );
    assert!(listener.accept().is_ok(), "the port was not reached");

    // Now the tool's own sandbox: the line sets its key.
    let other = TcpListener::bind("127.0.0.1:0").unwrap();
    let other_port = other.local_addr().unwrap().port();
    let refused = probe(&demo, other_port, "fail");
    assert_eq!(
        refused["error"],
        json!(format!(
            "[Errno 13] Permission denied\n\
             sandbox: connecting to port {other_port} is outside tools.probe.sandbox.network (ports 443, {port})\n\
             to allow it, set tools.probe.sandbox.network: [443, {port}, {other_port}]"
        )),
        "{refused}"
    );
}

/// A limit passed names its key, for the tool, with twice its value: one
/// the worker reports (memory), one its death does (CPU time).
#[test]
fn a_limit_passed_names_its_key_with_a_larger_value() {
    let project = Project::new();
    project
        .tool(
            "limits.py",
            r#"import time

from agent.tools import BaseTool, ToolManifest, ToolResult


class Hog(BaseTool):
    def manifest(self):
        return ToolManifest(name="hog", description="takes memory", parameters={})

    def execute(self, params):
        return ToolResult(True, str(len(bytearray(4 * 1024**3))))


class Burn(BaseTool):
    def manifest(self):
        return ToolManifest(name="burn", description="takes CPU time", parameters={})

    def execute(self, params):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            pass
        return ToolResult(True, "still running")
"#,
        )
        .settings("python:\n  sandbox: {memory_mb: 256, cpu_seconds: 1}\n");
    let own = "(a sandbox of the tool's own; its other keys come from python.sandbox)";
    for (tool, line) in [
        (
            "hog",
            format!("to allow it, set tools.hog.sandbox: {{memory_mb: 512}} {own}"),
        ),
        (
            "burn",
            format!("to allow it, set tools.burn.sandbox: {{cpu_seconds: 2}} {own}"),
        ),
    ] {
        let ran = riverse(&project, &["call", tool, "--json"]);
        let result: Value = serde_json::from_str(&ran.stdout).unwrap();
        let error = result["error"].as_str().unwrap();
        assert!(error.starts_with("sandbox: "), "{tool}: {error}");
        assert_eq!(settings_line(error).0, line, "{tool}: {error}");
    }
}
