//! Issue 13, Severe 2: a signal that ends Riverse ends every worker it started
//! and their children, and the exit status says which signal it was. Issue
//! 21, M6: so does `kill -9`, for processes that left their worker's group
//! too, and the answer a killed server left running is failed once stale.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use riverse_store::{INTERRUPTED, Liveness, MessageStatus, SqliteStore};
use riverse_test_support::openai::{OpenAiServer, ev_tool_call};
use riverse_test_support::{McpProcess, eventually, fixture, is_gone};
use serde_json::{Value, json};

use super::ask::project_for;
use super::command::{project, riverse_in};
use super::serve::{Server, http};

fn parent_of(pid: i32) -> i32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let (_, rest) = stat.rsplit_once(')').unwrap();
    rest.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// `riverse call hangs` running, and the pids of the worker and of the child
/// the tool started, once both exist.
fn hanging_call(dir: &Path) -> (Child, i32, i32) {
    let pid_file = dir.join("child.pid");
    let params = format!(r#"{{"pid_file": "{}"}}"#, pid_file.display());
    let riverse = riverse_in(dir, &["call", "hangs", "--params", &params])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    eventually(
        Duration::from_secs(20),
        "the tool to start its child",
        || std::fs::read_to_string(&pid_file).is_ok_and(|text| !text.trim().is_empty()),
    );
    let child: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    (riverse, parent_of(child), child)
}

fn ends_everything(signal: Signal, status: Option<i32>) {
    let project = project(&["hangs.py"]);
    project.settings("tools:\n  hangs: {timeout: 120}\n");
    let (mut riverse, worker, child) = hanging_call(project.path());
    kill(Pid::from_raw(riverse.id() as i32), signal).unwrap();
    let exit = riverse.wait().unwrap();
    assert_eq!(exit.code(), status, "riverse ended with {exit}");
    eventually(
        Duration::from_secs(20),
        "the worker to end with riverse",
        || is_gone(worker),
    );
    eventually(
        Duration::from_secs(20),
        "the tool's child to end with riverse",
        || is_gone(child),
    );
}

#[test]
fn sigint_during_a_call_ends_the_worker_and_its_child_with_status_130() {
    ends_everything(Signal::SIGINT, Some(130));
}

#[test]
fn sigterm_during_a_call_ends_the_worker_and_its_child_with_status_143() {
    ends_everything(Signal::SIGTERM, Some(143));
}

#[test]
fn sighup_during_a_call_ends_the_worker_and_its_child_with_status_129() {
    ends_everything(Signal::SIGHUP, Some(129));
}

/// SIGKILL cannot be handled: the worker notices its parent is gone and takes
/// its process group with it.
#[test]
fn sigkill_of_riverse_still_ends_the_worker_and_its_child() {
    ends_everything(Signal::SIGKILL, None);
}

/// Issue 13, defect 8: an MCP server still starting at `mcp.startup_timeout`
/// does not outlive the command.
#[test]
fn an_mcp_server_that_never_finishes_starting_does_not_outlive_riverse() {
    let project = project(&[]);
    let pid_file = project.path().join("server.pid");
    project.file(
        "slow_server.py",
        "import os, time\nopen('server.pid', 'w').write(str(os.getpid()))\ntime.sleep(600)\n",
    );
    project.settings(
        "mcp:\n  enabled: true\n  startup_timeout: 1\n  servers:\n    \
         - {name: slow, command: python3, args: [slow_server.py]}\n",
    );
    let ran = super::command::riverse(&project, &["tools"]);
    assert!(ran.stdout.contains("did not start within 1s"), "{ran:#?}");
    let server: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    eventually(
        Duration::from_secs(20),
        "the mcp server to end with riverse",
        || is_gone(server),
    );
}

/// `riverse call TOOL` running until `count` pids are in its pid file: the
/// riverse process, and the pids.
fn call_writing_pids(dir: &Path, tool: &str, count: usize) -> (Child, Vec<i32>) {
    let pid_file = dir.join("pids");
    let params = format!(r#"{{"pid_file": "{}"}}"#, pid_file.display());
    let riverse = riverse_in(dir, &["call", tool, "--params", &params])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    (riverse, pids_once(&pid_file, count))
}

/// Issue 21, M6: `kill -9` of Riverse leaves no process a tool started,
/// even one that left the worker's process group with setsid, whether it
/// is still the worker's descendant or was orphaned before, with workers
/// forked by the fork server or started fresh.
fn sigkill_leaves_no_escaped_process(fork: bool, fixture: &str, count: usize) {
    let project = project(&[fixture]);
    let tool = fixture.trim_end_matches(".py");
    project.settings(&format!(
        "python: {{fork: {fork}}}\ntools:\n  {tool}: {{timeout: 120}}\n"
    ));
    let (mut riverse, pids) = call_writing_pids(project.path(), tool, count);
    for &pid in &pids {
        assert!(
            !is_gone(pid),
            "process {pid} ended before riverse was killed"
        );
    }
    kill(Pid::from_raw(riverse.id() as i32), Signal::SIGKILL).unwrap();
    riverse.wait().unwrap();
    for pid in pids {
        eventually(
            Duration::from_secs(20),
            format!("process {pid} to end with riverse"),
            || is_gone(pid),
        );
    }
}

#[test]
fn sigkill_of_riverse_ends_an_orphan_that_left_its_group_in_a_forked_worker() {
    sigkill_leaves_no_escaped_process(true, "escapes_its_group.py", 1);
}

#[test]
fn sigkill_of_riverse_ends_an_orphan_that_left_its_group_in_a_fresh_worker() {
    sigkill_leaves_no_escaped_process(false, "escapes_its_group.py", 1);
}

#[test]
fn sigkill_of_riverse_ends_children_in_sessions_of_their_own_in_a_forked_worker() {
    sigkill_leaves_no_escaped_process(true, "leaves_its_group.py", 2);
}

#[test]
fn sigkill_of_riverse_ends_children_in_sessions_of_their_own_in_a_fresh_worker() {
    sigkill_leaves_no_escaped_process(false, "leaves_its_group.py", 2);
}

/// Kills the processes it holds when dropped, so that a failing test leaves
/// none of them running.
struct Leftovers(Vec<i32>);

impl Drop for Leftovers {
    fn drop(&mut self) {
        for &pid in &self.0 {
            if !is_gone(pid) {
                let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
            }
        }
    }
}

/// Issue 41: in a project made by `riverse init`, whose tools run in
/// `python.sandbox` (where a worker can't read /proc to find its children),
/// `kill -9` of `riverse mcp` still ends what a tool left running in
/// sessions of their own, its child and an orphan, and nothing outside the
/// sandbox.
fn sigkill_leaves_no_sandboxed_process(fork: bool) {
    let project = project(&[]);
    super::command::riverse(&project, &["init", "demo"]).exits(0);
    let demo = project.path().join("demo");
    let settings = std::fs::read_to_string(demo.join("settings.yaml")).unwrap();
    assert!(settings.contains("\n  sandbox:\n"), "{settings}");
    let settings = settings.replacen("fork: true", &format!("fork: {fork}"), 1);
    project.file("demo/settings.yaml", &settings);
    project.file("demo/agent/tools/detaches.py", &fixture("detaches.py"));
    let mut outside = Command::new("sleep").arg("300").spawn().unwrap();
    let _outside = Leftovers(vec![outside.id() as i32]);

    let mut session = McpProcess::start(riverse_in(&demo, &["mcp"]));
    let (succeeded, text) = session.call("detaches", json!({}));
    assert!(succeeded, "{text}");
    let pids: Vec<i32> = text
        .split_whitespace()
        .map(|pid| pid.parse().unwrap())
        .collect();
    let _left = Leftovers(pids.clone());
    assert_eq!(pids.len(), 2, "{text}");
    for &pid in &pids {
        assert!(
            !is_gone(pid),
            "process {pid} ended before riverse was killed"
        );
    }
    drop(session); // kills `riverse mcp` with SIGKILL
    for &pid in &pids {
        eventually(
            Duration::from_secs(20),
            format!("process {pid} to end with riverse mcp"),
            || is_gone(pid),
        );
    }
    assert!(
        outside.try_wait().unwrap().is_none(),
        "a process outside the sandbox was killed"
    );
}

#[test]
fn sigkill_of_riverse_ends_what_a_sandboxed_tool_left_in_a_forked_worker() {
    sigkill_leaves_no_sandboxed_process(true);
}

#[test]
fn sigkill_of_riverse_ends_what_a_sandboxed_tool_left_in_a_fresh_worker() {
    sigkill_leaves_no_sandboxed_process(false);
}

/// The pids in `pid_file` once there are `count`.
fn pids_once(pid_file: &Path, count: usize) -> Vec<i32> {
    let pids = || -> Vec<i32> {
        std::fs::read_to_string(pid_file)
            .unwrap_or_default()
            .lines()
            .filter_map(|line| line.trim().parse().ok())
            .collect()
    };
    eventually(
        Duration::from_secs(20),
        "the tool to start its processes",
        || pids().len() >= count,
    );
    pids()
}

/// Sends a message to conversation `id` and leaves without reading: the
/// connection, held open for the turn.
fn send_message(url: &str, id: &str, content: &str) -> std::net::TcpStream {
    use std::io::Write;
    let address = url.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    let body = json!({"content": content, "stream": true}).to_string();
    write!(
        stream,
        "POST /v1/conversations/{id}/messages HTTP/1.1\r\nHost: {address}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    stream
}

/// The answer of conversation `id`, as the server at `url` shows it.
fn answer_at(url: &str, id: &str) -> Value {
    let (status, body) = http(url, "GET", &format!("/v1/conversations/{id}"), None);
    assert_eq!(status, 200, "{body}");
    let conversation: Value = serde_json::from_str(&body).unwrap();
    conversation["messages"][1].clone()
}

/// Issue 21, M6 (the review's case): `riverse serve` killed with SIGKILL
/// while a tool runs. The tool's processes, in sessions of their own, end;
/// the answer stays running while its heartbeat is fresh (its server might
/// be alive elsewhere), and once it is stale a server fails it, with its
/// unfinished tool call.
#[test]
fn sigkill_of_riverse_serve_mid_turn_leaves_no_process_and_then_a_failed_answer() {
    let pid_file = tempfile::NamedTempFile::new().unwrap().into_temp_path();
    let llm = OpenAiServer::start([ev_tool_call(
        "c1",
        "leaves_its_group",
        json!({"pid_file": pid_file.display().to_string()}),
    )]);
    let project = project_for(&llm, "tools:\n  leaves_its_group: {timeout: 120}\n");
    project.fixture("leaves_its_group.py");
    let killed = Server::start(&project, &[]);
    let (status, created) = http(&killed.url, "POST", "/v1/conversations", None);
    assert_eq!(status, 200, "{created}");
    let id = serde_json::from_str::<Value>(&created).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let _turn = send_message(&killed.url, &id, "start them");
    let pids = pids_once(&pid_file, 2);
    killed.stop(Signal::SIGKILL);
    for pid in pids {
        eventually(
            Duration::from_secs(20),
            format!("process {pid} to end with riverse serve"),
            || is_gone(pid),
        );
    }

    let restarted = Server::start(&project, &[]);
    let answer = answer_at(&restarted.url, &id);
    assert_eq!(answer["status"], "running", "{answer}");
    assert_eq!(answer["tool_calls"][0]["success"], Value::Null, "{answer}");

    // Time passing beyond the stale bound, as a store judging by a bound
    // shorter than the heartbeats' age sees it.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        std::thread::sleep(Duration::from_millis(20));
        let later = Liveness {
            heartbeat: Duration::from_millis(1),
            stale_after: Duration::from_millis(10),
        };
        let path = project.path().join(".riverse/riverse.db");
        let store = SqliteStore::open_with(&path, later).await.unwrap();
        let stored = store.conversation(&id).await.unwrap().unwrap();
        assert_eq!(stored.messages[1].status, MessageStatus::Failed);
    });
    let answer = answer_at(&restarted.url, &id);
    assert_eq!(
        (
            answer["status"].clone(),
            answer["error"].clone(),
            answer["tool_calls"][0]["success"].clone(),
            answer["tool_calls"][0]["error"].clone(),
        ),
        (
            json!("failed"),
            json!(INTERRUPTED),
            json!(false),
            json!(INTERRUPTED)
        )
    );
}
