//! A server's task-capable tools under the 2026-07-28 protocol (the tasks
//! extension, SEP-2663), with rmcp's own server and its task manager: the
//! call becomes a task of the server, Riverse polls it to its end, answers
//! what it asks through the call's front end, and cancels it when the call
//! is dropped.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use pretty_assertions::assert_eq;
use riverse_mcp::{ServerSpec, ServerTransport};
use riverse_test_support::Project;
use riverse_tool::{Answer, CallContext, CallListener, LogLevel, LogLine, Question};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ContentBlock,
    CreateTaskResult, ErrorData, GetTaskParams, GetTaskResult, InputRequest, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
    UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::task_manager::{TaskExit, TaskManager, TaskOptions};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{RoleServer, ServerHandler};
use serde_json::json;
use tokio::sync::Notify;

use super::source::{params, registry};

const STARTUP: Duration = Duration::from_secs(60);

/// rmcp's server of 2026-07-28 alone, running `report` and `approve` as
/// tasks for a client that declares the extension.
#[derive(Clone)]
struct Tasking {
    tasks: TaskManager,
    /// The methods of the task extension the server was sent, in order.
    seen: Arc<Mutex<Vec<String>>>,
    /// Told when a task of `forever` was cancelled.
    cancelled: Arc<Notify>,
}

fn tool(name: &str) -> Tool {
    serde_json::from_value(json!({
        "name": name,
        "description": format!("The {name} tool"),
        "inputSchema": {"type": "object"},
    }))
    .unwrap()
}

fn text(text: String) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

impl Tasking {
    fn spawn(&self, name: &str) -> rmcp::model::Task {
        let cancelled = self.cancelled.clone();
        let options = TaskOptions::new().with_poll_interval_ms(50);
        let name = name.to_owned();
        self.tasks.spawn(options, move |task| {
            Box::pin(async move {
                match name.as_str() {
                    "report" => {
                        tokio::time::sleep(Duration::from_millis(300)).await;
                        Ok(text("report ready".into()))
                    }
                    "approve" => {
                        let question: InputRequest = serde_json::from_value(json!({
                            "method": "elicitation/create",
                            "params": {
                                "mode": "form",
                                "message": "Ship it?",
                                "requestedSchema": {
                                    "type": "object",
                                    "properties": {"sure": {"type": "boolean"}},
                                    "required": ["sure"],
                                },
                            },
                        }))
                        .unwrap();
                        task.set_status_message("waiting for a yes");
                        let answer = task.request_input("ship", question).await?;
                        Ok(text(format!("answered {answer}")))
                    }
                    "broken" => Err(TaskExit::Error(ErrorData::internal_error(
                        "disk full",
                        None,
                    ))),
                    _ => {
                        task.cancelled().await;
                        cancelled.notify_one();
                        Err(TaskExit::Cancelled)
                    }
                }
            })
        })
    }
}

impl ServerHandler for Tasking {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tasks()
                .build(),
        )
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Owned(vec![ProtocolVersion::V_2026_07_28])
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = ["report", "approve", "broken", "forever"].map(tool);
        Ok(ListToolsResult::with_all_items(tools.to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let declared = context
            .client_capabilities()
            .is_some_and(|capabilities| capabilities.supports_tasks());
        if !declared {
            return Ok(CallToolResponse::Complete(text(
                "the client did not declare the tasks extension".into(),
            )));
        }
        self.seen.lock().push("tools/call".into());
        let task = self.spawn(&request.name);
        Ok(CallToolResponse::Task(CreateTaskResult::new(task)))
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.seen.lock().push("tasks/get".into());
        Ok(GetTaskResult::new(self.tasks.get_task(&request.task_id)?))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.seen.lock().push("tasks/update".into());
        self.tasks
            .update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.seen.lock().push("tasks/cancel".into());
        self.tasks.cancel_task(&request.task_id)
    }
}

/// The server at `/mcp` of a loopback port, as the tool source `tasking`.
async fn over_http(server: Tasking) -> ServerSpec {
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().disable_allowed_hosts(),
    );
    let app = axum::Router::new().route_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    ServerSpec {
        name: "tasking".into(),
        transport: ServerTransport::Http {
            url,
            headers: Default::default(),
        },
        opens_2026: false,
    }
}

/// Says yes to every question, and keeps them and the lines logged.
#[derive(Default)]
struct Yes(Mutex<Vec<Question>>, Mutex<Vec<LogLine>>);

#[async_trait::async_trait]
impl CallListener for Yes {
    fn log(&self, line: &LogLine) {
        self.1.lock().push(line.clone());
    }

    async fn ask(&self, question: Question) -> Answer {
        self.0.lock().push(question);
        Answer::accept(json!({"sure": true}).as_object().unwrap().clone())
    }
}

