//! Approvals over `riverse mcp`: a call that asks is put to the client by
//! elicitation, with every argument shown, and refused where nobody can be
//! asked.

use pretty_assertions::assert_eq;
use riverse_test_support::venv::mcp_python;
use riverse_test_support::{McpProcess, Project};
use serde_json::{Value, json};

use super::command::{riverse, riverse_in};
use super::mcp::{call, drive};

/// `mark`: writes `ran` to the file `path` names; what has run is what is
/// on disk.
const MARK: &str = r#"
from agent.tools import BaseTool, ToolManifest, ToolResult


class Mark(BaseTool):
    def manifest(self):
        return ToolManifest(name="mark", description="writes a marker file", parameters={"path": "Where to write it"})

    def execute(self, params):
        with open(params["path"], "w") as marker:
            marker.write("ran")
        return ToolResult(True, "marked")
"#;

/// A project serving `mark`, whose approval is `ask`.
pub(super) fn asking_project() -> Project {
    let project = Project::new();
    project
        .tool("mark.py", MARK)
        .settings("tools: {mark: {approval: ask}}\n");
    project
}

/// What a client that can't be asked is told of a call that asks.
const NOT_ASKED: &str = "mark was not run: it needs approval (tools.mark.approval is ask) and \
    the MCP client can't be asked: it offers no elicitation";

/// The question an approval of a call of `mark` on `path` puts to the client.
pub(super) fn approval_message(path: &std::path::Path) -> String {
    format!(
        "Allow mark to run with these arguments? (tools.mark.approval is ask)\npath: {}",
        json!(path)
    )
}

/// Reads what Riverse writes up to the first message `wanted` picks,
/// passing over the notifications on the way.
fn read_until(session: &McpProcess, wanted: impl Fn(&Value) -> bool) -> Value {
    loop {
        let message = session.next_message();
        if wanted(&message) {
            return message;
        }
        assert!(
            message.get("id").is_none(),
            "a reply or request other than the one awaited: {message}"
        );
    }
}

/// Calls `mark` on `path` as request `id` in a session whose client offers
/// elicitation, answers the approval it is asked with `action`, and returns
/// the call's result.
fn call_answering(
    session: &mut McpProcess,
    id: u64,
    path: &std::path::Path,
    action: &str,
) -> Value {
    session.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "mark", "arguments": {"path": path}}}));
    let asked = read_until(session, |message| message["method"] == "elicitation/create");
    assert_eq!(
        asked["params"]["message"],
        approval_message(path),
        "{asked}"
    );
    assert_eq!(
        asked["params"]["requestedSchema"],
        json!({"type": "object", "properties": {}}),
        "{asked}"
    );
    assert!(!path.exists(), "mark ran before the client answered");
    let answer = if action == "accept" {
        json!({"action": "accept", "content": {}})
    } else {
        json!({"action": action})
    };
    session.send(&json!({"jsonrpc": "2.0", "id": asked["id"], "result": answer}));
    let reply = read_until(session, |message| message["id"] == json!(id));
    reply["result"].clone()
}

/// A session with `riverse mcp` in `project` whose client offers
/// elicitation.
fn eliciting_session(project: &Project) -> McpProcess {
    McpProcess::start_declaring(
        riverse_in(project.path(), &["mcp"]),
        json!({"elicitation": {}}),
    )
}

/// [`call_answering`] accepting: the call ran, marking `path`.
fn call_accepted(session: &mut McpProcess, id: u64, path: &std::path::Path) {
    let result = call_answering(session, id, path, "accept");
    assert_eq!(result["isError"], json!(false), "{result}");
    assert_eq!(result["content"][0]["text"], "marked", "{result}");
    assert_eq!(std::fs::read_to_string(path).unwrap(), "ran");
}

#[test]
fn a_call_that_asks_runs_once_the_client_accepts_its_elicitation() {
    let project = asking_project();
    let mut session = eliciting_session(&project);
    call_accepted(&mut session, 2, &project.path().join("accepted.txt"));
    session.close();
}

#[test]
fn a_call_whose_elicitation_the_client_declines_is_refused() {
    let project = asking_project();
    let mut session = eliciting_session(&project);
    let path = project.path().join("declined.txt");
    let result = call_answering(&mut session, 2, &path, "decline");
    assert_eq!(result["isError"], json!(true), "{result}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("mark was not run: the user declined it"),
        "{result}"
    );
    assert!(!path.exists(), "a declined call ran");
    // The session goes on: the next call is asked about again.
    call_accepted(&mut session, 3, &project.path().join("accepted.txt"));
    session.close();
}

