//! Hooks (`agent/hooks/*.py`) through the real binary and real Python: a
//! hook denies, asks (approved, declined, unanswered), rewrites the
//! arguments or replaces the result of a Python tool's call, a YAML
//! agent's, an MCP server's tool's and a nested call's; a hook that raises
//! or hangs denies the call unless `hooks.on_error: allow`; what hooks
//! decided is recorded with the call; `riverse hooks` lists them.

use pretty_assertions::assert_eq;
use riverse_test_support::web::WebServer;
use riverse_test_support::{Project, fixture};
use serde_json::{Value, json};

use super::command::riverse;
use super::terminal::Terminal;

pub(super) const HOOK: &str = "policy.py:Policy";

/// A project with the echo tool and the policy hook, and `settings`.
pub(super) fn hooked_project(settings: &str) -> Project {
    let project = Project::new();
    project
        .tool("echo.py", &fixture("echo.py"))
        .file("agent/hooks/policy.py", &fixture("hook_policy.py"))
        .settings(settings);
    project
}

/// `riverse call ARGS --json`: its exit status and what it printed.
pub(super) fn call_json(project: &Project, args: &[&str]) -> (i32, Value) {
    let mut args = args.to_vec();
    args.extend(["--json"]);
    let ran = riverse(
        project,
        &["call"].into_iter().chain(args).collect::<Vec<_>>(),
    );
    let printed = serde_json::from_str(&ran.stdout).unwrap_or_else(|err| panic!("{err}: {ran:#?}"));
    (ran.code, printed)
}

