//! Regression tests for issue 13 (hardening): what a hostile tool file does to
//! its worker stays that file's problem.

use pretty_assertions::assert_eq;
use riverse_tool::{Status, ToolResult};
use serde_json::json;

use super::support::{
    assert_echo_answers, available, call, failed, options, project, registry, registry_beside_echo,
    rows,
};

/// Issue 13, Severe 1: a file that kills the worker while it loads is skipped
/// and named; the other tools load.
#[tokio::test]
async fn a_file_that_segfaults_on_import_is_skipped_and_named() {
    registry_beside_echo(
        "import_segfaults.py",
        failed(
            None,
            Status::Error,
            "import_segfaults.py",
            "the worker was killed by signal 11 (SIGSEGV) while loading this file (import_segfaults.py)",
        ),
    )
    .await;
}

#[tokio::test]
async fn a_tool_whose_init_exits_the_worker_is_skipped_and_named() {
    registry_beside_echo(
        "init_exits.py",
        failed(
            None,
            Status::Error,
            "init_exits.py",
            "the worker exited with status 0 while loading this file (init_exits.py)",
        ),
    )
    .await;
}

#[tokio::test]
async fn a_tool_writing_on_the_protocol_stream_while_loading_is_skipped_and_named() {
    registry_beside_echo(
        "manifest_writes_protocol.py",
        failed(
            None,
            Status::Error,
            "manifest_writes_protocol.py",
            "the worker's protocol stream carried an invalid line (expected value at line 1 column 1): \"garbage\" while loading this file (manifest_writes_protocol.py)",
        ),
    )
    .await;
}

/// Issue 13, Severe 1: a later worker that dies importing a file (which loaded
/// once) skips it, and the call it was spawned for runs.
#[tokio::test]
async fn a_file_that_crashes_only_on_its_second_import_does_not_break_later_calls() {
    let project = project(&["crashes_on_second_import.py", "os_exit.py"]);
    let registry = registry(options(&project)).await;
    assert_eq!(
        rows(&registry),
        [
            available("crashes_on_second_import", "crashes_on_second_import.py"),
            available("echo", "echo.py"),
            available("os_exit", "os_exit.py"),
        ]
    );
    // The worker goes; the next one dies importing the file, and the one after
    // skips it. Forked workers never import it again: the fork server did,
    // once for the generation, and the tool keeps working.
    assert!(!call(&registry, "os_exit", json!({})).await.success);
    assert_echo_answers(&registry).await;
    assert_echo_answers(&registry).await;
    let expected = if super::support::fork_mode() {
        ToolResult::ok("first worker only")
    } else {
        ToolResult::tool_error("unknown tool \"crashes_on_second_import\"")
    };
    assert_eq!(
        call(&registry, "crashes_on_second_import", json!({})).await,
        expected
    );
}

/// The most memory this process has held at once, in bytes.
fn peak_memory() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|line| line.starts_with("VmHWM:"))
        .unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

/// Issue 13, Severe 3: a huge result is cut by the worker and never held by
/// the host; the marker gives its original size.
#[tokio::test]
async fn a_200_mb_result_is_cut_with_its_size_and_the_host_never_holds_it() {
    let project = project(&["returns_200mb.py"]);
    let mut options = options(&project);
    options.limits.max_output_bytes = 10;
    let registry = registry(options).await;
    let before = peak_memory();
    let result = call(&registry, "returns_200mb", json!({})).await;
    let grown = peak_memory().saturating_sub(before);
    assert_eq!(
        result,
        ToolResult::ok("xxxxxxxxxx\n[output truncated: showing the first 10 of 200000000 bytes]")
    );
    assert!(
        grown < 32 << 20,
        "the host's peak memory grew by {grown} bytes for one result"
    );
    assert_echo_answers(&registry).await;
}

/// Issue 13, defect 5: a stray write to the descriptor where the protocol used
/// to be does not reach it.
#[tokio::test]
async fn a_background_thread_writing_to_fd_4_does_not_touch_the_protocol() {
    let project = project(&["background_writes_fd4.py"]);
    let registry = registry(options(&project)).await;
    assert_eq!(
        call(&registry, "background_writes_fd4", json!({})).await,
        ToolResult::ok("started")
    );
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_echo_answers(&registry).await;
}

