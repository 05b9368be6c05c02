//! Background calls (issue 45): a call still running after its tool's
//! `background.after` becomes a task that outlives its turn; its result
//! reaches the conversation in a follow-up turn; it is listed and cancelled
//! through the API and `riverse tasks`; a restart fails or reruns a task
//! its killed server left working.

use std::time::Duration;

use pretty_assertions::assert_eq;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call, ev_tool_calls};
use riverse_test_support::{Project, eventually, is_gone};
use serde_json::{Value, json};

use super::ask::{riverse, text};
use super::serve::{Server, http};

/// Sleeps `seconds`, noting its worker's pid in `pid_file` first.
pub(super) const SLOW: &str = r#"import os, time
from agent.tools import BaseTool, ToolManifest, ToolResult

class Slow(BaseTool):
    NAME = "slow"
    def __init__(self, config):
        self.config = config
    def manifest(self):
        return ToolManifest(
            name=self.NAME,
            description="Build the report (takes a while)",
            parameters={"seconds": "how long it takes", "pid_file": "where to note the pid"},
        )
    def execute(self, params):
        with open(params["pid_file"], "w") as f:
            f.write(str(os.getpid()))
        self.progress(1, 2, "halfway")
        time.sleep(float(params["seconds"]))
        return ToolResult(success=True, data=f"report ready after {params['seconds']}s")

class Steady(Slow):
    NAME = "steady"
"#;

/// Generous bounds for what takes seconds: no test measures time.
pub(super) const LONG: Duration = Duration::from_secs(120);

fn slow_project(llm: &OpenAiServer, background: &str) -> Project {
    let project = Project::new();
    project.tool("slow.py", SLOW).settings(&format!(
        "llm_provider: openai\nopenai: {{api_base: \"{}\", api_key: sk-file, max_retries: 0}}\n{background}",
        llm.url()
    ));
    project
}

pub(super) fn pid_file(project: &Project, name: &str) -> String {
    project.path().join(name).display().to_string()
}

pub(super) fn read_pid(path: &str) -> i32 {
    eventually(LONG, format!("a pid in {path}"), || {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|text| text.trim().parse::<i32>().ok())
    })
}

pub(super) fn get_json(server: &Server, path: &str) -> Value {
    let (status, body) = http(&server.url, "GET", path, None);
    assert_eq!(status, 200, "{path}: {body}");
    serde_json::from_str(&body).unwrap()
}

/// Posts `content` to a new conversation and waits for the stored answer;
/// the conversation's id and the answer.
pub(super) fn post_message(server: &Server, content: &str) -> (String, Value) {
    let (status, body) = http(&server.url, "POST", "/v1/conversations", None);
    assert_eq!(status, 200, "{body}");
    let id = serde_json::from_str::<Value>(&body).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let message = json!({"content": content, "stream": false});
    let path = format!("/v1/conversations/{id}/messages");
    let (status, body) = http(&server.url, "POST", &path, Some(&message));
    assert_eq!(status, 200, "{body}");
    (id, serde_json::from_str(&body).unwrap())
}

/// A server whose first turn starts `slow` for 200 s, in the background
/// after 1 s: the project, the file holding the worker's pid, the server,
/// and the conversation's id and first answer.
fn a_long_task_in_serve(llm: &OpenAiServer) -> (Project, String, Server, String, Value) {
    let project = slow_project(
        llm,
        "tools:\n  slow: {timeout: 300, background: {after: 1}}\n",
    );
    let pids = pid_file(&project, "slow.pid");
    llm.push([
        ev_tool_call("c1", "slow", json!({"seconds": 200, "pid_file": pids})),
        ev_text("Started the report."),
    ]);
    let server = Server::start(&project, &[]);
    let (conversation, answer) = post_message(&server, "Build the report");
    (project, pids, server, conversation, answer)
}

/// The task of `id` once `state` says what it should.
pub(super) fn task_when(
    server: &Server,
    id: &str,
    what: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    eventually(LONG, what, || {
        let task = get_json(server, &format!("/v1/tasks/{id}"));
        done(&task).then_some(task)
    })
}

