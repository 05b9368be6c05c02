//! `riverse mcp` driven by the official MCP Python SDK's client.

use pretty_assertions::assert_eq;
use riverse_test_support::venv::mcp_python;

use super::command::{riverse, riverse_in};
use riverse_test_support::{McpProcess, Project, eventually, fixture};
use serde_json::{Value, json};

/// A project serving the `mcp_served.py` tools.
fn project(settings: &str) -> Project {
    let project = Project::new();
    project.fixture("mcp_served.py").settings(settings);
    project
}

/// Runs the SDK client against `riverse --dir PROJECT mcp` through `steps`
/// and returns what it saw, one value per step. `mode` is the client's:
/// `auto` (what the SDK does unless told) or `legacy` (the initialize
/// handshake of MCP hosts before 2026).
pub(super) fn drive(project: &Project, mode: &str, steps: Value) -> Vec<Value> {
    let plan = json!({
        "command": [env!("CARGO_BIN_EXE_riverse"), "--dir", project.path(), "mcp"],
        "mode": mode,
        "steps": steps,
    });
    let seen = sdk_client(project, &plan);
    seen.as_array()
        .unwrap_or_else(|| panic!("the sdk client failed: {seen}"))
        .clone()
}

/// Runs the SDK client (`mcp_sdk_client.py`, which describes `plan`) from
/// `project`'s directory and returns what it printed.
pub(super) fn sdk_client(project: &Project, plan: &Value) -> Value {
    let plan_file = project.path().join("plan.json");
    std::fs::write(&plan_file, plan.to_string()).unwrap();
    let client = project.path().join("mcp_sdk_client.py");
    std::fs::write(&client, fixture("mcp_sdk_client.py")).unwrap();
    let output = std::process::Command::new(mcp_python())
        .arg(&client)
        .arg(&plan_file)
        .env("NO_PROXY", "127.0.0.1,localhost")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the sdk client failed:\n{stdout}\n{stderr}"
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|err| panic!("{err}: {stdout}\n{stderr}"))
}

pub(super) fn call(name: &str, arguments: Value) -> Value {
    json!({"call": name, "arguments": arguments})
}

fn ok(text: &str) -> Value {
    json!({"isError": false, "text": text})
}

#[test]
fn an_sdk_client_lists_and_calls_the_served_tools() {
    let project = project("");
    let seen = drive(
        &project,
        "auto",
        json!([
            {"list": true},
            call("shout", json!({"text": "héllo, 世界 🌏", "times": 2})),
            call("raising", json!({})),
            call("nope", json!({})),
            call("shout", json!({"text": "still here"})),
        ]),
    );
    let tools = seen[0]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["shout", "raising", "hanging", "crashing", "rendezvous"]
    );
    let shout = tools.iter().find(|tool| tool["name"] == "shout").unwrap();
    assert_eq!(
        shout,
        &json!({
            "name": "shout",
            "description": "Repeat text in capitals, a number of times\n\nExamples:\n- Shout hello\n- Say 'ok' three times, loudly",
            "inputSchema": {"type": "object", "properties": {
                "text": {"type": "string", "description": "What to repeat"},
                "times": {"type": "integer", "description": "How many times"}
            }}
        })
    );
    assert_eq!(seen[1], ok("HÉLLO, 世界 🌏 HÉLLO, 世界 🌏"));
    assert_eq!(seen[2]["isError"], true);
    assert_eq!(seen[2]["failure"], "tool_error");
    let raised = seen[2]["text"].as_str().unwrap();
    assert!(
        raised.contains("RuntimeError: the raising tool raised"),
        "{raised}"
    );
    let unknown = seen[3]["protocolError"].as_str().unwrap_or_default();
    assert!(unknown.contains("unknown tool \"nope\""), "{:?}", seen[3]);
    assert_eq!(seen[4], ok("STILL HERE"));
}

