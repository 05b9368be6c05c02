//! Issue 13, Severe 2: a signal that ends Riverse ends every worker it started
//! and their children, and the exit status says which signal it was.

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use riverse_test_support::is_gone;

use super::command::{project, riverse_in};

fn parent_of(pid: i32) -> i32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let (_, rest) = stat.rsplit_once(')').unwrap();
    rest.split_whitespace().nth(1).unwrap().parse().unwrap()
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < Duration::from_secs(20), "{what}");
        std::thread::sleep(Duration::from_millis(20));
    }
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
    wait_until("the tool never started its child", || {
        std::fs::read_to_string(&pid_file).is_ok_and(|text| !text.trim().is_empty())
    });
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
    wait_until("the worker survived riverse", || is_gone(worker));
    wait_until("the tool's child survived riverse", || is_gone(child));
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
    wait_until("the mcp server outlived riverse", || is_gone(server));
}