/// The one task the server lists.
pub(super) fn only_task(server: &Server) -> Value {
    let tasks = eventually(LONG, "the task's row", || {
        let list = get_json(server, "/v1/tasks");
        (list["data"].as_array().unwrap().len() == 1).then_some(list)
    });
    tasks["data"][0].clone()
}

#[test]
fn serve_answers_first_then_from_the_task_in_the_same_conversation() {
    let llm = OpenAiServer::start([]);
    let project = slow_project(
        &llm,
        "tools:\n  slow: {timeout: 60, background: {after: 1}}\n",
    );
    let pids = pid_file(&project, "slow.pid");
    llm.push([
        ev_tool_call("c1", "slow", json!({"seconds": 4, "pid_file": pids})),
        ev_text("Started the report."),
        ev_text("The report is ready."),
    ]);
    let server = Server::start(&project, &[]);
    let (conversation, answer) = post_message(&server, "Build the report");
    assert_eq!(answer["content"], "Started the report.");
    let placeholder = &llm.requests()[1].tool_results()[0];
    assert_eq!(placeholder.0, "c1");
    assert!(
        placeholder.1.contains("in the background as task task_"),
        "{placeholder:?}"
    );

    let task = only_task(&server);
    let id = task["id"].as_str().unwrap().to_owned();
    assert!(placeholder.1.contains(&id), "{placeholder:?}");
    assert_eq!(
        (
            &task["object"],
            &task["tool"],
            &task["call_id"],
            &task["conversation_id"]
        ),
        (
            &json!("task"),
            &json!("slow"),
            &json!("c1"),
            &json!(conversation)
        )
    );
    assert_eq!(task["arguments"]["seconds"], 4);
    assert_eq!(task["message_id"], answer["id"]);
    let ended = task_when(&server, &id, "the task's end", |task| {
        task["state"] != "working"
    });
    assert_eq!(ended["state"], "completed", "{ended}");
    assert_eq!(ended["result"]["data"], "report ready after 4s");
    assert!(ended["ended_at"].is_i64(), "{ended}");
    assert_eq!(
        ended["progress"],
        json!({"progress": 1.0, "total": 2.0, "message": "halfway"})
    );

    let stored = eventually(LONG, "the follow-up answer", || {
        let stored = get_json(&server, &format!("/v1/conversations/{conversation}"));
        (stored["messages"].as_array().unwrap().len() == 3
            && stored["messages"][2]["status"] == "done")
            .then_some(stored)
    });
    let follow_up = &stored["messages"][2];
    assert_eq!(
        (&follow_up["role"], &follow_up["content"]),
        (&json!("assistant"), &json!("The report is ready."))
    );
    assert_eq!(follow_up["tool_calls"][0]["call_id"], "c1");
    assert_eq!(follow_up["tool_calls"][0]["data"], "report ready after 4s");
    // The model answered from the task's result, given under the task's id.
    let requests = llm.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(
        requests[2].tool_results(),
        vec![(id.clone(), "report ready after 4s".to_owned())]
    );

    let listed = riverse(&project)
        .args(["tasks", "--json"])
        .output()
        .unwrap();
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(listed["tasks"][0]["id"], json!(id));
    assert_eq!(listed["tasks"][0]["state"], "completed");
    let table = text(&riverse(&project).arg("tasks").output().unwrap().stdout);
    assert!(table.starts_with("ID "), "{table}");
    assert!(table.contains(&format!("{id}  completed  slow")), "{table}");
    assert!(table.ends_with("1 tasks, 0 working\n"), "{table}");
}

