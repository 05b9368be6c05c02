//! Stdio servers that misbehave (issue 13): each fails at once with its cause,
//! never by waiting for a deadline. Deadlines here are ten minutes, so a
//! regression shows as the test's own `within` running out.

use std::future::Future;
use std::time::Duration;

use pretty_assertions::assert_eq;
use riverse_test_support::{Project, fixture};
use riverse_tool::{FailureKind, Params, Registry, ToolResult};

use super::source::{failures, mcp_source, registry, stdio};

/// Never reached unless something is wrong.
const FOREVER: Duration = Duration::from_secs(600);

/// Fails the test when `work` is not done within a minute, however long the
/// deadlines it runs under.
async fn within<T>(work: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), work)
        .await
        .expect("waited for a deadline instead of failing at once")
}

/// The registry of one hostile server started as `mode`, its tools' deadlines
/// ten minutes.
async fn hostile(project: &Project, mode: &str) -> Registry {
    project.file("mcp_hostile_server.py", &fixture("mcp_hostile_server.py"));
    let server = stdio("hostile", "python3", &["mcp_hostile_server.py", mode]);
    let timeouts = [
        ("mcp_hostile_ok", 600),
        ("mcp_hostile_garbage", 600),
        ("mcp_hostile_malformed", 600),
    ];
    within(registry(project, vec![server], FOREVER, &timeouts)).await
}

/// The one failure of a registry whose server could not start.
async fn startup_failure(mode: &str) -> String {
    let project = Project::new();
    let registry = hostile(&project, mode).await;
    let mut failures = failures(&registry);
    assert_eq!(failures.len(), 1, "{failures:?}");
    let (source, error) = failures.remove(0);
    assert_eq!(source, mcp_source("hostile"));
    error
}

#[tokio::test]
async fn a_server_that_exits_at_start_up_fails_at_once_with_its_exit_and_stderr() {
    assert_eq!(
        startup_failure("exits").await,
        "mcp server \"hostile\" failed to initialize: the server exited with status 4; \
         its stderr ended with: hostile server: exits | hostile server: can't find its database"
    );
}

#[tokio::test]
async fn a_server_that_writes_text_at_start_up_fails_at_once_with_what_it_wrote() {
    assert_eq!(
        startup_failure("banner").await,
        "mcp server \"hostile\" failed to initialize: the server wrote something that is not MCP: \
         \"Server listening on stdio \\u{1b}[32m(ready)\\u{1b}[0m\"; \
         its stderr ended with: hostile server: banner"
    );
}

#[tokio::test]
async fn a_server_that_writes_json_that_is_not_json_rpc_fails_at_once() {
    assert_eq!(
        startup_failure("not-jsonrpc").await,
        "mcp server \"hostile\" failed to initialize: the server wrote something that is not MCP: \
         \"{\\\"status\\\": \\\"ready\\\"}\"; its stderr ended with: hostile server: not-jsonrpc"
    );
}

#[tokio::test]
async fn a_server_that_closes_stdout_but_keeps_running_fails_at_once() {
    assert_eq!(
        startup_failure("closes-stdout").await,
        "mcp server \"hostile\" failed to initialize: the server closed its stdout without answering; \
         its stderr ended with: hostile server: closes-stdout"
    );
}

#[tokio::test]
async fn a_server_that_refuses_to_initialize_fails_with_its_error() {
    assert_eq!(
        startup_failure("refuses").await,
        "mcp server \"hostile\" failed to initialize: it answered initialize with an error: \
         no licence for this machine; its stderr ended with: hostile server: refuses"
    );
}

#[tokio::test]
async fn a_reply_that_is_not_mcp_fails_its_call_at_once_and_the_server_keeps_serving() {
    let project = Project::new();
    let registry = hostile(&project, "serve").await;
    assert_eq!(failures(&registry), vec![]);
    let result = within(registry.call("mcp_hostile_malformed", Params::new()))
        .await
        .unwrap();
    assert!(!result.success, "{result:?}");
    assert!(
        result.error.starts_with(
            "tool \"mcp_hostile_malformed\": mcp server \"hostile\" refused the call: \
             the server's reply is not MCP: \"{\\\"id\\\": "
        ),
        "{result:?}"
    );
    assert!(
        result.error.ends_with(", \\\"answer\\\": 42}\""),
        "{result:?}"
    );
    let ok = within(registry.call("mcp_hostile_ok", Params::new()))
        .await
        .unwrap();
    assert!(ok.success, "{ok:?}");
}

#[tokio::test]
async fn a_line_that_is_not_mcp_during_a_call_fails_it_at_once_and_restarts_the_server() {
    let project = Project::new();
    let registry = hostile(&project, "serve").await;
    let first = within(registry.call("mcp_hostile_ok", Params::new()))
        .await
        .unwrap();
    assert!(first.success, "{first:?}");
    let garbage = within(registry.call("mcp_hostile_garbage", Params::new()))
        .await
        .unwrap();
    assert_eq!(
        garbage,
        ToolResult::failed(
            FailureKind::Crashed,
            "tool \"mcp_hostile_garbage\": mcp server \"hostile\" failed during the call: \
             the server wrote something that is not MCP: \"Traceback (most recent call last): oops\"; \
             it will be restarted on the next call"
        )
    );
    let second = within(registry.call("mcp_hostile_ok", Params::new()))
        .await
        .unwrap();
    assert!(second.success, "{second:?}");
    assert_ne!(
        first.data, second.data,
        "the same server process answered twice"
    );
}