/// Issue 13, defect 5: a worker whose protocol stream a tool's thread broke
/// after its call is retired, and the next call, innocent, runs on a fresh one.
#[tokio::test]
async fn a_worker_whose_stream_a_thread_broke_is_retired_without_blaming_the_next_call() {
    let project = project(&["background_writes_protocol.py", "worker_pid.py"]);
    let registry = registry(options(&project)).await;
    let first = call(&registry, "worker_pid", json!({})).await;
    assert_eq!(
        call(&registry, "background_writes_protocol", json!({})).await,
        ToolResult::ok("started")
    );
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_echo_answers(&registry).await;
    let second = call(&registry, "worker_pid", json!({})).await;
    assert!(first.success && second.success, "{first:?} {second:?}");
    assert_ne!(first.data, second.data, "the broken worker was not retired");
}

/// Issue 13, defect 6: modules in the project directory named like standard
/// ones do not replace them in the worker.
#[tokio::test]
async fn a_project_shadowing_standard_modules_still_loads_its_tools() {
    let project = project(&[]);
    for module in ["dataclasses.py", "json.py", "types.py"] {
        std::fs::write(
            project.path().join(module),
            "raise RuntimeError('the project shadowed a standard module')\n",
        )
        .unwrap();
    }
    let registry = registry(options(&project)).await;
    assert_eq!(rows(&registry), [available("echo", "echo.py")]);
    assert_echo_answers(&registry).await;
}

/// Issue 13, defect 9: a process that left its worker's group with `setsid`
/// is caught when the worker is killed at the deadline.
#[tokio::test]
async fn a_process_that_escaped_its_workers_group_dies_with_the_worker() {
    let project = project(&["escapes_its_group.py"]);
    let timeout = riverse_tool::ToolPolicy {
        disabled: None,
        timeout: Some(std::time::Duration::from_secs(1)),
        ..riverse_tool::ToolPolicy::default()
    };
    let registry = super::support::registry_with(
        options(&project),
        super::support::policy("escapes_its_group", timeout),
    )
    .await;
    let pid_file = project.path().join("escaped.pid");
    let result = call(
        &registry,
        "escapes_its_group",
        json!({"pid_file": pid_file}),
    )
    .await;
    assert!(!result.success, "{result:?}");
    let escaped: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let what = format!("the escaped process {escaped} to end with its worker, and be reaped");
    riverse_test_support::eventually_async(std::time::Duration::from_secs(10), what, || {
        !std::path::Path::new(&format!("/proc/{escaped}")).exists()
    })
    .await;
    assert_echo_answers(&registry).await;
}

/// Issue 13, secrets: workers inherit the environment, less the withheld
/// variables, unless `python.env` is clean, which keeps only the allowlist
/// (and what an interpreter needs).
#[tokio::test]
async fn a_clean_environment_keeps_only_the_allowed_variables() {
    let project = project(&["reads_env.py"]);
    let variable = "CARGO_MANIFEST_DIR";
    let expected = std::env::var(variable).unwrap();
    let seen = |env: riverse_python::EnvPolicy| {
        let mut options = options(&project);
        options.env = env;
        async move {
            let registry = registry(options).await;
            call(&registry, "reads_env", json!({"name": variable}))
                .await
                .data
        }
    };
    assert_eq!(seen(riverse_python::EnvPolicy::default()).await, expected);
    let withheld = riverse_python::EnvPolicy::Inherit {
        withheld: vec![variable.into()],
    };
    assert_eq!(seen(withheld).await, "(unset)");
    let clean = riverse_python::EnvPolicy::Clean { allow: vec![] };
    assert_eq!(seen(clean).await, "(unset)");
    let allowed = riverse_python::EnvPolicy::Clean {
        allow: vec![variable.into()],
    };
    assert_eq!(seen(allowed).await, expected);
}

/// Issue 13, minor: a result's fields are read once, so one whose `data`
/// changes type between reads is judged by what was read.
#[tokio::test]
async fn a_result_whose_data_changes_type_between_reads_is_read_once() {
    let project = project(&["data_changes_type.py"]);
    let registry = registry(options(&project)).await;
    assert_eq!(
        call(&registry, "data_changes_type", json!({})).await,
        ToolResult::ok("first read")
    );
}