/// The calls the hook saw, in order: `(tool, source, params)`.
pub(super) fn seen(project: &Project) -> Vec<Value> {
    let text = std::fs::read_to_string(project.path().join("seen/calls.jsonl")).unwrap_or_default();
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// One field of every call the hook saw, in order.
pub(super) fn seen_field(project: &Project, key: &str) -> Vec<String> {
    seen(project)
        .iter()
        .map(|call| call[key].as_str().unwrap_or_default().to_owned())
        .collect()
}

pub(super) fn record(decision: &str, reason: &str) -> Value {
    if reason.is_empty() {
        json!([{"hook": HOOK, "decision": decision}])
    } else {
        json!([{"hook": HOOK, "decision": decision, "reason": reason}])
    }
}

#[test]
fn a_hook_denies_rewrites_and_replaces_a_python_tools_call_and_the_record_says_so() {
    let project = hooked_project("");
    let (code, printed) = call_json(&project, &["echo", "text=hello"]);
    assert_eq!(
        (code, printed),
        (0, json!({"success": true, "data": "hello", "error": ""})),
        "a call the hooks let through unchanged has no record of them"
    );

    let (code, printed) = call_json(&project, &["echo", "text=forbidden"]);
    assert_eq!(code, 1);
    assert_eq!(
        printed,
        json!({"success": false, "data": "", "failure": "denied",
               "error": "echo was not run: hook policy.py:Policy denied it: forbidden word",
               "hooks": record("denied", "forbidden word")})
    );

    let (code, printed) = call_json(&project, &["echo", "text=shout it"]);
    assert_eq!(
        (code, printed),
        (
            0,
            json!({"success": true, "data": "SHOUT IT", "error": "",
                   "hooks": record("rewrote", r#"{"text":"SHOUT IT"}"#)})
        )
    );

    let (code, printed) = call_json(&project, &["echo", "text=replace me"]);
    assert_eq!(
        (code, printed),
        (
            0,
            json!({"success": true, "data": "replaced: replace me", "error": "",
                   "hooks": record("replaced", "")})
        )
    );

    assert_eq!(seen_field(&project, "tool"), ["echo"; 4]);
    assert_eq!(seen_field(&project, "source"), ["python"; 4]);
    assert_eq!(seen_field(&project, "front_end"), ["call"; 4]);
}

/// A tool whose `n` is an integer.
const COUNT: &str = r#"
from agent.tools import BaseTool, ToolManifest, ToolResult


class Count(BaseTool):
    def manifest(self):
        return ToolManifest(name="count", description="counts", parameters={"n": "how many", "note": "a note"},
                            parameter_types={"n": "int"})

    def execute(self, params):
        return ToolResult(True, str(params["n"]))
"#;

#[test]
fn rewritten_arguments_are_checked_again_against_the_tool() {
    let project = hooked_project("");
    project.tool("count.py", COUNT);
    let (code, printed) = call_json(&project, &["count", "n=1", "note=unfit"]);
    assert_eq!(code, 1, "{printed}");
    assert_eq!(printed["failure"], "bad_parameters");
    let error = printed["error"].as_str().unwrap();
    assert!(
        error.starts_with("hook policy.py:Policy rewrote the arguments of count: "),
        "{error}"
    );
    assert_eq!(printed["hooks"][0]["decision"], "rewrote");
}

#[test]
fn a_hook_that_asks_is_approved_with_yes_unanswered_without_a_terminal_and_declined_on_one() {
    let project = hooked_project("");
    let (code, printed) = call_json(&project, &["echo", "text=check", "--yes"]);
    assert_eq!(
        (code, printed),
        (
            0,
            json!({"success": true, "data": "check", "error": "",
                   "hooks": record("approved", "says check")})
        )
    );

    let (code, printed) = call_json(&project, &["echo", "text=check"]);
    assert_eq!(code, 1);
    assert_eq!(
        printed,
        json!({"success": false, "data": "", "failure": "denied",
               "error": "echo was not run: hook policy.py:Policy asked first (says check) and there is no terminal to ask on: give --yes to approve the calls that ask",
               "hooks": record("unanswered", "says check")})
    );

    let mut call = Terminal::spawn({
        let mut command = super::ask::riverse(&project);
        command.args(["call", "echo", "text=check"]);
        command
    });
    call.wait_for_text("allow it? [y]es, [n]o, [a]lways this session:");
    call.type_keys("n\r");
    let screen = call.wait_for_text("the person said no");
    assert!(
        screen.contains("? echo wants to run (hook policy.py:Policy: says check)"),
        "{screen}"
    );
    assert!(
        screen.contains("echo was not run: hook policy.py:Policy asked first (says check) and the person said no"),
        "{screen}"
    );
    assert!(!call.wait().success());
}

#[test]
fn a_hook_that_raises_or_hangs_denies_the_call_unless_on_error_allows_it() {
    let project = hooked_project("hooks: {timeout: 1}\n");
    let (code, printed) = call_json(&project, &["echo", "text=raise"]);
    assert_eq!(code, 1);
    let failed = "Policy.before_call() raised RuntimeError: the hook broke (policy.py:37)";
    assert_eq!(
        printed,
        json!({"success": false, "data": "", "failure": "denied",
               "error": format!("echo was refused: hook policy.py:Policy failed ({failed}) and hooks.on_error is deny"),
               "hooks": record("failed", failed)})
    );

    let (code, printed) = call_json(&project, &["echo", "text=hang"]);
    assert_eq!(code, 1);
    let late = "it did not answer within hooks.timeout (1s)";
    assert_eq!(printed["hooks"], record("failed", late));
    assert_eq!(printed["failure"], "denied");

    let (code, printed) = call_json(&project, &["echo", "text=late"]);
    assert_eq!(code, 1);
    let late_failure = "Policy.after_call() raised LookupError: too late (policy.py:46)";
    assert_eq!(
        printed,
        json!({"success": false, "data": "", "failure": "denied",
               "error": format!("echo ran, but its result is withheld: hook policy.py:Policy failed ({late_failure}) and hooks.on_error is deny"),
               "hooks": record("failed", late_failure)})
    );

    project.settings("hooks: {timeout: 1, on_error: allow}\n");
    let (code, printed) = call_json(&project, &["echo", "text=raise"]);
    assert_eq!(
        (code, printed),
        (
            0,
            json!({"success": true, "data": "raise", "error": "",
                   "hooks": record("failed_allowed", failed)})
        )
    );
    let (code, printed) = call_json(&project, &["echo", "text=hang"]);
    assert_eq!(
        (code, printed),
        (
            0,
            json!({"success": true, "data": "hang", "error": "",
                   "hooks": record("failed_allowed", late)})
        )
    );
}

#[test]
fn a_hook_file_that_fails_to_load_is_listed_with_its_line_and_denies_every_call() {
    let project = hooked_project("");
    project.file(
        "agent/hooks/zz_broken.py",
        "from agent.hooks import Hook\n\nraise ValueError('not today')\n",
    );
    let listed = riverse(&project, &["hooks"]);
    assert_eq!(
        listed.exits(0).stdout,
        "hooks in agent/hooks (timeout 5s, on_error: deny)\n  \
         policy.py:Policy  before_call, after_call\n  \
         zz_broken.py  error: import failed: ValueError: not today (zz_broken.py:3)\n"
    );
    let listed: Value =
        serde_json::from_str(&riverse(&project, &["hooks", "--json"]).exits(0).stdout).unwrap();
    assert_eq!(
        listed,
        json!({
            "dir": "agent/hooks", "enabled": true, "timeout": 5.0, "on_error": "deny", "error": null,
            "hooks": [
                {"name": HOOK, "file": "policy.py", "class": "Policy", "status": "enabled",
                 "before_call": true, "after_call": true,
                 "description": "Denies, asks, rewrites, raises or hangs by the words of a call.",
                 "error": null},
                {"name": "zz_broken.py", "file": "zz_broken.py", "class": null, "status": "error",
                 "error": {"message": "import failed: ValueError: not today", "file": "zz_broken.py", "line": 3}}
            ]
        })
    );
    let (code, printed) = call_json(&project, &["echo", "text=hello"]);
    assert_eq!(code, 1, "{printed}");
    assert_eq!(
        printed["hooks"],
        json!([{"hook": "zz_broken.py", "decision": "failed",
                "reason": "it could not be loaded: import failed: ValueError: not today (zz_broken.py:3)"}])
    );
}

#[test]
fn no_hook_file_means_no_hooks_and_disabled_hooks_run_none() {
    let project = Project::new();
    project.tool("echo.py", &fixture("echo.py")).file(
        "agent/hooks/_helper.py",
        "raise SystemExit('never imported')\n",
    );
    assert_eq!(
        riverse(&project, &["hooks"]).exits(0).stdout,
        "hooks in agent/hooks (timeout 5s, on_error: deny)\n  no hook files\n"
    );
    let (code, printed) = call_json(&project, &["echo", "text=forbidden"]);
    assert_eq!(
        (code, printed),
        (
            0,
            json!({"success": true, "data": "forbidden", "error": ""})
        )
    );

    let project = hooked_project("hooks: {enabled: false}\n");
    let (code, printed) = call_json(&project, &["echo", "text=forbidden"]);
    assert_eq!(
        (code, printed),
        (
            0,
            json!({"success": true, "data": "forbidden", "error": ""})
        )
    );
    assert_eq!(seen(&project), Vec::<Value>::new());
}

#[test]
fn a_yaml_agents_call_is_hooked_too() {
    let server = WebServer::start();
    let project = hooked_project(&format!(
        "agents:\n  - {{name: echo_agent, type: http, parameters: {{q: query}}, http: {{url: \"{}/echo\", query_template: {{q: \"{{q}}\"}}, result_path: query}}}}\n",
        server.url()
    ));
    let (code, printed) = call_json(&project, &["echo_agent", "q=forbidden"]);
    assert_eq!(code, 1);
    assert_eq!(printed["hooks"], record("denied", "forbidden word"));
    let (code, printed) = call_json(&project, &["echo_agent", "q=shout"]);
    assert_eq!(
        (code, &printed["data"]),
        (0, &json!("q=SHOUT")),
        "{printed}"
    );
    let (code, printed) = call_json(&project, &["echo_agent", "q=replace"]);
    assert_eq!(
        (code, &printed["data"]),
        (0, &json!("replaced: q=replace")),
        "{printed}"
    );
    assert_eq!(seen_field(&project, "source"), ["yaml"; 3]);
}

#[test]
fn a_nested_call_through_tool_registry_is_hooked() {
    let project = hooked_project("");
    project.tool("caller.py", NESTED_CALLER);
    let (code, printed) = call_json(
        &project,
        &[
            "caller",
            "target=echo",
            r#"arguments={"text": "forbidden"}"#,
        ],
    );
    assert_eq!(code, 0, "{printed}");
    let inner: Value = serde_json::from_str(printed["data"].as_str().unwrap()).unwrap();
    assert_eq!(
        inner,
        json!([
            false,
            "",
            "echo was not run: hook policy.py:Policy denied it: forbidden word"
        ])
    );
    let (_, printed) = call_json(
        &project,
        &["caller", "target=echo", r#"arguments={"text": "shout"}"#],
    );
    let inner: Value = serde_json::from_str(printed["data"].as_str().unwrap()).unwrap();
    assert_eq!(inner, json!([true, "SHOUT", ""]));
    assert_eq!(
        seen_field(&project, "tool"),
        ["caller", "echo", "caller", "echo"]
    );
}

/// `caller` calls the tool its parameters name through `ToolRegistry` and
/// reports what came back.
pub(super) const NESTED_CALLER: &str = r#"
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
        result = ToolRegistry(self.config).execute(params["target"], json.loads(params["arguments"]))
        return ToolResult(True, json.dumps([result.success, result.data, result.error]))
"#;

#[test]
fn an_mcp_servers_tool_is_hooked_too() {
    let project = hooked_project("");
    project.file("mcp_sdk_server.py", &fixture("mcp_sdk_server.py"));
    let python = riverse_test_support::venv::mcp_python();
    project.settings(&format!(
        "mcp:\n  enabled: true\n  startup_timeout: 120\n  servers:\n    \
         - {{name: demo, command: {python:?}, args: [mcp_sdk_server.py]}}\n",
        python = python.display().to_string()
    ));
    let describe = ["mcp_demo_describe", "count=5", "ratio=2", "loud=no"];
    let (code, printed) = call_json(&project, &[&describe[..], &["word=forbidden"]].concat());
    assert_eq!(code, 1, "{printed}");
    assert_eq!(printed["hooks"], record("denied", "forbidden word"));
    let (code, printed) = call_json(&project, &[&describe[..], &["word=shout"]].concat());
    assert_eq!(code, 0, "{printed}");
    assert_eq!(printed["data"], "int:5 float:2.0 bool:False SHOUT");
    let (code, printed) = call_json(&project, &[&describe[..], &["word=replace"]].concat());
    assert_eq!(code, 0, "{printed}");
    assert_eq!(
        printed["data"],
        "replaced: int:5 float:2.0 bool:False replace"
    );
    assert_eq!(seen_field(&project, "source"), ["mcp"; 3]);
}

#[test]
fn a_hook_saved_under_a_running_server_guards_its_next_calls() {
    let project = Project::new();
    project
        .tool("echo.py", &fixture("echo.py"))
        .file("agent/hooks/_notes.py", "");
    let hook = project.path().join("agent/hooks/policy.py");
    let added = "from agent.tools import BaseTool, ToolManifest, ToolResult\n\n\
        class Added(BaseTool):\n    def manifest(self):\n        \
        return ToolManifest(name=\"added\", description=\"new\", parameters={})\n\n    \
        def execute(self, params):\n        return ToolResult(True, \"added\")\n";
    let (seen, stderr) = super::reload::drive(
        &project,
        "auto",
        json!([
            {"call": "echo", "arguments": {"text": "forbidden"}},
            {"write": hook, "text": fixture("hook_policy.py")},
            {"save": "added.py", "text": added},
            {"await_tools": ["echo", "added"]},
            {"call": "echo", "arguments": {"text": "forbidden"}},
            {"call": "echo", "arguments": {"text": "shout"}},
        ]),
    );
    assert_eq!(
        seen[0],
        json!({"isError": false, "text": "forbidden"}),
        "{stderr}"
    );
    assert_eq!(
        seen[4],
        json!({"isError": true, "text": "echo was not run: hook policy.py:Policy denied it: forbidden word"}),
        "{stderr}"
    );
    assert_eq!(
        seen[5],
        json!({"isError": false, "text": "SHOUT"}),
        "{stderr}"
    );
    assert_eq!(seen_field(&project, "front_end"), ["mcp", "mcp"]);
}

#[test]
fn a_turn_records_what_the_hooks_decided_and_the_llm_reads_the_denial() {
    use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call};
    let server = OpenAiServer::start([
        ev_tool_call("c1", "echo", json!({"text": "forbidden"})),
        ev_text("The hook would not let me."),
    ]);
    let project = super::ask::project_for(&server, "");
    project
        .tool("echo.py", &fixture("echo.py"))
        .file("agent/hooks/policy.py", &fixture("hook_policy.py"));
    let output = super::ask::riverse(&project)
        .args(["ask", "say forbidden", "--json"])
        .output()
        .unwrap();
    let stderr = super::ask::text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    let denied = "echo was not run: hook policy.py:Policy denied it: forbidden word";
    let call = &document["tool_calls"][0];
    assert_eq!(
        (&call["error"], &call["failure"], &call["hooks"]),
        (
            &json!(denied),
            &json!("denied"),
            &record("denied", "forbidden word")
        ),
        "{document}"
    );
    let told = server.requests()[1]
        .tool_results()
        .into_iter()
        .find(|(id, _)| id == "c1")
        .unwrap()
        .1;
    assert_eq!(told, format!("tool echo failed: {denied}"));
    assert_eq!(seen_field(&project, "front_end"), ["ask"]);
}

#[test]
fn the_standard_tools_are_hooked_as_standard() {
    let project = Project::new();
    riverse(&project, &["init", "demo", "--tools", "standard"]).exits(0);
    let demo = project.path().join("demo");
    std::fs::create_dir_all(demo.join("agent/hooks")).unwrap();
    std::fs::write(
        demo.join("agent/hooks/policy.py"),
        fixture("hook_policy.py"),
    )
    .unwrap();
    let ran = super::command::run(super::command::riverse_in(
        &demo,
        &["call", "file_read", "path=forbidden.txt", "--json"],
    ));
    assert_eq!(ran.code, 1, "{ran:#?}");
    let printed: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(printed["hooks"], record("denied", "forbidden word"));
    let seen = std::fs::read_to_string(demo.join("seen/calls.jsonl")).unwrap();
    let seen: Value = serde_json::from_str(seen.trim()).unwrap();
    assert_eq!(
        (&seen["tool"], &seen["source"]),
        (&json!("file_read"), &json!("standard"))
    );
}

#[test]
fn a_served_conversation_stores_what_the_hooks_decided_and_hooks_see_its_id() {
    use super::serve::{Server, http};
    use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call};
    let llm = OpenAiServer::start([
        ev_tool_call("c1", "echo", json!({"text": "forbidden"})),
        ev_text("The hook would not let me."),
    ]);
    let project = super::ask::project_for(&llm, "");
    project
        .tool("echo.py", &fixture("echo.py"))
        .file("agent/hooks/policy.py", &fixture("hook_policy.py"));
    let server = Server::start(&project, &[]);
    let (status, created) = http(&server.url, "POST", "/v1/conversations", Some(&json!({})));
    assert_eq!(status, 200, "{created}");
    let id = serde_json::from_str::<Value>(&created).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let turn = json!({"content": "say forbidden", "stream": false});
    let path = format!("/v1/conversations/{id}/messages");
    let (status, answer) = http(&server.url, "POST", &path, Some(&turn));
    assert_eq!(status, 200, "{answer}");
    let (_, stored) = http(&server.url, "GET", &format!("/v1/conversations/{id}"), None);
    let stored: Value = serde_json::from_str(&stored).unwrap();
    let calls: Vec<&Value> = stored["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|message| message["tool_calls"].as_array().into_iter().flatten())
        .collect();
    assert_eq!(calls.len(), 1, "{stored}");
    assert_eq!(calls[0]["hooks"], record("denied", "forbidden word"));
    assert_eq!(seen_field(&project, "front_end"), ["serve"]);
    assert_eq!(seen_field(&project, "conversation"), [id]);
}