/// Issue 13: an integer past 64 bits in a call's arguments reaches the
/// Python tool as exactly that int.
#[test]
fn an_integer_past_64_bits_reaches_the_tool_exactly() {
    let project = project("");
    project.fixture("typed.py");
    let big = "123456789012345678901234567890";
    let count: Value = serde_json::from_str(big).unwrap();
    let seen = drive(
        &project,
        "auto",
        json!([call("typed", json!({"count": count}))]),
    );
    assert_eq!(seen[0], ok(&format!("{{\"count\": [\"int\", {big}]}}")));
}

#[test]
fn a_hanging_tool_and_a_crashing_tool_fail_alone() {
    let project = project("tools:\n  hanging: {timeout: 1}\n");
    let seen = drive(
        &project,
        "legacy",
        json!([
            call("hanging", json!({})),
            call("shout", json!({"text": "after the hang"})),
            call("crashing", json!({})),
            call("shout", json!({"text": "after the crash"})),
        ]),
    );
    assert_eq!(
        (&seen[0]["isError"], &seen[0]["failure"]),
        (&json!(true), &json!("timeout")),
        "{}",
        seen[0]
    );
    assert_eq!(seen[1], ok("AFTER THE HANG"));
    assert_eq!(seen[2]["isError"], true);
    assert_eq!(seen[2]["failure"], "crashed");
    let crashed = seen[2]["text"].as_str().unwrap();
    assert!(
        crashed.starts_with("tool \"crashing\" crashed: "),
        "{crashed}"
    );
    assert_eq!(seen[3], ok("AFTER THE CRASH"));
}

#[test]
fn slow_calls_in_flight_at_once_run_side_by_side() {
    let project = project("python: {workers: 4}\n");
    let place = project.path().join("meeting");
    let calls: Vec<Value> = (0..4)
        .map(|me| call("rendezvous", json!({"dir": place, "me": me, "n": 4})))
        .collect();
    let seen = drive(&project, "auto", json!([{"concurrent": calls}]));
    // Each call waits until all four are inside the tool at once, which only
    // happens if none waits for another to finish.
    assert_eq!(
        seen[0],
        json!([ok("met 4"), ok("met 4"), ok("met 4"), ok("met 4")])
    );
}

#[test]
fn mcp_servers_from_settings_are_listed_and_called() {
    let project = Project::new();
    project.file("mcp_sdk_server.py", &fixture("mcp_sdk_server.py"));
    let python = mcp_python();
    project.settings(&format!(
        "mcp:\n  enabled: true\n  startup_timeout: 120\n  servers:\n    \
         - {{name: ghost, command: riverse-no-such-server}}\n    \
         - {{name: demo, command: {python:?}, args: [mcp_sdk_server.py]}}\n",
        python = python.display().to_string()
    ));
    let listed = riverse(&project, &["tools", "--json"]);
    listed.exits(0);
    let tools: Value = serde_json::from_str(&listed.stdout).unwrap();
    let tools = tools["tools"].as_array().unwrap();
    assert_eq!(
        tools[0],
        json!({
            "name": null, "description": null, "parameters": {}, "examples": [], "parameter_types": {},
            "source": {"kind": "mcp", "server": "ghost"}, "status": "error",
            "error": "mcp server \"ghost\": can't start riverse-no-such-server: No such file or directory (os error 2); check its command in mcp.servers",
            "warnings": [], "approval": null
        })
    );
    let describe = tools
        .iter()
        .find(|tool| tool["name"] == "mcp_demo_describe")
        .unwrap();
    assert_eq!(describe["source"], json!({"kind": "mcp", "server": "demo"}));
    assert_eq!(describe["status"], "available");
    assert_eq!(
        describe["parameter_types"],
        json!({"count": "int", "ratio": "float", "loud": "bool"})
    );

    let called = riverse(
        &project,
        &[
            "call",
            "mcp_demo_describe",
            "count=5",
            "ratio=2",
            "loud=no",
            "word=né",
        ],
    );
    called.exits(0);
    assert_eq!(called.stdout, "int:5 float:2.0 bool:False né\n");
}

