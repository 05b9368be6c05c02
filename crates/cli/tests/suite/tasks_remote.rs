//! A background task whose call runs on another Riverse serving MCP over
//! HTTP (issue 45): the call becomes a task of that server, whose id is kept
//! on the task's row; a `riverse serve` killed with -9 and started again
//! asks that server about it and delivers its result to the conversation.

use nix::sys::signal::Signal;
use pretty_assertions::assert_eq;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call};
use riverse_test_support::{Project, eventually, is_gone};
use serde_json::json;

use super::serve::Server;
use super::tasks::{LONG, SLOW, get_json, kill_9, pid_file, post_message, read_pid, task_when};

/// `riverse mcp --http` serving the slow tools of a project of its own.
fn tool_host() -> (Project, Server) {
    let project = Project::new();
    project.tool("slow.py", SLOW);
    let server = Server::start_with(&project, &["mcp", "--http", "127.0.0.1:0"], &[]);
    (project, server)
}

/// A project with no tools of its own that uses `host`'s over MCP, in the
/// 2026-07-28 protocol (whose tasks Riverse's server gives), `slow` in the
/// background after a second.
fn front_project(llm: &OpenAiServer, host: &Server) -> Project {
    let project = Project::new();
    project.settings(&format!(
        "llm_provider: openai\nopenai: {{api_base: \"{}\", api_key: sk-file, max_retries: 0}}\n\
         mcp:\n  enabled: true\n  servers:\n    - {{name: far, url: \"{}/mcp\", protocol: \"2026-07-28\"}}\n\
         tools:\n  mcp_far_slow: {{timeout: 300, background: {{after: 1}}}}\n",
        llm.url(),
        host.url
    ));
    project
}

#[test]
fn a_task_on_a_remote_riverse_is_asked_about_again_after_kill_9() {
    asked_again_after(Signal::SIGKILL);
}

/// A server stopped in good order lets go of the task without cancelling
/// it on the tool's server: the next one follows it from there.
#[test]
fn a_task_on_a_remote_riverse_outlives_a_stop_in_good_order() {
    asked_again_after(Signal::SIGTERM);
}

/// A task of `mcp_far_slow` started, `riverse serve` stopped with `signal`
/// and started again: the task ends with the remote call's result.
fn asked_again_after(signal: Signal) {
    let (host_project, host) = tool_host();
    let llm = OpenAiServer::start([]).fallback(ev_text("Noted."));
    let front = front_project(&llm, &host);
    let pids = pid_file(&host_project, "slow.pid");
    llm.push([
        ev_tool_call(
            "c1",
            "mcp_far_slow",
            json!({"seconds": 12, "pid_file": pids}),
        ),
        ev_text("Started the report."),
    ]);
    let server = Server::start(&front, &[]);
    let (conversation, answer) = post_message(&server, "Build the report");
    assert_eq!(answer["content"], "Started the report.", "{answer}");
    let worker = read_pid(&pids);
    // The call became a task of the tool's server before the kill, and its
    // id is on the task's row.
    let listed = eventually(LONG, "the server's task on the row", || {
        let list = get_json(&server, "/v1/tasks");
        let task = list["data"][0].clone();
        task["handed_over"].is_string().then_some(task)
    });
    assert_eq!(
        (&listed["tool"], &listed["state"]),
        (&json!("mcp_far_slow"), &json!("working"))
    );
    let id = listed["id"].as_str().unwrap().to_owned();
    if signal == Signal::SIGKILL {
        kill_9(server);
    } else {
        let (status, stderr) = server.stop(signal);
        assert_eq!(status.code(), Some(0), "{stderr}");
    }
    // The tool goes on where it runs.
    assert!(!is_gone(worker), "the remote worker outlives the kill");

    let server = Server::start(&front, &[]);
    let ended = task_when(&server, &id, "the remote task's end", |task| {
        task["state"] != "working"
    });
    assert_eq!(ended["state"], "completed", "{ended}");
    assert_eq!(ended["result"]["data"], "report ready after 12s");
    assert_eq!(ended["handed_over"], listed["handed_over"]);
    // The result reached the conversation in a follow-up, under the task's id.
    eventually(LONG, "the follow-up", || {
        let stored = get_json(&server, &format!("/v1/conversations/{conversation}"));
        let messages = stored["messages"].as_array().unwrap().clone();
        (messages.len() == 3 && messages[2]["status"] == "done").then_some(())
    });
    let told: Vec<String> = llm
        .requests()
        .iter()
        .flat_map(|request| request.tool_results())
        .filter(|(call, _)| *call == id)
        .map(|(_, result)| result.clone())
        .collect();
    assert_eq!(told, vec!["report ready after 12s".to_owned()]);
    drop(server);
    drop(host);
}