#[test]
fn a_call_that_asks_is_refused_to_an_sdk_client_without_elicitation() {
    let project = asking_project();
    // Neither mode declares elicitation (`auto` speaks the 2026 protocol).
    for mode in ["auto", "legacy"] {
        let path = project.path().join(format!("{mode}.txt"));
        let seen = drive(&project, mode, json!([call("mark", json!({"path": path}))]));
        assert_eq!(seen[0]["isError"], true, "{mode}: {}", seen[0]);
        assert_eq!(seen[0]["failure"], "denied", "{mode}: {}", seen[0]);
        let text = seen[0]["text"].as_str().unwrap();
        assert!(text.contains(NOT_ASKED), "{mode}: {text}");
        assert!(!path.exists(), "{mode}: a refused call ran");
    }
}

/// Runs the MCP crate's `talking_client.py` (the official SDK's client over
/// streamable HTTP, answering elicitation as `plan` says) against `url`:
/// what it saw.
fn talking_client(project: &Project, url: &str, mut plan: Value) -> Value {
    plan["url"] = json!(url);
    talking(project, &plan)
}

/// Runs `talking_client.py` with `plan`, which names its server: a `url`,
/// or a `command` to start and talk to over stdio.
pub(super) fn talking(project: &Project, plan: &Value) -> Value {
    let client = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../mcp/tests/python/talking_client.py");
    let plan_file = project.path().join("talking-plan.json");
    std::fs::write(&plan_file, plan.to_string()).unwrap();
    let output = std::process::Command::new(mcp_python())
        .arg(&client)
        .arg(&plan_file)
        .env("NO_PROXY", "127.0.0.1,localhost")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the client failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|err| panic!("{err}: {stdout}"))
}

#[test]
fn riverse_mcp_http_asks_an_sdk_client_by_elicitation_before_a_call_runs() {
    let project = asking_project();
    let server = super::serve::Server::start_with(&project, &["mcp", "--http", "127.0.0.1:0"], &[]);
    let url = format!("{}/mcp", server.url);
    let mark = |name: &str| {
        let path = project.path().join(name);
        (
            path.clone(),
            json!({"tool": "mark", "arguments": {"path": path}}),
        )
    };

    let (accepted, call) = mark("accepted.txt");
    let seen = talking_client(
        &project,
        &url,
        json!({"elicitation": {"action": "accept", "content": {}}, "calls": [call]}),
    );
    assert_eq!(
        (
            seen["calls"][0]["isError"].clone(),
            seen["calls"][0]["text"].clone()
        ),
        (json!(false), json!("marked")),
        "{seen}"
    );
    assert_eq!(seen["asked"].as_array().unwrap().len(), 1, "{seen}");
    assert_eq!(seen["asked"][0]["message"], approval_message(&accepted));
    assert!(accepted.exists());

    let (declined, call) = mark("declined.txt");
    let seen = talking_client(
        &project,
        &url,
        json!({"elicitation": {"action": "decline"}, "calls": [call]}),
    );
    assert_eq!(seen["calls"][0]["isError"], true, "{seen}");
    let text = seen["calls"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("mark was not run: the user declined it"),
        "{text}"
    );
    assert!(!declined.exists(), "a declined call ran");

    let (unasked, call) = mark("unasked.txt");
    let seen = talking_client(&project, &url, json!({"calls": [call]}));
    assert_eq!(seen["asked"], json!([]), "{seen}");
    assert_eq!(seen["calls"][0]["isError"], true, "{seen}");
    let text = seen["calls"][0]["text"].as_str().unwrap();
    assert!(text.contains(NOT_ASKED), "{text}");
    assert!(!unasked.exists(), "a refused call ran");

    let (status, stderr) = server.stop(nix::sys::signal::Signal::SIGTERM);
    assert_eq!(status.code(), Some(0), "{stderr}");
}