#[test]
fn yaml_agents_are_served() {
    let server = riverse_test_support::web::WebServer::start();
    let project = super::agents::agents_project(&server);
    let seen = drive(
        &project,
        "auto",
        json!([{"list": true}, call("weather_query", json!({"city": "Tokyo"}))]),
    );
    let names: Vec<&str> = seen[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["weather_query"]);
    assert_eq!(seen[1], ok("Sunny"));
}

/// Issue 13, Severe 3: a request line over the limit is discarded as it
/// streams by and answered with an error that carries its id.
#[test]
fn a_request_over_the_limit_is_answered_with_an_error_carrying_its_id() {
    let project = project("");
    let mut session = McpProcess::start(riverse_in(project.path(), &["mcp"]));
    let text = "x".repeat(9 << 20);
    let huge = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": text}}});
    session.send(&huge);
    let answer = session.next_message();
    assert_eq!(answer["id"], json!(7), "{answer}");
    let bytes = huge.to_string().len();
    assert_eq!(
        answer["error"]["message"],
        json!(format!(
            "the request of {bytes} bytes is over the 8388608-byte limit"
        )),
    );
    // Issue 28: the requests written right behind a 40 MB line, in the same
    // writes, are answered too.
    let text = "x".repeat(40 << 20);
    let huge = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": text}}});
    let ping = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"});
    let call = json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call",
        "params": {"name": "shout", "arguments": {"text": "after"}}});
    session.send_line(&format!("{huge}\n{ping}\n{call}"));
    let answers: Vec<Value> = (0..3).map(|_| session.next_message()).collect();
    let ids: Vec<&Value> = answers.iter().map(|answer| &answer["id"]).collect();
    assert_eq!(ids, [&json!(8), &json!(9), &json!(10)], "{answers:?}");
    assert_eq!(
        answers[2]["result"]["content"][0]["text"],
        json!("AFTER"),
        "{}",
        answers[2]
    );
    // TypeScript's SDK writes the id last; an "id" in the arguments is not
    // the request's.
    let text = "x".repeat(9 << 20);
    let id_last = format!(
        r#"{{"method":"tools/call","params":{{"name":"echo","arguments":{{"id":3,"text":"{text}"}}}},"jsonrpc":"2.0","id":11}}"#
    );
    session.send_line(&id_last);
    let answer = session.next_message();
    assert_eq!(answer["id"], json!(11), "{answer}");
    assert_eq!(
        answer["error"]["message"],
        json!(format!(
            "the request of {} bytes is over the 8388608-byte limit",
            id_last.len()
        )),
    );
    session.close();
}

/// Lines that are not requests are ignored or answered as JSON-RPC has it,
/// and the session goes on; a call with `_meta` is served like a plain one.
#[test]
fn lines_that_are_not_requests_leave_the_session_serving() {
    let project = project("");
    let mut session = McpProcess::start(riverse_in(project.path(), &["mcp"]));
    session.send_line("not json at all");
    session.send_line("");
    session.send(&json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {}}));
    session.send(&json!({"hello": "world"}));
    let invalid = session.next_message();
    assert_eq!(invalid["id"], Value::Null, "{invalid}");
    assert_eq!(invalid["error"]["code"], json!(-32600), "{invalid}");

    session.send(
        &json!({"jsonrpc": "2.0", "id": "with-meta", "method": "tools/call",
        "params": {"name": "shout", "arguments": {"text": "meta"}, "_meta": {"progressToken": 5}}}),
    );
    let answer = session.next_message();
    assert_eq!(answer["id"], json!("with-meta"), "{answer}");
    assert_eq!(
        answer["result"]["content"][0]["text"],
        json!("META"),
        "{answer}"
    );
    session.send(&json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "shout", "arguments": {"text": "plain"}}}));
    let answer = session.next_message();
    assert_eq!(answer["id"], json!(9), "{answer}");
    assert_eq!(
        answer["result"]["content"][0]["text"],
        json!("PLAIN"),
        "{answer}"
    );
    session.close();
}