fn server() -> Tasking {
    Tasking {
        tasks: TaskManager::new(),
        seen: Arc::default(),
        cancelled: Arc::default(),
    }
}

#[tokio::test]
async fn a_task_of_the_server_is_polled_to_its_end_and_its_result_is_the_calls() {
    let project = Project::new();
    let tasking = server();
    let spec = over_http(tasking.clone()).await;
    let registry = registry(&project, vec![spec], STARTUP, &[]).await;
    let result = registry
        .call("mcp_tasking_report", params(json!({})))
        .await
        .unwrap();
    assert_eq!(result.error, "");
    assert_eq!(result.data, "report ready");
    let seen = tasking.seen.lock().clone();
    assert_eq!(seen.first().map(String::as_str), Some("tools/call"));
    assert!(
        seen[1..].iter().all(|method| method == "tasks/get"),
        "{seen:?}"
    );
    assert!(seen.len() >= 2, "{seen:?}");
}

#[tokio::test]
async fn what_a_task_asks_is_answered_by_the_calls_front_end() {
    let project = Project::new();
    let tasking = server();
    let spec = over_http(tasking.clone()).await;
    let registry = registry(&project, vec![spec], STARTUP, &[]).await;
    let front_end = Arc::new(Yes::default());
    let context = CallContext::new(front_end.clone());
    let result = registry
        .call_with("mcp_tasking_approve", params(json!({})), &context)
        .await
        .unwrap();
    assert_eq!(result.error, "");
    assert_eq!(
        result.data,
        r#"answered {"action":"accept","content":{"sure":true}}"#
    );
    let questions = front_end.0.lock().clone();
    assert_eq!(questions.len(), 1);
    assert_eq!(questions[0].message, "Ship it?");
    // The task's status message came as a line the call logged.
    let said = front_end.1.lock().clone();
    assert_eq!(
        said,
        [LogLine {
            level: LogLevel::Info,
            message: "waiting for a yes".into()
        }]
    );
    let updates = tasking
        .seen
        .lock()
        .iter()
        .filter(|m| *m == "tasks/update")
        .count();
    assert_eq!(updates, 1);
}

#[tokio::test]
async fn a_task_the_server_failed_fails_the_call_with_its_message() {
    let project = Project::new();
    let spec = over_http(server()).await;
    let registry = registry(&project, vec![spec], STARTUP, &[]).await;
    let result = registry
        .call("mcp_tasking_broken", params(json!({})))
        .await
        .unwrap();
    assert!(
        result
            .error
            .contains(r#"mcp server "tasking" failed task "#)
            && result.error.ends_with(": disk full"),
        "{result:?}"
    );
}

#[tokio::test]
async fn a_dropped_call_cancels_its_task_on_the_server() {
    let project = Project::new();
    let tasking = server();
    let spec = over_http(tasking.clone()).await;
    let registry = registry(&project, vec![spec], STARTUP, &[]).await;
    let cancelled = tasking.cancelled.notified();
    tokio::pin!(cancelled);
    cancelled.as_mut().enable();
    let call = registry.call("mcp_tasking_forever", params(json!({})));
    // The call is dropped once the server has been asked about its task.
    let seen = tasking.seen.clone();
    let polled = async move {
        while !seen.lock().iter().any(|m| m == "tasks/get") {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::select! {
        result = call => panic!("the call ended: {result:?}"),
        () = polled => {}
    }
    tokio::time::timeout(STARTUP, cancelled)
        .await
        .expect("the task was never cancelled on the server");
    let seen = tasking.seen.lock().clone();
    assert_eq!(
        seen.last().map(String::as_str),
        Some("tasks/cancel"),
        "{seen:?}"
    );
}

/// A task of the server that this registry's call did not start (one a
/// Riverse that stopped was following) is followed again from its id; an
/// id the server does not know fails the call with the server's answer.
#[tokio::test]
async fn a_task_is_followed_again_from_its_id_and_an_unknown_one_fails() {
    let project = Project::new();
    let tasking = server();
    let left = tasking.spawn("report");
    let spec = over_http(tasking.clone()).await;
    let registry = registry(&project, vec![spec], STARTUP, &[]).await;
    let context = CallContext::none();
    let resumed = registry
        .resume("mcp_tasking_report", &left.task_id, &context)
        .await
        .unwrap();
    assert_eq!(
        (resumed.error.as_str(), resumed.data.as_str()),
        ("", "report ready")
    );
    let unknown = registry
        .resume("mcp_tasking_report", "no-such-task", &CallContext::none())
        .await
        .unwrap();
    assert!(!unknown.success, "{unknown:?}");
    assert!(unknown.error.contains("tasking"), "{unknown:?}");
    assert!(
        !tasking
            .seen
            .lock()
            .iter()
            .any(|method| method == "tools/call"),
        "the call is not made again"
    );
}
