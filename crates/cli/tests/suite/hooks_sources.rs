//! Hooks across the tool sources and front ends, through the real binary,
//! real Python and real MCP peers: a YAML agent's, an MCP server's tool's
//! and a nested call's `Ask`; a nested call's replaced result; the MCP
//! annotations a hook sees (an MCP server's, a Python tool's, which
//! `riverse mcp` serves); a schedule's run, from the command line and from
//! `riverse serve`, hooked as the `schedule` front end.

use pretty_assertions::assert_eq;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call};
use riverse_test_support::web::WebServer;
use riverse_test_support::{Project, fixture};
use serde_json::{Value, json};

use super::command::riverse;
use super::hooks::{NESTED_CALLER, call_json, hooked_project, record, seen, seen_field};

/// What `riverse call` without `--yes` and without a terminal answers a
/// hook's `Ask` with.
const NO_TERMINAL: &str =
    "there is no terminal to ask on: give --yes to approve the calls that ask";

/// A hook's `Ask` of `tool`, left unanswered for `why`.
fn unanswered(tool: &str, why: &str) -> String {
    format!("{tool} was not run: hook policy.py:Policy asked first (says check) and {why}")
}

#[test]
fn a_yaml_agents_call_that_a_hook_asks_about_runs_once_approved() {
    let server = WebServer::start();
    let project = hooked_project(&format!(
        "agents:\n  - {{name: echo_agent, type: http, parameters: {{q: query}}, http: {{url: \"{}/echo\", query_template: {{q: \"{{q}}\"}}, result_path: query}}}}\n",
        server.url()
    ));
    let (code, printed) = call_json(&project, &["echo_agent", "q=check", "--yes"]);
    assert_eq!(
        (code, printed),
        (
            0,
            json!({"success": true, "data": "q=check", "error": "",
                   "hooks": record("approved", "says check")})
        )
    );
    let (code, printed) = call_json(&project, &["echo_agent", "q=check"]);
    assert_eq!(
        (code, printed),
        (
            1,
            json!({"success": false, "data": "", "failure": "denied",
                   "error": unanswered("echo_agent", NO_TERMINAL),
                   "hooks": record("unanswered", "says check")})
        )
    );
    assert_eq!(seen_field(&project, "source"), ["yaml"; 2]);
    assert_eq!(
        seen(&project)[0]["annotations"],
        Value::Null,
        "a YAML agent has no annotations"
    );
}

/// A hooked project with the SDK server fixture as the MCP server `demo`.
fn mcp_project() -> Project {
    let project = hooked_project("");
    project.file("mcp_sdk_server.py", &fixture("mcp_sdk_server.py"));
    let python = riverse_test_support::venv::mcp_python();
    project.settings(&format!(
        "mcp:\n  enabled: true\n  startup_timeout: 120\n  servers:\n    \
         - {{name: demo, command: {python:?}, args: [mcp_sdk_server.py]}}\n",
        python = python.display().to_string()
    ));
    project
}

#[test]
fn an_mcp_servers_tool_that_a_hook_asks_about_runs_once_approved_and_the_hook_sees_its_annotations()
{
    let project = mcp_project();
    let describe = [
        "mcp_demo_describe",
        "count=5",
        "ratio=2",
        "loud=no",
        "word=check",
    ];
    let (code, printed) = call_json(&project, &[&describe[..], &["--yes"]].concat());
    assert_eq!(
        (code, printed),
        (
            0,
            json!({"success": true, "data": "int:5 float:2.0 bool:False check", "error": "",
                   "structured": {"result": "int:5 float:2.0 bool:False check"},
                   "hooks": record("approved", "says check")})
        )
    );
    let (code, printed) = call_json(&project, &describe);
    assert_eq!(code, 1, "{printed}");
    assert_eq!(
        (&printed["error"], &printed["hooks"]),
        (
            &json!(unanswered("mcp_demo_describe", NO_TERMINAL)),
            &record("unanswered", "says check")
        )
    );
    let described = json!({"title": "Describe", "readOnlyHint": true, "openWorldHint": false});
    let seen = seen(&project);
    assert_eq!(seen.len(), 2);
    for call in &seen {
        assert_eq!(
            (&call["source"], &call["annotations"]),
            (&json!("mcp"), &described)
        );
    }

    // A tool of the same server without annotations shows none.
    let (code, printed) = call_json(&project, &["mcp_demo_total", "numbers=[1, 2]"]);
    assert_eq!((code, &printed["data"]), (0, &json!("3")), "{printed}");
    assert_eq!(super::hooks::seen(&project)[2]["annotations"], Value::Null);
}

/// The caller's result: what the nested call through `ToolRegistry` gave
/// back, `[success, data, error]`.
fn nested(project: &Project, text: &str) -> Value {
    let arguments = format!("arguments={}", json!({ "text": text }));
    let (code, printed) = call_json(project, &["caller", "target=echo", &arguments]);
    assert_eq!(code, 0, "{printed}");
    assert_eq!(
        printed.get("hooks"),
        None,
        "the hook let the caller's own call be: {printed}"
    );
    serde_json::from_str(printed["data"].as_str().unwrap()).unwrap()
}