/// Issue 21, L7: a request nested deeper than serde_json reads is still
/// answered, with an error carrying its id where it has one; a deep
/// notification is not answered; and the session goes on.
#[test]
fn a_request_nested_too_deeply_is_answered_with_its_id() {
    let project = project("");
    let mut session = McpProcess::start(riverse_in(project.path(), &["mcp"]));
    let too_deep = json!({"code": -32600, "message": "request nested more than 127 levels deep"});
    let mut id = 100;
    for levels in [128, 129, 100_000] {
        for (open, close) in [("[", "]"), ("{\"a\":", "}")] {
            // Written as text: a value this deep is past what serde_json builds.
            let deep = format!("{}1{}", open.repeat(levels), close.repeat(levels));
            id += 1;
            session.send_line(&format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"shout","arguments":{{"text":{deep}}}}}}}"#
            ));
            let answer = session.next_message();
            assert_eq!(answer["id"], json!(id), "{levels} levels: {answer}");
            assert_eq!(answer["error"], too_deep, "{levels} levels: {answer}");

            session.send_line(&format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{deep}}}"#
            ));
            session.send_line(&format!(
                r#"{{"jsonrpc":"2.0","id":{deep},"method":"tools/list"}}"#
            ));
            let answer = session.next_message();
            assert_eq!(answer["id"], Value::Null, "an id that is no id: {answer}");
            assert_eq!(answer["error"], too_deep, "{answer}");
        }
    }
    session.send(&json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "shout", "arguments": {"text": "still here"}}}));
    let answer = session.next_message();
    assert_eq!(answer["id"], json!(9), "{answer}");
    assert_eq!(
        answer["result"]["content"][0]["text"],
        json!("STILL HERE"),
        "{answer}"
    );
    session.close();
}

/// Issue 13, defect 7: an MCP host that never reads Riverse's stderr must not
/// stall it. Every call here logs 256 KiB (the tool's prints, plus Riverse's
/// own lines at `debug`), four times what a pipe holds, and every call is
/// answered.
#[test]
fn an_unread_stderr_never_stalls_the_server() {
    let project = Project::new();
    project.fixture("floods_stderr.py");
    // Piped and never read: the pipe fills after 64 KiB.
    let mut command = riverse_in(project.path(), &["mcp"]);
    command.env("RUST_LOG", "debug");
    let mut session = McpProcess::spawn(command, std::process::Stdio::piped());
    session.initialize(json!({}));
    for id in 2..12 {
        session.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "floods_stderr", "arguments": {}}}));
        let answer = session.next_message();
        assert_eq!(answer["id"], json!(id), "{answer}");
        assert_eq!(answer["result"]["isError"], json!(false), "{answer}");
    }
    session.close();
}

/// A client may pipe requests in and send the answers to a file (or a
/// terminal): stdin is then a pipe but stdout is not, and both are served
/// with blocking reads and writes.
#[test]
fn requests_piped_in_with_answers_going_to_a_file_are_served() {
    let project = project("");
    let answers = project.path().join("answers.jsonl");
    let requests = [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "shout", "arguments": {"text": "piped"}}}),
    ];
    let mut child = riverse_in(project.path(), &["mcp"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::fs::File::create(&answers).unwrap())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    use std::io::Write;
    // Each request waits for the answer before it: the server's reads then
    // find the pipe empty, which a read made non-blocking would fail on.
    for (request, id) in requests.iter().zip(["\"id\":0", "", "\"id\":1"]) {
        std::thread::sleep(std::time::Duration::from_millis(100));
        writeln!(stdin, "{request}").unwrap();
        eventually(
            std::time::Duration::from_secs(30),
            format!("the answer to {request}"),
            || std::fs::read_to_string(&answers).unwrap().contains(id),
        );
    }
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let lines: Vec<Value> = std::fs::read_to_string(&answers)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[1]["id"], json!(1));
    assert_eq!(
        lines[1]["result"]["content"][0]["text"],
        json!("PIPED"),
        "{stderr}"
    );
}