#[test]
fn a_task_cancelled_with_riverse_tasks_cancel_ends_its_worker() {
    let llm = OpenAiServer::start([]).fallback(ev_text("Nothing more."));
    let (project, pids, server, _, answer) = a_long_task_in_serve(&llm);
    assert_eq!(answer["content"], "Started the report.");
    let worker = read_pid(&pids);
    assert!(!is_gone(worker));
    let id = only_task(&server)["id"].as_str().unwrap().to_owned();

    let cancel = |id: &str| {
        riverse(&project)
            .args(["tasks", "cancel", id, "--url", &server.url])
            .output()
            .unwrap()
    };
    let cancelled = cancel(&id);
    assert!(cancelled.status.success(), "{}", text(&cancelled.stderr));
    assert_eq!(text(&cancelled.stdout), format!("cancelled {id}\n"));
    eventually(LONG, "the worker's end", || is_gone(worker));
    let task = get_json(&server, &format!("/v1/tasks/{id}"));
    assert_eq!(
        (&task["state"], &task["error"]),
        (&json!("cancelled"), &json!("cancelled through the API"))
    );
    // Once ended, a task stays as it ended.
    let again = cancel(&id);
    assert_eq!(again.status.code(), Some(1));
    assert_eq!(
        text(&again.stderr),
        format!("riverse: can't cancel {id}: task {id} has ended: it is cancelled\n")
    );
    let (status, body) = http(&server.url, "POST", "/v1/tasks/task_none/cancel", None);
    assert_eq!(status, 404, "{body}");
    // A cancelled task has no follow-up: the model was asked twice.
    assert_eq!(llm.requests().len(), 2);
}

#[test]
fn ask_waits_for_its_task_and_prints_the_follow_up_answer() {
    let llm = OpenAiServer::start([]);
    let project = slow_project(
        &llm,
        "tools:\n  slow: {timeout: 60, background: {after: 1}}\n",
    );
    let pids = pid_file(&project, "slow.pid");
    llm.push([
        ev_tool_call("c1", "slow", json!({"seconds": 3, "pid_file": pids})),
        ev_text("Started the report."),
        ev_text("The report is ready."),
    ]);
    let output = riverse(&project)
        .args(["ask", "Build the report"])
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(
        text(&output.stdout),
        "Started the report.\nThe report is ready.\n"
    );
    assert!(
        stderr.contains("riverse: slow goes on in the background as task_"),
        "{stderr}"
    );
    let requests = llm.requests();
    assert_eq!(requests.len(), 3);
    let (task_id, result) = requests[2].tool_results().pop().unwrap();
    assert!(task_id.starts_with("task_"), "{task_id}");
    assert_eq!(result, "report ready after 3s");
    // The follow-up carries the whole turn before it, placeholder included.
    assert_eq!(requests[2].tool_results()[0].0, "c1");
    // The task's row, in the project's store.
    let stored = super::chat_tasks::stored_tasks(&project);
    assert_eq!(
        (&stored[0]["id"], &stored[0]["state"], &stored[0]["call_id"]),
        (&json!(task_id), &json!("completed"), &json!("c1")),
        "{stored:?}"
    );
}