#[test]
fn a_nested_call_that_a_hook_asks_about_is_unanswered_and_its_result_can_be_replaced() {
    let project = hooked_project("");
    project.tool("caller.py", NESTED_CALLER);
    assert_eq!(
        nested(&project, "check"),
        json!([false, "", unanswered("echo", "nobody is there to ask")]),
        "a nested call has no front end, and so nobody to ask"
    );
    assert_eq!(
        nested(&project, "replace me"),
        json!([true, "replaced: replace me", ""])
    );
    assert_eq!(
        seen_field(&project, "tool"),
        ["caller", "echo", "caller", "echo"]
    );
    let front_ends: Vec<Value> = seen(&project)
        .iter()
        .map(|call| call["front_end"].clone())
        .collect();
    assert_eq!(
        front_ends,
        [json!("call"), Value::Null, json!("call"), Value::Null],
        "a nested call has no front end"
    );
}

/// A Python tool that declares MCP annotations, and one whose annotations
/// MCP does not define.
const LOOKUP: &str = r#"
from agent.tools import BaseTool, ToolManifest, ToolResult


class Lookup(BaseTool):
    def manifest(self):
        return ToolManifest(name="lookup", description="looks a word up", parameters={"word": "the word"},
                            annotations={"title": "Look up", "readOnlyHint": True, "idempotentHint": True})

    def execute(self, params):
        return ToolResult(True, "found " + params["word"])


class Broken(BaseTool):
    def manifest(self):
        return ToolManifest(name="broken", description="d", annotations={"readOnlyHint": "yes"})

    def execute(self, params):
        return ToolResult(True, "")
"#;

#[test]
fn a_python_tools_annotations_reach_the_hook_the_listing_and_riverse_mcps_tools_list() {
    let project = hooked_project("");
    project.tool("lookup.py", LOOKUP);
    let annotations = json!({"title": "Look up", "readOnlyHint": true, "idempotentHint": true});
    let (code, printed) = call_json(&project, &["lookup", "word=tea"]);
    assert_eq!(
        (code, &printed["data"]),
        (0, &json!("found tea")),
        "{printed}"
    );
    assert_eq!(seen(&project)[0]["annotations"], annotations);

    let listed: Value =
        serde_json::from_str(&riverse(&project, &["tools", "--json"]).exits(0).stdout).unwrap();
    let row = |name: &str| {
        listed["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|tool| tool["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {listed}"))
            .clone()
    };
    assert_eq!(row("lookup")["annotations"], annotations);
    let broken = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["status"] == "error")
        .unwrap_or_else(|| panic!("no error in {listed}"));
    assert_eq!(broken["source"]["file"], "agent/tools/lookup.py");
    assert_eq!(
        broken["error"],
        "Broken.manifest() returned a ToolManifest for tool \"broken\" whose \
         annotations['readOnlyHint'] is str 'yes', expected True or False (lookup.py:15)"
    );
    assert_eq!(row("echo").get("annotations"), None);

    let served = super::mcp::drive(
        &project,
        "auto",
        json!([{"list": true}, super::mcp::call("lookup", json!({"word": "tea"}))]),
    );
    let tools = served[0]["tools"].as_array().unwrap();
    let lookup = tools.iter().find(|tool| tool["name"] == "lookup").unwrap();
    assert_eq!(lookup["annotations"], annotations);
    let echo = tools.iter().find(|tool| tool["name"] == "echo").unwrap();
    assert_eq!(echo.get("annotations"), None, "{echo}");
    assert_eq!(served[1], json!({"isError": false, "text": "found tea"}));
    assert_eq!(seen_field(&project, "front_end"), ["call", "mcp"]);
    assert_eq!(seen(&project)[1]["annotations"], annotations);
}

/// A schedule's turn calls echo with a forbidden word: the hook denies it
/// and sees the call come from the `schedule` front end, run by
/// `riverse schedules run` and by `riverse serve` (with the run's
/// conversation).
#[test]
fn a_schedules_run_is_hooked_as_the_schedule_front_end() {
    let forbidden = || ev_tool_call("c1", "echo", json!({"text": "forbidden"}));
    let llm = OpenAiServer::start([
        forbidden(),
        ev_text("The hook said no."),
        forbidden(),
        ev_text("The hook said no again."),
    ]);
    let project = super::ask::project_for(
        &llm,
        "schedules:\n  - {name: echoer, cron: \"0 8 * * 1\", message: \"Echo forbidden\"}\n",
    );
    project
        .tool("echo.py", &fixture("echo.py"))
        .file("agent/hooks/policy.py", &fixture("hook_policy.py"));
    let output = super::ask::riverse(&project)
        .args(["schedules", "run", "echoer", "--json"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        super::ask::text(&output.stderr)
    );
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        document["tool_calls"][0]["hooks"],
        record("denied", "forbidden word"),
        "{document}"
    );
    assert_eq!(document["answer"], "The hook said no.");

    let server = super::serve::Server::start(&project, &[]);
    let (status, body) = super::serve::http(&server.url, "POST", "/v1/schedules/echoer/run", None);
    assert_eq!(status, 202, "{body}");
    let runs = riverse_test_support::eventually(
        std::time::Duration::from_secs(30),
        "the run's end",
        || {
            let (_, body) =
                super::serve::http(&server.url, "GET", "/v1/schedules/echoer/runs", None);
            let runs: Value = serde_json::from_str(&body).unwrap();
            (runs["data"][0]["status"] == "done").then_some(runs)
        },
    );
    assert_eq!(runs["data"][0]["answer"], "The hook said no again.");
    let conversation = runs["data"][0]["conversation_id"].as_str().unwrap();
    assert_eq!(seen_field(&project, "front_end"), ["schedule", "schedule"]);
    assert_eq!(seen_field(&project, "conversation"), ["", conversation]);
    assert_eq!(seen_field(&project, "tool"), ["echo", "echo"]);
}
