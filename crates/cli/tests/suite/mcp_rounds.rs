//! `riverse mcp` on stdio to a client of the 2026-07-28 protocol (the
//! official Python SDK's, in its `auto` mode): a call whose approval asks,
//! and a tool's question, are `input_required` results the client answers by
//! calling again, never a cancel.

use pretty_assertions::assert_eq;
use serde_json::json;

use super::mcp_approvals::{approval_message, asking_project, talking};

#[test]
fn an_approval_over_stdio_is_an_input_required_round_under_2026() {
    let project = asking_project();
    let command = json!([
        env!("CARGO_BIN_EXE_riverse"),
        "--dir",
        project.path(),
        "mcp"
    ]);
    let accepted = project.path().join("accepted.txt");
    let plan = json!({
        "command": command,
        "mode": "auto",
        "elicitation": {"action": "accept", "content": {}},
        "calls": [{"tool": "mark", "arguments": {"path": accepted}}],
    });
    let seen = talking(&project, &plan);
    assert_eq!(seen["protocol"], "2026-07-28", "{seen}");
    assert_eq!(seen["calls"][0]["text"], "marked", "{seen}");
    assert_eq!(seen["asked"][0]["message"], approval_message(&accepted));
    assert!(accepted.exists());

    let declined = project.path().join("declined.txt");
    let plan = json!({
        "command": command,
        "mode": "auto",
        "elicitation": {"action": "decline"},
        "calls": [{"tool": "mark", "arguments": {"path": declined}}],
    });
    let seen = talking(&project, &plan);
    assert_eq!(seen["calls"][0]["isError"], true, "{seen}");
    let text = seen["calls"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("mark was not run: the user declined it"),
        "{text}"
    );
    assert!(!declined.exists(), "a declined call ran");
}
