//! Background calls in `riverse chat` (issue 45): a call still running after
//! its tool's `background.after` becomes a task, the chat goes back to its
//! prompt, and when the task ends its follow-up answer is printed above the
//! line being typed; leaving a terminal chat cancels the tasks still
//! running, leaving a piped one waits for them.

use std::io::Write;
use std::process::Stdio;
use std::time::Duration;

use pretty_assertions::assert_eq;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call};
use riverse_test_support::{Project, eventually, wait_gone};
use serde_json::{Value, json};

use super::ask::{riverse, text};
use super::serve::Server;
use super::tasks::task_when;
use super::terminal::Terminal;

/// Sleeps `seconds`, noting its worker's pid in `pid_file` first.
const SLOW: &str = r#"import os, time
from agent.tools import BaseTool, ToolManifest, ToolResult

class Slow(BaseTool):
    def manifest(self):
        return ToolManifest(
            name="slow",
            description="Build the report (takes a while)",
            parameters={"seconds": "how long it takes", "pid_file": "where to note the pid"},
        )
    def execute(self, params):
        with open(params["pid_file"], "w") as f:
            f.write(str(os.getpid()))
        time.sleep(float(params["seconds"]))
        return ToolResult(success=True, data=f"report ready after {params['seconds']}s")
"#;

/// A project whose `slow` calls become tasks after a second, its LLM
/// scripted to call `slow` for `seconds`, to answer that the report is
/// being built, then, when `followed`, to answer the follow-up; the file
/// its worker's pid goes to.
fn slow_chat(llm: &OpenAiServer, seconds: u32, followed: bool) -> (Project, String) {
    let project = Project::new();
    project.tool("slow.py", SLOW).settings(&format!(
        "llm_provider: openai\nopenai: {{api_base: \"{}\", api_key: sk-file, max_retries: 0}}\n\
         tools:\n  slow: {{timeout: 300, background: {{after: 1}}}}\n",
        llm.url()
    ));
    let pids = project.path().join("slow.pid").display().to_string();
    llm.push([
        ev_tool_call("c1", "slow", json!({"seconds": seconds, "pid_file": pids})),
        ev_text("The report is being built."),
    ]);
    if followed {
        llm.push([ev_text("The report is ready.")]);
    }
    (project, pids)
}

fn read_pid(path: &str) -> i32 {
    eventually(Duration::from_secs(60), format!("a pid in {path}"), || {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|text| text.trim().parse::<i32>().ok())
    })
}

fn terminal_chat(project: &Project) -> Terminal {
    let mut chat = Terminal::spawn({
        let mut command = riverse(project);
        command.arg("chat");
        command
    });
    chat.wait_for_prompt();
    chat.type_keys("Build the report\r");
    chat
}

#[test]
fn a_tasks_follow_up_is_printed_above_the_line_being_typed() {
    let llm = OpenAiServer::start([]);
    let (project, pids) = slow_chat(&llm, 3, true);
    let mut chat = terminal_chat(&project);
    chat.wait_for_text("The report is being built.");
    let screen = chat.wait_for_prompt();
    assert!(
        screen.contains("    slow goes on in the background as task_"),
        "{screen}"
    );
    let worker = read_pid(&pids);
    chat.type_keys("half typed");
    let screen = chat.wait_for("the follow-up above the prompt", |screen| {
        screen.contains("The report is ready.") && screen.lines().last() == Some("> half typed")
    });
    let lines: Vec<&str> = screen.lines().collect();
    let ready = lines
        .iter()
        .position(|line| line.contains("The report is ready."))
        .unwrap();
    assert_eq!(lines[ready], "The report is ready.", "{screen}");
    // The task's end shows before its answer, as a call's end does.
    assert!(
        lines[..ready]
            .iter()
            .any(|line| line.starts_with("  ✓ slow")),
        "{screen}"
    );
    // The follow-up was given the task's real result under its id.
    let requests = llm.requests();
    assert_eq!(requests.len(), 3);
    let (task_id, result) = requests[2].tool_results().pop().unwrap();
    assert!(task_id.starts_with("task_"), "{task_id}");
    assert_eq!(result, "report ready after 3s");
    // Ctrl-U clears the line, Ctrl-D leaves; nothing is left running.
    chat.type_keys("\x15\x04");
    assert!(chat.wait().success());
    assert!(wait_gone(worker), "worker {worker} is still running");
}

