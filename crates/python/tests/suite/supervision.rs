//! Supervision: deadlines, dying workers, parallel calls, no interpreter.

use std::path::Path;
use std::time::Duration;

use pretty_assertions::assert_eq;
use riverse_test_support::{Project, eventually_async, is_gone};
use riverse_tool::{FailureKind, Status, ToolPolicy, ToolResult};
use serde_json::{Value, json};

use super::support::{
    Row, assert_echo_answers, call, options, policy, project, registry, registry_with, rows,
};

fn one_second(name: &str) -> riverse_tool::RegistryOptions {
    let timeout = ToolPolicy {
        disabled: None,
        timeout: Some(Duration::from_secs(1)),
        ..ToolPolicy::default()
    };
    policy(name, timeout)
}

async fn worker_pid(registry: &riverse_tool::Registry) -> i32 {
    let result = call(registry, "worker_pid", json!({})).await;
    result
        .data
        .parse()
        .unwrap_or_else(|_| panic!("not a pid: {result:?}"))
}

#[tokio::test]
async fn a_call_past_its_deadline_kills_the_worker_and_its_children_and_a_fresh_worker_answers() {
    let project = project(&["hangs.py", "worker_pid.py"]);
    let registry = registry_with(options(&project), one_second("hangs")).await;
    let before = worker_pid(&registry).await;
    let pid_file = project.path().join("child.pid");
    let result = call(&registry, "hangs", json!({"pid_file": pid_file})).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::Timeout));
    insta::assert_snapshot!(result.error, @r#"tool "hangs" timed out after 1s; its worker was killed and a fresh one will serve later calls"#);
    let child: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // The point is that the kill reached the worker and the tool's child at
    // all (the child would otherwise sleep for ten minutes); dying takes a
    // moment after SIGKILL.
    let what = format!("the hung tool's child {child} to end with its worker");
    eventually_async(Duration::from_secs(10), what, || is_gone(child)).await;
    let what = format!("the hung worker {before} to end at its deadline");
    eventually_async(Duration::from_secs(10), what, || is_gone(before)).await;
    assert_echo_answers(&registry).await;
    assert_ne!(worker_pid(&registry).await, before);
}

#[tokio::test]
async fn a_worker_ending_with_os_exit_fails_the_call_with_its_status() {
    let project = project(&["os_exit.py"]);
    let registry = registry(options(&project)).await;
    let result = call(&registry, "os_exit", json!({})).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::Crashed));
    insta::assert_snapshot!(result.error, @r#"tool "os_exit" crashed: the worker exited with status 3; a fresh worker will serve later calls"#);
    assert_echo_answers(&registry).await;
}

#[tokio::test]
async fn a_segfault_is_named_by_its_signal() {
    let project = project(&["segfault.py"]);
    let registry = registry(options(&project)).await;
    let result = call(&registry, "segfault", json!({})).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::Crashed));
    assert!(
        result.error.contains("killed by signal 11 (SIGSEGV)"),
        "{}",
        result.error
    );
    assert_echo_answers(&registry).await;
    // A second crash is survived as well as the first.
    assert!(!call(&registry, "segfault", json!({})).await.success);
    assert_echo_answers(&registry).await;
}

#[tokio::test]
async fn independent_calls_run_at_the_same_time_on_different_workers() {
    let project = project(&["parallel.py"]);
    let meeting = project.path().join("meeting");
    std::fs::create_dir(&meeting).unwrap();
    let mut options = options(&project);
    options.workers = 2;
    let registry = registry(options).await;
    let params = |token: &str| json!({"dir": meeting, "expect": "2", "token": token});
    let (first, second) = tokio::join!(
        call(&registry, "parallel", params("first")),
        call(&registry, "parallel", params("second")),
    );
    let report = |result: ToolResult| -> Value {
        assert!(result.success, "{}", result.error);
        serde_json::from_str(&result.data).unwrap()
    };
    let (first, second) = (report(first), report(second));
    assert_eq!(
        (first["met"].clone(), second["met"].clone()),
        (json!(true), json!(true))
    );
    assert_ne!(first["pid"], second["pid"]);
    let span = |report: &Value| {
        (
            report["start"].as_f64().unwrap(),
            report["end"].as_f64().unwrap(),
        )
    };
    let ((start_a, end_a), (start_b, end_b)) = (span(&first), span(&second));
    assert!(
        start_a < end_b && start_b < end_a,
        "{first} and {second} do not overlap"
    );
}

#[tokio::test]
async fn a_missing_interpreter_is_one_failure_naming_it() {
    let project = project(&[]);
    let mut options = options(&project);
    options.interpreter = Some("/nonexistent/python3".into());
    let registry = registry(options).await;
    assert_eq!(
        rows(&registry),
        [Row {
            name: None,
            status: Status::Error,
            source: "python (/nonexistent/python3)".into(),
            error: Some("can't find a Python interpreter (tried /nonexistent/python3)".into()),
        }]
    );
    assert_eq!(
        registry
            .call("echo", Default::default())
            .await
            .unwrap_err()
            .to_string(),
        "unknown tool \"echo\""
    );
}

#[tokio::test]
async fn an_interpreter_that_is_not_python_is_one_failure_naming_it() {
    let project = project(&[]);
    let fake = project.path().join("not-python");
    write_executable(&fake, "#!/bin/sh\necho 'not a python' >&2\nexit 7\n");
    let mut options = options(&project);
    options.interpreter = Some(fake.display().to_string());
    let registry = registry(options).await;
    assert_eq!(
        rows(&registry),
        [Row {
            name: None,
            status: Status::Error,
            source: format!("python ({})", fake.display()),
            error: Some(format!(
                "can't start python worker {}: it exited with status 7: not a python",
                fake.display()
            )),
        }]
    );
}

fn write_executable(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[tokio::test]
async fn a_relative_interpreter_resolves_against_the_project() {
    let project = Project::new();
    project.fixture("echo.py");
    let python = which_python3();
    let link = project.path().join("py");
    std::os::unix::fs::symlink(&python, &link).unwrap();
    let mut options = options(&project);
    options.interpreter = Some("./py".into());
    let registry = registry(options).await;
    assert_echo_answers(&registry).await;
}

/// The interpreter itself, not a version manager's shim (a shim reached
/// through a link named otherwise does not know what to run).
fn which_python3() -> std::path::PathBuf {
    let output = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 on PATH");
    std::path::PathBuf::from(String::from_utf8(output.stdout).unwrap().trim())
}
