//! Workers forked from a fork server that imported the tools once (issue 14).

use std::time::Duration;

use pretty_assertions::assert_eq;
use riverse_test_support::eventually_async;
use riverse_tool::ToolResult;
use serde_json::{Value, json};

use super::support::{call, fork_mode, options, project, registry};

/// The pid of the parent of the worker that runs the call.
async fn parent_pid(registry: &riverse_tool::Registry) -> u32 {
    let result = call(registry, "server_pid", json!({})).await;
    result
        .data
        .parse()
        .unwrap_or_else(|_| panic!("not a pid: {result:?}"))
}

#[tokio::test]
async fn workers_are_forked_from_a_fork_server_unless_forking_is_off() {
    let project = project(&["server_pid.py"]);
    for fork in [true, false] {
        let mut options = options(&project);
        options.fork = fork;
        let registry = registry(options).await;
        let parent = parent_pid(&registry).await;
        assert_eq!(
            parent != std::process::id(),
            fork,
            "fork: {fork}, the worker's parent: {parent}"
        );
    }
}

/// `riverse tools` (issue 28): with `first_worker_fresh`, the worker that
/// discovers the tools is a fresh interpreter, and the fork server starts
/// only for a second worker, which it forks.
#[tokio::test]
async fn with_the_first_worker_fresh_the_fork_server_starts_for_the_second() {
    let project = project(&["server_pid.py", "parallel.py"]);
    let mut options = options(&project);
    options.fork = true;
    options.first_worker_fresh = true;
    options.workers = 2;
    let registry = registry(options).await;
    assert_eq!(parent_pid(&registry).await, std::process::id());

    let meeting = project.path().join("meeting");
    std::fs::create_dir(&meeting).unwrap();
    let params = |token: &str| json!({"dir": meeting, "expect": "2", "token": token});
    let (first, second) = tokio::join!(
        call(&registry, "parallel", params("first")),
        call(&registry, "parallel", params("second")),
    );
    assert!(first.success && second.success, "{first:?} {second:?}");
    let mut parents: Vec<bool> = [first, second]
        .iter()
        .map(|result| {
            let report: Value = serde_json::from_str(&result.data).unwrap();
            let pid = report["pid"].as_u64().unwrap() as u32;
            parent_of(pid) == std::process::id()
        })
        .collect();
    parents.sort();
    assert_eq!(parents, [false, true], "one worker fresh, one forked");
}

/// The parent of a live process.
fn parent_of(pid: u32) -> u32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    parent_in(&stat).unwrap_or_else(|| panic!("no parent in /proc/{pid}/stat: {stat}"))
}

/// The parent pid a `/proc/PID/stat` line names (after the command's name,
/// which may hold spaces and parentheses, and the state).
fn parent_in(stat: &str) -> Option<u32> {
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(1)?.parse().ok()
}

#[tokio::test]
async fn a_tool_that_starts_a_thread_at_import_makes_workers_fresh_interpreters_and_still_works() {
    let project = project(&["starts_thread.py", "server_pid.py"]);
    let mut options = options(&project);
    options.fork = true;
    let registry = registry(options).await;
    assert_eq!(
        call(&registry, "starts_thread", json!({})).await,
        ToolResult::ok("ticking")
    );
    assert_eq!(parent_pid(&registry).await, std::process::id());
}