#[test]
fn leaving_a_terminal_chat_cancels_its_running_tasks_and_says_so() {
    let llm = OpenAiServer::start([]);
    let (project, pids) = slow_chat(&llm, 200, false);
    let mut chat = terminal_chat(&project);
    chat.wait_for_text("The report is being built.");
    chat.wait_for_prompt();
    let worker = read_pid(&pids);
    chat.type_keys("\x04");
    let screen = chat.wait_for_text("still running when the chat ended");
    let cancelled = screen
        .lines()
        .find(|line| line.contains("still running when the chat ended"))
        .unwrap();
    assert!(
        cancelled.starts_with("riverse: cancelled task_") && cancelled.contains(" (slow), "),
        "{screen}"
    );
    assert!(chat.wait().success());
    assert!(wait_gone(worker), "worker {worker} is still running");
    // No follow-up ran.
    assert_eq!(llm.requests().len(), 2);
    // The task's row says how it ended.
    let task = &stored_tasks(&project)[0];
    assert_eq!(
        (&task["tool"], &task["state"], &task["conversation_id"]),
        (&json!("slow"), &json!("cancelled"), &Value::Null),
        "{task}"
    );
    assert!(cancelled.contains(task["id"].as_str().unwrap()), "{screen}");
}

/// The tasks `riverse tasks --json` lists for `project`.
pub(super) fn stored_tasks(project: &Project) -> Vec<Value> {
    let listed = riverse(project).args(["tasks", "--json"]).output().unwrap();
    assert!(listed.status.success(), "{listed:?}");
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    listed["tasks"].as_array().unwrap().clone()
}

#[test]
fn a_piped_chat_waits_for_its_tasks_at_the_end_of_its_input() {
    let llm = OpenAiServer::start([]);
    let (project, pids) = slow_chat(&llm, 3, true);
    let mut child = riverse(&project)
        .arg("chat")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"Build the report\n")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(
        text(&output.stdout),
        "The report is being built.\nThe report is ready.\n"
    );
    assert!(
        stderr.contains("riverse: waiting for the tasks still running; Ctrl-C cancels them"),
        "{stderr}"
    );
    assert!(wait_gone(read_pid(&pids)));
    assert_eq!(llm.requests().len(), 3);
    let task = &stored_tasks(&project)[0];
    assert_eq!(
        (&task["state"], &task["result"]["data"]),
        (&json!("completed"), &json!("report ready after 3s")),
        "{task}"
    );
}

/// A chat killed with -9 while its task runs leaves the task's row
/// working; the next `riverse serve` takes it over as interrupted.
#[test]
fn a_killed_chats_task_is_interrupted_at_the_next_serve() {
    let llm = OpenAiServer::start([]).fallback(ev_text("Noted."));
    let (project, pids) = slow_chat(&llm, 200, false);
    let mut child = riverse(&project)
        .arg("chat")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Its input stays open: the chat waits at its prompt.
    let mut input = child.stdin.take().unwrap();
    input.write_all(b"Build the report\n").unwrap();
    let worker = read_pid(&pids);
    let working = eventually(Duration::from_secs(60), "the task's row", || {
        let stored = stored_tasks(&project);
        stored
            .first()
            .filter(|task| task["state"] == "working")
            .cloned()
    });
    child.kill().unwrap();
    child.wait().unwrap();
    drop(input);
    assert!(wait_gone(worker), "worker {worker} outlived its chat");

    let server = Server::start(&project, &[]);
    let id = working["id"].as_str().unwrap();
    let ended = task_when(&server, id, "the interrupted task", |task| {
        task["state"] != "working"
    });
    assert_eq!(
        (&ended["state"], &ended["error"]),
        (&json!("failed"), &json!("interrupted")),
        "{ended}"
    );
}
