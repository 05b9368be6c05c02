//! The worker script run alone, as the MCP server of a tools directory: a
//! foreign MCP client still gets `tools/call`'s MCP shape (the text as
//! content, the whole result as structured content), though Riverse's host
//! calls tools with `riverse/call`.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::support::{project, standalone};

#[test]
fn a_standalone_worker_answers_tools_call_in_mcp_s_shape() {
    let project = project(&["execute_raises.py"]);
    let mut worker = standalone(&project);
    assert_eq!(
        worker.initialize(json!({}))["result"]["serverInfo"]["name"],
        "riverse-python"
    );
    let mut ask =
        |method: &str, params: Value| -> Value { worker.request(method, params)["result"].clone() };
    let listed = ask("tools/list", json!({}));
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["echo", "execute_raises"]);

    let echoed = ask(
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
        "tools/call",
        json!({"name": "execute_raises", "arguments": {}}),
    );
    assert_eq!(raised["isError"], json!(true));
    let text = raised["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("ZeroDivisionError"), "{raised}");
    assert_eq!(raised["structuredContent"]["error"], json!(text));

    assert!(worker.close().success());
}
