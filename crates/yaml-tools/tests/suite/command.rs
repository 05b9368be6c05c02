//! Command agents running real programs.

use pretty_assertions::assert_eq;
use riverse_tool::{FailureKind, Registry, ToolResult};
use serde_json::json;

use super::support::{call, options, project, registry, write};

fn agents(yaml: &str) -> (tempfile::TempDir, Registry) {
    let project = project(yaml);
    write(
        project.path(),
        "scripts/report.py",
        "import sys\nprint('args:', sys.argv[1:])\n",
    );
    let registry = registry(&options(project.path(), "en"));
    (project, registry)
}

const AGENTS: &str = r#"
agents:
  - name: report
    type: command
    parameters: {target: "cpu / memory", note: "free text"}
    command:
      template: "python3 scripts/report.py --target {target} --note {note}"
      allowed_params:
        target: [cpu, memory]
  - name: report_shell
    type: command
    parameters: {note: "free text"}
    command:
      template: "echo note: {note}"
      shell: true
  - name: fails
    type: command
    command:
      template: "sh -c 'echo broken >&2; exit 3'"
  - name: sleeps
    type: command
    command:
      template: "sleep 30"
      timeout: 0.5
"#;

#[tokio::test]
async fn a_value_is_one_argument_and_never_reaches_a_shell() {
    let (project, registry) = agents(AGENTS);
    assert_eq!(
        call(
            &registry,
            "report",
            json!({"target": "cpu", "note": "a b; touch pwned $(id)"})
        )
        .await,
        ToolResult::ok("args: ['--target', 'cpu', '--note', 'a b; touch pwned $(id)']")
    );
    assert!(!project.path().join("pwned").exists());
}

#[tokio::test]
async fn allowed_params_refuse_other_values() {
    let (_project, registry) = agents(AGENTS);
    assert_eq!(
        call(&registry, "report", json!({"target": "disk; rm -rf ~"})).await,
        ToolResult::failed(
            FailureKind::Denied,
            "parameter \"target\": \"disk; rm -rf ~\" is not allowed; allowed: cpu, memory"
        )
    );
}

#[tokio::test]
async fn with_a_shell_an_injection_attempt_is_quoted() {
    let (project, registry) = agents(AGENTS);
    assert_eq!(
        call(
            &registry,
            "report_shell",
            json!({"note": "hi'; touch pwned; echo '$(touch pwned2)"})
        )
        .await,
        ToolResult::ok("note: hi'; touch pwned; echo '$(touch pwned2)")
    );
    assert!(!project.path().join("pwned").exists());
    assert!(!project.path().join("pwned2").exists());
}

#[tokio::test]
async fn a_failing_command_reports_its_status_and_stderr() {
    let (_project, registry) = agents(AGENTS);
    assert_eq!(
        call(&registry, "fails", json!({})).await,
        ToolResult::failed(
            FailureKind::ToolError,
            "\"sh\" exited with status 3: broken"
        )
    );
}

#[tokio::test]
async fn a_command_past_its_deadline_is_killed() {
    let (_project, registry) = agents(AGENTS);
    let started = std::time::Instant::now();
    assert_eq!(
        call(&registry, "sleeps", json!({})).await,
        ToolResult::failed(
            FailureKind::Timeout,
            "\"sleep\" timed out after 0.5s; it was killed"
        )
    );
    // Not a speed assertion: a kill that did not happen would wait 30 s.
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
}

#[tokio::test]
async fn a_missing_program_is_named() {
    let (_project, registry) = agents(
        "agents:\n  - {name: ghost, type: command, command: {template: riverse-no-such-program}}\n",
    );
    assert_eq!(
        call(&registry, "ghost", json!({})).await,
        ToolResult::failed(
            FailureKind::Unavailable,
            "can't run \"riverse-no-such-program\": No such file or directory (os error 2)"
        )
    );
}
