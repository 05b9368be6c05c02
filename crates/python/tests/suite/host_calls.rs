//! Riverse's `ToolRegistry` inside a tool: backed by the host's registry.

use pretty_assertions::assert_eq;
use riverse_python::{HostLink, python_tools};
use riverse_tool::{Registry, RegistryOptions, ToolResult};
use serde_json::json;

use super::support::{call, options, project};

#[tokio::test]
async fn a_tool_lists_and_calls_other_tools_through_the_hosts_registry() {
    let project = project(&["registry_user.py", "execute_raises.py"]);
    let host = HostLink::default();
    let mut options = options(&project);
    options.workers = 2;
    options.host = host.clone();
    let registry = Registry::new(python_tools(options).await, RegistryOptions::default());
    host.set(&registry);
    assert_eq!(
        call(&registry, "registry_user", json!({"action": "list"})).await,
        ToolResult::ok(
            "['echo', 'execute_raises', 'registry_user'] ['echo', 'execute_raises', 'registry_user'] \
             ['echo', 'execute_raises', 'registry_user']"
        )
    );
    assert_eq!(
        call(
            &registry,
            "registry_user",
            json!({"action": "call", "name": "echo", "text": "nested"})
        )
        .await,
        ToolResult::ok("True 'nested' ''")
    );
    assert_eq!(
        call(
            &registry,
            "registry_user",
            json!({"action": "get", "name": "echo", "text": "got"})
        )
        .await,
        ToolResult::ok("got")
    );
    let failed = call(
        &registry,
        "registry_user",
        json!({"action": "call", "name": "execute_raises"}),
    )
    .await;
    assert!(
        failed
            .data
            .starts_with("False '' 'execute() raised ZeroDivisionError"),
        "{failed:?}"
    );
    assert_eq!(
        call(
            &registry,
            "registry_user",
            json!({"action": "call", "name": "nope"})
        )
        .await,
        ToolResult::ok("False '' 'unknown tool \"nope\"'")
    );
}

#[tokio::test]
async fn without_a_host_registry_the_tool_fails_with_a_clear_error() {
    let project = project(&["registry_user.py"]);
    let registry = Registry::new(
        python_tools(options(&project)).await,
        RegistryOptions::default(),
    );
    let result = call(&registry, "registry_user", json!({"action": "list"})).await;
    assert!(!result.success);
    assert!(
        result
            .error
            .contains("the host could not answer riverse/host/tools/list: the host's tool registry is not available"),
        "{result:?}"
    );
}