#[tokio::test]
async fn killing_the_fork_server_mid_run_lets_calls_in_flight_finish_and_a_new_one_serves() {
    if !fork_mode() {
        return;
    }
    let project = project(&["server_pid.py", "parallel.py"]);
    let mut options = options(&project);
    options.workers = 2;
    let registry = std::sync::Arc::new(registry(options).await);
    let server = parent_pid(&registry).await;
    assert_ne!(server, std::process::id());

    let meeting = project.path().join("meeting");
    std::fs::create_dir(&meeting).unwrap();
    let in_flight = {
        let registry = registry.clone();
        let params = json!({"dir": meeting, "expect": "2", "token": "in-flight"});
        tokio::spawn(async move { call(&registry, "parallel", params).await })
    };
    eventually_async(Duration::from_secs(10), "the call to start", || {
        meeting.join("in-flight").exists()
    })
    .await;
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(server as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    std::fs::write(meeting.join("peer"), "").unwrap();
    let finished = in_flight.await.unwrap();
    assert!(finished.success, "{}", finished.error);
    let report: Value = serde_json::from_str(&finished.data).unwrap();
    assert_eq!(report["met"], json!(true));

    // Two calls at once need a second worker, which a new fork server forks.
    let again = project.path().join("again");
    std::fs::create_dir(&again).unwrap();
    let params = |token: &str| json!({"dir": again, "expect": "2", "token": token});
    let (first, second) = tokio::join!(
        call(&registry, "parallel", params("first")),
        call(&registry, "parallel", params("second")),
    );
    assert!(first.success && second.success, "{first:?} {second:?}");
    let parents = [parent_pid(&registry).await, parent_pid(&registry).await];
    assert!(
        !parents.contains(&server),
        "a worker still names the killed fork server {server} as its parent"
    );
}

/// The pids whose parent is `parent`.
fn children_of(parent: u32) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        if parent_in(&stat) == Some(parent) {
            found.push(pid);
        }
    }
    found
}

#[tokio::test]
async fn a_prestarting_pool_starts_every_worker_without_a_call() {
    let project = project(&["server_pid.py"]);
    let mut options = options(&project);
    options.fork = true;
    options.workers = 3;
    options.prestart = true;
    let registry = registry(options).await;
    let server = parent_pid(&registry).await;
    let what = format!("the fork server {server} to have 3 children");
    eventually_async(Duration::from_secs(10), what, || {
        let children = children_of(server);
        if children.len() >= 3 {
            Ok(())
        } else {
            Err(format!("{children:?}"))
        }
    })
    .await;
}

/// The pids `init_log.py` logged, one per instantiation.
fn instantiations(log: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn a_forked_worker_instantiates_each_tool_at_its_first_call() {
    if !fork_mode() {
        return;
    }
    let project = project(&["init_log.py", "os_exit.py", "worker_pid.py"]);
    let log = project.path().join("init.log");
    let refuse = project.path().join("refuse");
    let mut options = options(&project);
    options.config = json!({"tools": {"init_log": {"log": log, "refuse": refuse}}});
    let registry = registry(options).await;
    let discovering = instantiations(&log);
    assert_eq!(discovering.len(), 1, "{discovering:?}");

    // The worker that discovered the tools ends; the next one is forked
    // knowing them, and serves a call without instantiating the others.
    assert!(!call(&registry, "os_exit", json!({})).await.success);
    let forked = call(&registry, "worker_pid", json!({})).await.data;
    assert_ne!(forked, discovering[0]);
    assert_eq!(instantiations(&log), discovering);

    assert_eq!(
        call(&registry, "init_log", json!({})).await,
        ToolResult::ok(forked.clone())
    );
    assert_eq!(
        call(&registry, "init_log", json!({})).await,
        ToolResult::ok(forked.clone())
    );
    assert_eq!(instantiations(&log), [discovering[0].clone(), forked]);

    // An `__init__` that raises at a first call fails that call, saying
    // where, and the worker goes on serving the other tools.
    std::fs::write(&refuse, "").unwrap();
    assert!(!call(&registry, "os_exit", json!({})).await.success);
    let failed = call(&registry, "init_log", json!({})).await;
    assert!(!failed.success);
    assert!(
        failed
            .error
            .contains("InitLog.__init__() raised RuntimeError: refused (init_log.py:16)"),
        "{}",
        failed.error
    );
    let serving = call(&registry, "worker_pid", json!({})).await;
    assert!(serving.success, "{}", serving.error);
    assert_eq!(instantiations(&log).len(), 3);
}
