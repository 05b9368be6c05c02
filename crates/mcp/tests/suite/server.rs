//! The registry server, driven by rmcp's client over an in-memory pipe.
//! (`riverse mcp` itself is driven by the Python SDK's client in the cli tests.)

use std::sync::Arc;
use std::time::Duration;

use nix::sys::signal::kill;
use nix::unistd::Pid;
use pretty_assertions::assert_eq;
use riverse_mcp::serve;
use riverse_python::{PythonOptions, python_tools};
use riverse_test_support::{Project, eventually_async, simple_tool};
use riverse_tool::{Registry, RegistryOptions};
use rmcp::model::CallToolRequestParams;
use rmcp::service::NotificationContext;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::json;
use tokio::sync::Notify;

const TIMEOUT: Duration = Duration::from_secs(30);

pub(super) async fn python_registry(project: &Project, default_timeout: Duration) -> Registry {
    let found = python_tools(PythonOptions {
        interpreter: None,
        project_dir: project.path().to_owned(),
        tools_dir: "agent/tools".into(),
        workers: 2,
        import_timeout: Duration::from_secs(60),
        config: json!({}),
        host: Default::default(),
        limits: riverse_tool::CallLimits::default(),
        env: Default::default(),
        interpreter_hint: None,
        fork: true,
        prestart: false,
        first_worker_fresh: false,
        environment: Default::default(),
        sandbox: None,
        tool_sandboxes: Default::default(),
        tool_secrets: Default::default(),
    })
    .await;
    let options = RegistryOptions {
        default_timeout,
        ..RegistryOptions::default()
    };
    Registry::new(found, options)
}

/// Counts `notifications/tools/list_changed`.
struct Listener {
    changed: Arc<Notify>,
}

impl ClientHandler for Listener {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changed.notify_one();
    }
}

#[tokio::test]
async fn replacing_the_registry_notifies_the_client_of_the_new_tools() {
    let before = Project::new();
    before.tool(
        "old.py",
        &simple_tool("old", "return ToolResult(success=True, data='old')"),
    );
    let after = Project::new();
    after.tool(
        "new.py",
        &simple_tool("new", "return ToolResult(success=True, data='new')"),
    );

    let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    let registry = python_registry(&before, TIMEOUT).await;
    let serving = tokio::spawn(async move { serve(registry, None, server_end).await });
    let changed = Arc::new(Notify::new());
    let client = Listener {
        changed: changed.clone(),
    }
    .serve(client_end)
    .await
    .unwrap();
    let serving = serving.await.unwrap().unwrap();

    let names = |tools: Vec<rmcp::model::Tool>| {
        tools
            .into_iter()
            .map(|tool| tool.name.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names(client.peer().list_all_tools().await.unwrap()),
        ["old"]
    );

    serving.replace_registry(python_registry(&after, TIMEOUT).await);
    tokio::time::timeout(Duration::from_secs(30), changed.notified())
        .await
        .expect("notifications/tools/list_changed");
    assert_eq!(
        names(client.peer().list_all_tools().await.unwrap()),
        ["new"]
    );
    let result = client
        .peer()
        .call_tool(CallToolRequestParams::new("new"))
        .await
        .unwrap();
    let text = result.content[0].as_text().unwrap().text.clone();
    assert_eq!((text.as_str(), result.is_error), ("new", Some(false)));
}

/// Writes its interpreter's pid to `pidfile`, then never returns.
const STUCK: &str = r#"import os
import time

from agent.tools import BaseTool, ToolManifest, ToolResult


class Stuck(BaseTool):
    def manifest(self):
        return ToolManifest(name="stuck", description="Never returns", parameters={"pidfile": "Where to write the pid"})

    def execute(self, params):
        with open(params["pidfile"], "w") as file:
            file.write(str(os.getpid()))
        while True:
            time.sleep(1)
"#;

#[tokio::test]
async fn a_call_the_client_cancels_stops_its_tool() {
    let project = Project::new();
    project.tool("stuck.py", STUCK);
    project.tool(
        "fine.py",
        &simple_tool("fine", "return ToolResult(success=True, data='fine')"),
    );
    let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    // A deadline far past the test's patience: only the cancellation can
    // stop the tool in time.
    let registry = python_registry(&project, Duration::from_secs(600)).await;
    let serving = tokio::spawn(async move { serve(registry, None, server_end).await });
    let client = ().serve(client_end).await.unwrap();
    let _serving = serving.await.unwrap().unwrap();

    let pidfile = project.path().join("pid");
    let arguments = json!({"pidfile": pidfile}).as_object().unwrap().clone();
    let call = client
        .peer()
        .call_tool(CallToolRequestParams::new("stuck").with_arguments(arguments));
    let running = eventually_async(Duration::from_secs(60), "the stuck tool to run", || {
        std::fs::read_to_string(&pidfile)
            .ok()
            .and_then(|text| text.parse::<i32>().ok())
    });
    // Once the tool runs, the call is abandoned: rmcp sends notifications/cancelled.
    let pid = tokio::select! {
        reply = call => panic!("the stuck tool answered: {reply:?}"),
        pid = running => Pid::from_raw(pid),
    };
    eventually_async(
        Duration::from_secs(20),
        "the cancelled tool's interpreter to end",
        || kill(pid, None).is_err(),
    )
    .await;
    let result = client
        .peer()
        .call_tool(CallToolRequestParams::new("fine"))
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text().unwrap().text, "fine");
}
