//! The sandbox's limits on processes, memory, file size and CPU time, and
//! Landlock's signal scope, through the real binary (the scene is
//! `sandbox.rs`'s): a tool stops at each limit, named in its error, leaves no
//! process behind, and signals nothing outside its sandbox.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use pretty_assertions::assert_eq;
use riverse_test_support::{eventually, is_gone, wait_gone};
use serde_json::json;

use super::command::riverse_in;
use super::sandbox::{Scene, Wrong, sandbox_settings};

/// The processes, other than this test's, that run in `dir` or name it.
fn processes_of(dir: &Path) -> Vec<String> {
    let me = std::process::id().to_string();
    let needle = dir.display().to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().into_string().ok()?;
            if pid == me || !pid.bytes().all(|byte| byte.is_ascii_digit()) {
                return None;
            }
            if is_gone(pid.parse().ok()?) {
                return None;
            }
            let cwd = std::fs::read_link(entry.path().join("cwd")).ok();
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            (cwd.as_deref() == Some(dir) || cmdline.contains(&needle))
                .then(|| format!("{pid}: {cmdline}"))
        })
        .collect()
}

fn no_process_left_in(dir: &Path, case: &str) {
    let what = format!("{case}: the processes left behind to end");
    eventually(Duration::from_secs(20), what, || {
        let left = processes_of(dir);
        if left.is_empty() {
            Ok(())
        } else {
            Err(format!("{left:#?}"))
        }
    });
}

/// A fork bomb, of `fork()` or of programs, stops at `processes`, and when
/// the call is over none of its processes is left.
#[test]
fn a_fork_bomb_stops_at_the_process_limit_and_leaves_nothing() {
    let scene = Scene::new("");
    let mut wrong = Wrong::default();
    let pids_file = scene.project.path().join("notes/pids");
    for fork in [true, false] {
        scene.settings(&sandbox_settings(fork, "{write: [notes], processes: 16}"));
        for tool in ["fork_bomb", "spawn_bomb"] {
            let case = format!("fork: {fork}, {tool}");
            let _ = std::fs::remove_file(&pids_file);
            let error = scene.refused(tool, &[]);
            wrong.begins(
                &case,
                &error,
                "sandbox: a new process past python.sandbox.processes (16) (execute() raised BlockingIOError: ",
            );
            let pids: Vec<i32> = std::fs::read_to_string(&pids_file)
                .unwrap_or_default()
                .lines()
                .map(|line| line.parse().unwrap())
                .collect();
            assert!(
                !pids.is_empty() && pids.len() < 16,
                "{case}: it started {} processes",
                pids.len()
            );
            for pid in pids {
                assert!(wait_gone(pid), "{case}: process {pid} is left");
            }
            no_process_left_in(&scene.dir(), &case);
            scene.answers();
            let status = Command::new("true").status().unwrap();
            assert!(
                status.success(),
                "{case}: the machine can't start a process"
            );
        }
    }
    wrong.none();
}

/// The pids cgroup that holds a root's sandbox is Riverse's own, and goes
/// with the riverse process that made it.
#[test]
fn the_pids_cgroup_of_a_sandbox_goes_with_its_riverse() {
    let scene = Scene::new(&sandbox_settings(true, "{processes: 16}"));
    let mut riverse = riverse_in(scene.project.path(), &["call", "echo", "text=hi"]);
    let child = riverse
        .env("HOME", scene.home())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let prefix = format!("riverse-{pid}-");
    let left = || -> Vec<String> {
        std::fs::read_dir("/sys/fs/cgroup/pids")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| entry.file_name().into_string().ok())
            .filter(|name| name.starts_with(&prefix))
            .collect()
    };
    let what = format!("the cgroups of riverse {pid}, which has exited, to go");
    eventually(Duration::from_secs(5), what, || {
        let left = left();
        if left.is_empty() {
            Ok(())
        } else {
            Err(format!("{left:?}"))
        }
    });
}

/// Memory, file size and CPU time past their limits, each named; the worker
/// CPU time ended is replaced, and the calls after it are served.
#[test]
fn memory_file_size_and_cpu_time_stop_at_their_limits() {
    let scene = Scene::new(&sandbox_settings(
        true,
        "{write: [notes], memory_mb: 256, file_size_mb: 1, cpu_seconds: 1}",
    ));
    let mut wrong = Wrong::default();

    let error = scene.refused("hog", &[]);
    wrong.begins(
        "hog",
        &error,
        "sandbox: memory past python.sandbox.memory_mb (256 MB) (execute() raised MemoryError",
    );
    scene.answers();

    let error = scene.refused("big_file", &[]);
    wrong.begins(
        "big_file",
        &error,
        "sandbox: a file written past python.sandbox.file_size_mb (1 MB) (execute() raised OSError: [Errno 27] ",
    );
    let written = std::fs::metadata(scene.project.path().join("notes/big"))
        .unwrap()
        .len();
    assert!(written <= 1024 * 1024, "{written} bytes were written");
    scene.answers();

    let cpu = "sandbox: CPU time past python.sandbox.cpu_seconds (1 s, a worker's in all): \
               tool \"burn\" crashed: the worker was killed by signal 24 (SIGXCPU); \
               a fresh worker will serve later calls";
    let (code, result) = scene.call("burn", &[]);
    assert_eq!(
        (code, &result["success"], &result["failure"]),
        (1, &json!(false), &json!("crashed")),
        "{result}"
    );
    wrong.begins("burn", result["error"].as_str().unwrap(), cpu);
    scene.answers();

    // In one riverse: the fresh worker serves the next call, and has a CPU
    // budget of its own.
    let mut session = scene.mcp();
    for round in 1..=2 {
        let (succeeded, text) = session.call("burn", json!({}));
        assert!(!succeeded, "round {round}: {text}");
        wrong.begins(&format!("burn over MCP, round {round}"), &text, cpu);
        assert_eq!(
            session.call("echo", json!({"text": "still here"})),
            (true, "still here".to_owned()),
            "round {round}"
        );
    }
    wrong.none();
}

/// Landlock's signal scope: a sandboxed tool can't signal a process outside
/// its sandbox, Riverse itself included.
#[test]
fn a_tool_cannot_signal_processes_outside_its_sandbox() {
    let scene = Scene::new("");
    let mut bystander = Command::new("sleep").arg("120").spawn().unwrap();
    let pid = format!("pid={}", bystander.id());
    for fork in [true, false] {
        scene.settings(&sandbox_settings(fork, "{write: [notes]}"));
        let error = scene.refused("kill", &[&pid]);
        assert!(error.contains("PermissionError"), "fork: {fork}: {error}");
        assert!(
            bystander.try_wait().unwrap().is_none(),
            "fork: {fork}: the tool killed a process outside its sandbox"
        );
        scene.answers();
    }
    // A fresh worker's parent is riverse: it answers, not killed.
    let error = scene.refused("kill", &[]);
    assert!(error.contains("PermissionError"), "{error}");
    let _ = bystander.kill();
    let _ = bystander.wait();
}

/// Issue 41: each worker has a signal domain of its own, inside its sandbox,
/// which bounds the `kill(-1)` it ends its tools' processes with when Riverse
/// is killed outright. A forked worker's parent, the fork server, shares the
/// sandbox but not that domain: the tool can't signal it.
#[test]
fn a_tool_in_a_forked_worker_cannot_signal_its_fork_server() {
    let scene = Scene::new(&sandbox_settings(true, "{write: [notes]}"));
    let error = scene.refused("kill", &[]);
    assert!(error.contains("PermissionError"), "{error}");
    scene.answers();
}