/// `riverse serve` killed with -9 while two tasks run; the next server
/// fails the one whose tool does not rerun as interrupted and runs the
/// other again, and each conversation hears of it.
#[test]
fn a_restart_after_kill_9_fails_the_interrupted_task_and_reruns_the_other() {
    let llm = OpenAiServer::start([]).fallback(ev_text("Noted."));
    let project = slow_project(
        &llm,
        "tools:\n  slow: {timeout: 300, background: {after: 1}}\n  steady: {timeout: 300, background: {after: 1, rerun: true}}\n",
    );
    let (slow_pids, steady_pids) = (
        pid_file(&project, "slow.pid"),
        pid_file(&project, "steady.pid"),
    );
    llm.push([
        ev_tool_calls(&[
            ("c1", "slow", json!({"seconds": 200, "pid_file": slow_pids})),
            (
                "c2",
                "steady",
                json!({"seconds": 8, "pid_file": steady_pids}),
            ),
        ]),
        ev_text("Started both."),
    ]);
    let server = Server::start(&project, &[]);
    let (conversation, _) = post_message(&server, "Build both reports");
    let first_steady = read_pid(&steady_pids);
    read_pid(&slow_pids);
    let listed = eventually(LONG, "both tasks' rows", || {
        let list = get_json(&server, "/v1/tasks");
        (list["data"].as_array().unwrap().len() == 2).then_some(list)
    });
    let id_of = |tool: &str| {
        listed["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|task| task["tool"] == tool)
            .unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let (slow, steady) = (id_of("slow"), id_of("steady"));
    kill_9(server);

    let server = Server::start(&project, &[]);
    let interrupted = task_when(&server, &slow, "the interrupted task", |task| {
        task["state"] != "working"
    });
    assert_eq!(
        (&interrupted["state"], &interrupted["error"]),
        (&json!("failed"), &json!("interrupted"))
    );
    let rerun = task_when(&server, &steady, "the rerun's end", |task| {
        task["state"] != "working"
    });
    assert_eq!(rerun["state"], "completed", "{rerun}");
    assert_eq!(rerun["result"]["data"], "report ready after 8s");
    assert_ne!(read_pid(&steady_pids), first_steady, "steady ran again");
    // Both ends reached the conversation, each in a follow-up of its own.
    let stored = eventually(LONG, "both follow-ups", || {
        let stored = get_json(&server, &format!("/v1/conversations/{conversation}"));
        let messages = stored["messages"].as_array().unwrap();
        (messages.len() == 4 && messages.iter().all(|m| m["status"] == "done")).then_some(stored)
    });
    let told: Vec<String> = llm
        .requests()
        .iter()
        .skip(2)
        .flat_map(|request| request.tool_results())
        .filter(|(id, _)| *id == slow || *id == steady)
        .map(|(id, result)| format!("{id}: {result}"))
        .collect();
    assert_eq!(told.len(), 2, "{told:?} {stored}");
    assert!(
        told.iter()
            .any(|line| line.starts_with(&format!("{slow}: ")) && line.contains("interrupted")),
        "{told:?}"
    );
    assert!(
        told.contains(&format!("{steady}: report ready after 8s")),
        "{told:?}"
    );
}

/// Kills `server` with SIGKILL and waits for it to be gone.
pub(super) fn kill_9(server: Server) {
    let (status, _) = server.stop(nix::sys::signal::Signal::SIGKILL);
    assert!(!status.success());
}

/// `riverse ask --json` in a project whose `slow` tool has `settings`, its
/// model calling `slow` for `seconds` and answering twice (`first`, then
/// the follow-up `then`): the project, the worker's pid file and what was
/// printed.
fn ask_slow(
    llm: &OpenAiServer,
    settings: &str,
    seconds: u32,
    [first, then]: [&str; 2],
) -> (Project, String, Value) {
    let project = slow_project(llm, settings);
    let pids = pid_file(&project, "slow.pid");
    llm.push([
        ev_tool_call("c1", "slow", json!({"seconds": seconds, "pid_file": pids})),
        ev_text(first),
        ev_text(then),
    ]);
    let output = riverse(&project)
        .args(["ask", "--json", "Build the report"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
    (project, pids, printed)
}

/// A task is still bounded by its tool's `timeout`: past it the worker is
/// stopped and the follow-up answers from the timeout.
#[test]
fn a_task_ends_at_its_tools_timeout() {
    let llm = OpenAiServer::start([]);
    let (_project, pids, printed) = ask_slow(
        &llm,
        "tools:\n  slow: {timeout: 3, background: {after: 1}}\n",
        200,
        ["Started the report.", "The report timed out."],
    );
    assert_eq!(printed["answer"], "Started the report.");
    let follow_up = &printed["follow_ups"][0];
    assert_eq!(follow_up["answer"], "The report timed out.");
    assert_eq!(
        (
            &follow_up["tool_call"]["success"],
            &follow_up["tool_call"]["failure"]
        ),
        (&json!(false), &json!("timeout"))
    );
    assert!(is_gone(read_pid(&pids)));
    let (_, result) = llm.requests()[2].tool_results().pop().unwrap();
    assert!(result.contains("timed out after 3s"), "{result}");
}

/// `background.timeout` is the deadline of a call made in a turn, which
/// may become a task; the tool's `timeout` still bounds a direct call.
#[test]
fn a_tasks_own_timeout_outlasts_the_tools() {
    let llm = OpenAiServer::start([]);
    let (project, pids, printed) = ask_slow(
        &llm,
        "tools:\n  slow: {timeout: 2, background: {after: 1, timeout: 60}}\n",
        4,
        ["Started the report.", "The report is ready."],
    );
    let call = &printed["follow_ups"][0]["tool_call"];
    assert_eq!(
        (&call["success"], &call["data"]),
        (&json!(true), &json!("report ready after 4s")),
        "{printed}"
    );
    let direct = riverse(&project)
        .args(["call", "slow", "seconds=4", &format!("pid_file={pids}")])
        .output()
        .unwrap();
    assert!(!direct.status.success());
    assert!(
        text(&direct.stderr).contains("timed out after 2s"),
        "{direct:?}"
    );
}

/// The page shows the task on the call's card, with its progress and a
/// cancel button, then the answer from it, without a reload.
#[test]
fn the_page_shows_the_task_and_then_the_answer_from_it() {
    if !riverse_test_support::chromium_or_skip() {
        return;
    }
    let llm = OpenAiServer::start([]);
    let project = slow_project(
        &llm,
        "tools:\n  slow: {timeout: 60, background: {after: 1}}\n",
    );
    let pids = pid_file(&project, "slow.pid");
    llm.push([
        ev_tool_call("c1", "slow", json!({"seconds": 5, "pid_file": pids})),
        ev_text("Started the report."),
        ev_text("The report is ready."),
    ]);
    let server = Server::start(&project, &[]);
    let seen = super::serve::python("page_tasks.py", &[&server.url]);
    let task_line: Vec<&str> = seen["task_line"]
        .as_str()
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(task_line.len(), 6, "{seen:#}");
    assert_eq!(task_line[..4], ["in", "the", "background", "as"]);
    assert!(task_line[4].starts_with("task_"), "{seen:#}");
    assert_eq!(task_line[5], "Cancel");
    assert_eq!(seen["cancel_buttons"], 1, "{seen:#}");
    assert_eq!(seen["progress"], "halfway", "{seen:#}");
    assert_eq!(
        seen["answers"],
        json!(["Started the report.", "The report is ready."])
    );
    let card = seen["follow_up_card"].as_str().unwrap();
    assert!(card.contains("report ready after 5s"), "{card}");
}

/// `/v1/tasks` is behind the token as every `/v1` route is, and `riverse
/// tasks cancel` sends the one the settings give.
#[test]
fn the_task_routes_need_the_token_and_cancel_sends_it() {
    let llm = OpenAiServer::start([]);
    let project = slow_project(&llm, "serve: {token: s3cret-token-for-tasks}\n");
    let server = Server::start(&project, &[]);
    let (status, _) = http(&server.url, "GET", "/v1/tasks", None);
    assert_eq!(status, 401);
    let (status, _) = http(&server.url, "POST", "/v1/tasks/task_x/cancel", None);
    assert_eq!(status, 401);
    let cancel = riverse(&project)
        .args(["tasks", "cancel", "task_none", "--url", &server.url])
        .output()
        .unwrap();
    assert_eq!(cancel.status.code(), Some(1));
    assert_eq!(
        text(&cancel.stderr),
        "riverse: can't cancel task_none: task \"task_none\" not found\n"
    );
    let refused = riverse(&project)
        .args(["tasks", "cancel", "../conversations", "--url", &server.url])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let empty = riverse(&project)
        .args(["tasks", "--json"])
        .output()
        .unwrap();
    assert_eq!(
        serde_json::from_slice::<Value>(&empty.stdout).unwrap(),
        json!({"tasks": []})
    );
}

/// A server stopped by SIGTERM lets go of its tasks: the next one fails
/// the interrupted task as soon as it starts looking.
#[test]
fn a_task_left_by_a_stopped_server_is_interrupted_at_the_next_start() {
    let llm = OpenAiServer::start([]).fallback(ev_text("It was interrupted."));
    let (project, pids, server, conversation, _) = a_long_task_in_serve(&llm);
    let id = only_task(&server)["id"].as_str().unwrap().to_owned();
    let worker = read_pid(&pids);
    let (status, _) = server.stop(nix::sys::signal::Signal::SIGTERM);
    assert!(status.success(), "{status:?}");
    eventually(LONG, "the worker's end", || is_gone(worker));

    let server = Server::start(&project, &[]);
    let task = task_when(&server, &id, "the interrupted task", |task| {
        task["state"] != "working"
    });
    assert_eq!(
        (&task["state"], &task["error"]),
        (&json!("failed"), &json!("interrupted"))
    );
    let stored = eventually(LONG, "the follow-up", || {
        let stored = get_json(&server, &format!("/v1/conversations/{conversation}"));
        (stored["messages"].as_array().unwrap().len() == 3
            && stored["messages"][2]["status"] == "done")
            .then_some(stored)
    });
    assert_eq!(stored["messages"][2]["content"], "It was interrupted.");
}