/// `PROJECT/demo`, made by `riverse init --tools standard` (whose
/// `file_write` asks), installing nothing.
fn standard_project() -> (Project, std::path::PathBuf) {
    let project = Project::new();
    riverse(&project, &["init", "demo", "--tools", "standard"]).exits(0);
    let demo = project.path().join("demo");
    let settings = std::fs::read_to_string(demo.join("settings.yaml")).unwrap();
    let offline = settings.replace("dependencies: auto", "dependencies: off");
    std::fs::write(demo.join("settings.yaml"), offline).unwrap();
    (project, demo)
}

/// `file_write`'s arguments, in the order of `names`.
fn ordered(names: &[&str], path: &str, content: &str) -> Value {
    let arguments: serde_json::Map<String, Value> = names
        .iter()
        .map(|name| {
            let value = if *name == "path" { path } else { content };
            ((*name).to_owned(), json!(value))
        })
        .collect();
    Value::Object(arguments)
}

// Issue 41, finding 5: the approval's message was the arguments as JSON cut
// at 2000 characters, so a long `content` put first hid `path`.
#[test]
fn an_sdk_client_is_shown_the_path_of_a_file_write_whatever_the_order_of_its_arguments() {
    let (project, demo) = standard_project();
    let notes = "harmless note text. ";
    let mut calls = Vec::new();
    let mut written = Vec::new();
    for (size, repeats) in [("short", 105), ("long", 400)] {
        for names in [["content", "path"], ["path", "content"]] {
            let path = format!("{size}_{}_first.txt", names[0]);
            let content = notes.repeat(repeats);
            calls.push(json!({"tool": "file_write",
                "arguments": ordered(&names, &path, &content)}));
            written.push((path, content));
        }
    }
    let command = json!([env!("CARGO_BIN_EXE_riverse"), "--dir", demo, "mcp"]);
    let plan = json!({"command": command, "calls": calls,
        "elicitation": {"action": "accept", "content": {}}});
    let seen = talking(&project, &plan);

    let asked = seen["asked"].as_array().unwrap();
    assert_eq!(asked.len(), written.len(), "{seen}");
    for ((path, content), asked) in written.iter().zip(asked) {
        let message = asked["message"].as_str().unwrap();
        let lines: Vec<&str> = message.lines().collect();
        assert_eq!(
            lines[..2],
            [
                "Allow file_write to run with these arguments? (tools.file_write.approval is ask)",
                &format!("path: \"{path}\""),
            ],
            "{message}"
        );
        assert_eq!(lines.len(), 3, "{message}");
        let shown = lines[2].strip_prefix("content: \"").unwrap();
        if content.len() < riverse_tool::MAX_ARGUMENTS_CHARS {
            assert_eq!(shown, format!("{content}\""));
        } else {
            let (start, marker) = shown.split_once('…').unwrap();
            assert!(content.starts_with(start), "{message}");
            let cut = content.len() + 1 - start.len();
            assert_eq!(
                marker,
                format!(" ({},{:03} more characters)", cut / 1000, cut % 1000)
            );
        }
        assert!(message.chars().count() <= riverse_tool::MAX_MESSAGE_CHARS);
    }
    for ((path, content), call) in written.iter().zip(seen["calls"].as_array().unwrap()) {
        assert_eq!(call["isError"], false, "{call}");
        assert_eq!(&std::fs::read_to_string(demo.join(path)).unwrap(), content);
    }
}

#[test]
fn a_call_with_too_many_arguments_to_show_is_refused_without_asking_the_sdk_client() {
    let (project, demo) = standard_project();
    let mut arguments = json!({"path": "crowded.txt", "content": "x"});
    for n in 0..200 {
        arguments[format!("extra{n}")] = json!(n);
    }
    let command = json!([env!("CARGO_BIN_EXE_riverse"), "--dir", demo, "mcp"]);
    let plan = json!({"command": command,
        "calls": [{"tool": "file_write", "arguments": arguments}],
        "elicitation": {"action": "accept", "content": {}}});
    let seen = talking(&project, &plan);
    assert_eq!(seen["asked"], json!([]), "{seen}");
    assert_eq!(seen["calls"][0]["isError"], true, "{seen}");
    let text = seen["calls"][0]["text"].as_str().unwrap();
    assert!(
        text.contains(
            "file_write was not run: it needs approval (tools.file_write.approval is ask) and \
             its 202 arguments are too many to show each one to the person asked"
        ),
        "{text}"
    );
    assert!(!demo.join("crowded.txt").exists(), "a refused call ran");
}
