//! What a sandboxed tool asks of Riverse is answered within its sandbox,
//! through the real binary (issue 41, finding 1): a nested call through
//! `ToolRegistry` runs only a tool that reaches no further than the caller,
//! whatever the target's source (a Python tool in another pool, a YAML
//! command or HTTP agent), unless the caller's sandbox names it in `calls`;
//! `self.sample` is refused where the caller's network is off. Each refused
//! call's effect is checked on disk.

use std::path::Path;

use pretty_assertions::assert_eq;
use riverse_test_support::Project;
use serde_json::{Value, json};

use super::command::{riverse_in, run};

/// The tools: `caller` calls the tool its parameters name through
/// `ToolRegistry` (or samples the LLM), and reports what came back;
/// `writer` and `inner` write the file they are given.
const TOOLS: &str = r#"
import json

from agent.tools import BaseTool, ToolManifest, ToolRegistry, ToolResult


class Caller(BaseTool):
    def __init__(self, config):
        self.config = config

    def manifest(self):
        return ToolManifest(
            name="caller",
            description="calls another tool",
            parameters={"target": "a tool", "arguments": "its arguments, as JSON"},
        )

    def execute(self, params):
        if params["target"] == "sample":
            try:
                return ToolResult(True, json.dumps([True, self.sample("hello"), ""]))
            except Exception as exc:
                return ToolResult(True, json.dumps([False, "", str(exc)]))
        result = ToolRegistry(self.config).execute(params["target"], json.loads(params["arguments"]))
        return ToolResult(True, json.dumps([result.success, result.data, result.error]))


def writing(name):
    class Writer(BaseTool):
        def manifest(self):
            return ToolManifest(name=name, description="writes a file", parameters={"path": "a file"})

        def execute(self, params):
            with open(params["path"], "w") as file:
                file.write(name)
            return ToolResult(True, "written")

    return Writer


Writer = writing("writer")
Inner = writing("inner")
Peer = writing("peer")
"#;

const SETTINGS: &str = r#"
python:
  sandbox: {read: ["."], write: [notes], network: false}
tools:
  caller:
    sandbox: {read: ["."], write: [], network: false__CALLER__}
  writer:
    sandbox: {write: ["."]}
  peer:
    sandbox: {read: ["."], write: [], network: false}
  boxed:
    sandbox: {read: ["."], write: [], network: false}
agents:
  - name: runcmd
    type: command
    description: touch a file
    parameters: {path: "a file"}
    command: {template: "touch {path}"}
  - name: boxed
    type: command
    description: says a word
    parameters: {word: "a word"}
    command: {template: "echo {word}"}
  - name: fetch
    type: http
    description: fetches a page
    parameters: {page: "a page"}
    http: {url: "http://127.0.0.1:9/{page}"}
"#;

fn project(caller_extra: &str) -> Project {
    let project = Project::new();
    project
        .settings(&SETTINGS.replace("__CALLER__", caller_extra))
        .tool("nested.py", TOOLS);
    std::fs::create_dir_all(project.path().join("notes")).unwrap();
    project
}

/// What `caller` got back from calling `target` with `arguments`:
/// (success, data, error).
fn nested(dir: &Path, target: &str, arguments: Value) -> (bool, String, String) {
    let target = format!("target={target}");
    let arguments = format!("arguments={arguments}");
    let ran = run(riverse_in(
        dir,
        &["call", "caller", &target, &arguments, "--json"],
    ));
    let result: Value = serde_json::from_str(&ran.stdout)
        .unwrap_or_else(|err| panic!("no JSON result ({err}): {ran:#?}"));
    assert_eq!(result["success"], json!(true), "{result}");
    serde_json::from_str(result["data"].as_str().unwrap()).unwrap()
}

fn refusal(dir: &Path, target: &str, why: &str) -> String {
    format!(
        "sandbox: tool \"{target}\" can't be called from inside tools.caller.sandbox: {why}; name it in tools.caller.sandbox.calls to allow the call",
    )
    .replace("{dir}", &dir.display().to_string())
}

#[test]
fn a_nested_call_reaching_beyond_the_callers_sandbox_is_refused_whatever_its_source() {
    let project = project("");
    let dir = project.path().canonicalize().unwrap();
    let cases = [
        (
            "writer",
            json!({"path": "written_by_writer.txt"}),
            "it writes {dir} (tools.writer.sandbox.write), which tools.caller.sandbox.write does not allow",
            "written_by_writer.txt",
        ),
        (
            "inner",
            json!({"path": "notes/written_by_inner.txt"}),
            "it writes {dir}/notes (python.sandbox.write), which tools.caller.sandbox.write does not allow",
            "notes/written_by_inner.txt",
        ),
        (
            "runcmd",
            json!({"path": "notes/touched_by_runcmd"}),
            "it runs in no sandbox",
            "notes/touched_by_runcmd",
        ),
        ("fetch", json!({"page": "x"}), "it runs in no sandbox", ""),
    ];
    for (target, arguments, why, effect) in cases {
        let (success, _, error) = nested(&dir, target, arguments);
        assert_eq!(
            (success, error),
            (false, refusal(&dir, target, why)),
            "{target}"
        );
        if !effect.is_empty() {
            assert!(!dir.join(effect).exists(), "{target} wrote {effect}");
        }
    }
}

#[test]
fn a_nested_call_within_the_callers_sandbox_runs() {
    let project = project("");
    let dir = project.path().canonicalize().unwrap();
    // A command agent held by a sandbox no wider than the caller's.
    assert_eq!(
        nested(&dir, "boxed", json!({"word": "held"})),
        (true, "held".to_owned(), String::new())
    );
    // A Python tool in a pool of its own, held as the caller is: it runs,
    // and its own sandbox still stops its write.
    let (success, _, error) = nested(&dir, "peer", json!({"path": "notes/peer.txt"}));
    assert!(!success);
    assert!(
        error.starts_with("sandbox: writing"),
        "the peer's own sandbox should refuse the write: {error}"
    );
    assert!(!dir.join("notes/peer.txt").exists());
}

#[test]
fn a_tool_named_in_calls_is_called_through_the_sandbox() {
    let project = project(", calls: [runcmd, writer]");
    let dir = project.path().canonicalize().unwrap();
    let (success, _, error) = nested(&dir, "runcmd", json!({"path": "notes/touched"}));
    assert!(success, "{error}");
    assert!(dir.join("notes/touched").exists());
    let (success, _, error) = nested(&dir, "writer", json!({"path": "written.txt"}));
    assert!(success, "{error}");
    assert!(dir.join("written.txt").exists());
    // Only the tools it names.
    let (success, _, error) = nested(&dir, "inner", json!({"path": "notes/inner.txt"}));
    assert!(!success);
    assert!(
        error.contains("name it in tools.caller.sandbox.calls"),
        "{error}"
    );
}

#[test]
fn sampling_from_a_sandbox_without_network_is_refused_with_the_key_that_allows_it() {
    let project = project("");
    let dir = project.path().canonicalize().unwrap();
    let (success, _, error) = nested(&dir, "sample", json!({}));
    assert!(!success);
    assert!(
        error.contains(
            "sandbox: self.sample is outside tools.caller.sandbox, whose network is off; set tools.caller.sandbox.sample: true to allow it"
        ),
        "{error}"
    );
}
