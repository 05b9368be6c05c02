//! The worker script run alone, as the MCP server of a tools directory: a
//! foreign MCP client still gets `tools/call`'s MCP shape (the text as
//! content, the whole result as structured content), though Riverse's host
//! calls tools with `riverse/call`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use pretty_assertions::assert_eq;
use riverse_python::{WORKER_SOURCE, resolve_interpreter};
use serde_json::{Value, json};

use super::support::project;

#[test]
fn a_standalone_worker_answers_tools_call_in_mcp_s_shape() {
    let project = project(&["execute_raises.py"]);
    let script = project.path().join("riverse_worker.py");
    std::fs::write(&script, WORKER_SOURCE).unwrap();
    let python = resolve_interpreter(None, project.path())
        .unwrap()
        .executable;
    let mut worker = Command::new(python)
        .arg(&script)
        .arg("agent/tools")
        .current_dir(project.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = worker.stdin.take().unwrap();
    let mut stdout = BufReader::new(worker.stdout.take().unwrap());
    let mut ask = |id: i64, method: &str, params: Value| -> Value {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(stdin, "{request}").unwrap();
        // Notifications (the files it imports) come before the reply.
        loop {
            let mut line = String::new();
            stdout.read_line(&mut line).unwrap();
            let message: Value = serde_json::from_str(&line).unwrap();
            if message.get("id").is_some() {
                assert_eq!(message["id"], json!(id), "{message}");
                return message["result"].clone();
            }
        }
    };
    let init = json!({"protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "client", "version": "0"}});
    assert_eq!(
        ask(1, "initialize", init)["serverInfo"]["name"],
        "riverse-python"
    );
    let listed = ask(2, "tools/list", json!({}));
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["echo", "execute_raises"]);

    let echoed = ask(
        3,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    );
    assert_eq!(echoed["content"], json!([{"type": "text", "text": "hi"}]));
    assert_eq!(echoed["isError"], json!(false));
    assert_eq!(
        echoed["structuredContent"],
        json!({"success": true, "data": "hi", "error": ""})
    );
    let raised = ask(
        4,
        "tools/call",
        json!({"name": "execute_raises", "arguments": {}}),
    );
    assert_eq!(raised["isError"], json!(true));
    let text = raised["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("ZeroDivisionError"), "{raised}");
    assert_eq!(raised["structuredContent"]["error"], json!(text));

    drop(stdin);
    assert!(worker.wait().unwrap().success());
}
