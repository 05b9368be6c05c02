//! The registry served over MCP.

use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::FileTypeExt;
use std::sync::Arc;

use parking_lot::Mutex;

use riverse_process::{BoundedLines, Replace};
use riverse_protocol::id_of_cut_line;
use riverse_tool::{
    CallContext, CallError, LiveRegistry, Registry, Sampler, ToolManifest, ToolResult, described,
    input_schema,
};
// Logging is deprecated by the 2026-07-28 protocol (SEP-2577); the protocols
// before it, which every client of today speaks, have it.
#[allow(deprecated)]
use rmcp::model::SetLevelRequestParams;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ContentBlock,
    CustomRequest, CustomResult, ErrorCode, ErrorData, GetSkillRequestParams, GetSkillResult,
    GetTaskParams, GetTaskResult, Implementation, ListResourcesResult, ListSkillsResult,
    ListToolsResult, MetaObject, PaginatedRequestParams, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ServerCapabilities,
    ServerConfig, SubscriptionFilter, Tool, UpdateTaskParams,
};
use rmcp::service::{
    NotificationContext, Peer, RequestContext, RunningService, ServerInitializeError,
    SubscriptionContext,
};
use rmcp::transport::IntoTransport;
use rmcp::{RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncRead, BufReader};
use tokio::net::unix::pipe;
use tokio::sync::watch;

use crate::content;
use crate::lines::LineTransport;
use crate::manifest::annotations_to_mcp;
use crate::outbox::Outbox;
use crate::served_call::{ServedCall, SessionLevel};
pub(crate) use work::Background;
use work::RunningCall;

mod work;
use crate::skills::{self, LiveSkills};
use crate::{Error, FAILURE_META_KEY};

/// The longest request line `riverse mcp` reads (arguments of a few MiB are
/// fine). A longer one is discarded as it streams by and answered with an
/// error carrying its id, when the id can be read.
pub const MAX_REQUEST_BYTES: usize = 8 * 1024 * 1024;

/// The method an over-long request is turned into, so that it gets its reply.
const TOO_LARGE_METHOD: &str = "riverse/request_too_large";

/// Answers `tools/list` and `tools/call` from the registry in use, one per
/// client session. rmcp runs each request in a task of its own, so a slow
/// call never holds up another. Made by [`serve`] and [`crate::HttpEndpoint`].
pub struct RegistryServer {
    tools: LiveRegistry,
    /// Riverse's own LLM, for `self.sample` when the client offers none.
    sampler: Option<Arc<dyn Sampler>>,
    /// The level the client set with `logging/setLevel`.
    log_level: SessionLevel,
    /// Tells the client when the tools are replaced; stopped with the session.
    notifier: Mutex<Option<AbortOnDrop>>,
    /// The project's skills, served by the skills extension; `None` declares
    /// neither the extension nor resources.
    skills: Option<LiveSkills>,
    /// Tells the client when the skills are replaced.
    skills_notifier: Mutex<Option<AbortOnDrop>>,
    /// Calls of the 2026-07-28 protocol that outlive their request: parked
    /// on a question, or tasks. Shared by every session of an endpoint.
    background: Background,
}

impl RegistryServer {
    pub(crate) fn new(tools: LiveRegistry, sampler: Option<Arc<dyn Sampler>>) -> Self {
        RegistryServer {
            tools,
            sampler,
            log_level: SessionLevel::default(),
            notifier: Mutex::new(None),
            skills: None,
            skills_notifier: Mutex::new(None),
            background: Background::default(),
        }
    }

    /// Shares `background` (parked calls and tasks) with the other
    /// sessions of an endpoint.
    pub(crate) fn with_background(mut self, background: Background) -> Self {
        self.background = background;
        self
    }

    /// Serves `skills` too (see [`crate::LiveSkills`]).
    pub(crate) fn with_skills(mut self, skills: Option<LiveSkills>) -> Self {
        self.skills = skills;
        self
    }

    fn skill_set(&self) -> Result<Arc<riverse_skills::SkillSet>, ErrorData> {
        self.skills
            .as_ref()
            .map(LiveSkills::current)
            .ok_or_else(ErrorData::method_not_found::<rmcp::model::ListSkillsRequestMethod>)
    }

    fn current(&self) -> Registry {
        self.tools.current()
    }
}

/// A task that ends when its owner is dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Sends `notifications/tools/list_changed` at each replacement of the tools,
/// until the client is gone.
async fn notify_changes(mut changes: watch::Receiver<Registry>, peer: Peer<RoleServer>) {
    while changes.changed().await.is_ok() {
        changes.mark_unchanged();
        if let Err(err) = peer.notify_tool_list_changed().await {
            tracing::debug!("can't send notifications/tools/list_changed: {err}");
            return;
        }
    }
}

impl ServerHandler for RegistryServer {
    #[allow(deprecated)] // logging: see the import of SetLevelRequestParams
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder()
            .enable_logging()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_tasks()
            .build();
        if self.skills.is_some() {
            skills::declare(&mut capabilities);
        }
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("riverse", env!("CARGO_PKG_VERSION")))
    }

    /// Clients of the 2026-07-28 protocol hear of tool changes on a
    /// `subscriptions/listen` stream, and only of those.
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let filter = SubscriptionFilter::builder().tools_list_changed();
        if self.skills.is_some() && requested.resources_list_changed == Some(true) {
            return Some(filter.resources_list_changed().build());
        }
        Some(filter.build())
    }

    async fn listen(&self, subscription: SubscriptionContext) -> Result<(), ErrorData> {
        let mut changes = self.tools.changes();
        changes.mark_unchanged();
        let mut skill_changes = self.skills.as_ref().map(LiveSkills::changes);
        loop {
            tokio::select! {
                () = subscription.cancelled() => return Ok(()),
                Some(()) = skills::changed(&mut skill_changes) => {
                    if subscription.sink().notify_resource_list_changed().await.is_err() {
                        return Ok(());
                    }
                }
                changed = changes.changed() => {
                    if changed.is_err() {
                        return Ok(());
                    }
                    if let Err(err) = subscription.sink().notify_tool_list_changed().await {
                        tracing::debug!("can't send notifications/tools/list_changed: {err}");
                        return Ok(());
                    }
                }
            }
        }
    }

    /// Clients of the earlier protocol, which initialized a session, are sent
    /// `notifications/tools/list_changed` unasked.
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let mut changes = self.tools.changes();
        changes.mark_unchanged();
        if let Some(live) = &self.skills {
            let task = tokio::spawn(skills::notify_changes(live.changes(), context.peer.clone()));
            *self.skills_notifier.lock() = Some(AbortOnDrop(task));
        }
        let task = tokio::spawn(notify_changes(changes, context.peer));
        *self.notifier.lock() = Some(AbortOnDrop(task));
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let cursor = request.and_then(|request| request.cursor);
        skills::list(&*self.skill_set()?, cursor.as_deref())
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        skills::get(&*self.skill_set()?, &request.uri)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(match &self.skills {
            Some(live) => skills::resources(&live.current()),
            None => ListResourcesResult::default(),
        })
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let Some(live) = &self.skills else {
            let unknown = format!("no resource is served at {}", request.uri);
            return Err(ErrorData::invalid_params(unknown, None));
        };
        let contents = skills::read(&live.current(), &request.uri)?;
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let registry = self.current();
        Ok(ListToolsResult::with_all_items(
            registry.available_manifests().map(mcp_tool).collect(),
        ))
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        if request.method != TOO_LARGE_METHOD {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!("method not found: {}", request.method),
                None,
            ));
        }
        let bytes = request
            .params
            .as_ref()
            .and_then(|params| params.get("bytes"))
            .cloned()
            .unwrap_or_default();
        Err(ErrorData::invalid_request(
            format!("the request of {bytes} bytes is over the {MAX_REQUEST_BYTES}-byte limit"),
            None,
        ))
    }

    #[allow(deprecated)] // see the import of SetLevelRequestParams
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.log_level.set(request.level);
        Ok(())
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let task = self.background.tasks.get_task(&request.task_id)?;
        Ok(GetTaskResult::new(task))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.background
            .tasks
            .update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.background.tasks.cancel_task(&request.task_id)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let modern = context
            .protocol_version()
            .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28);
        if modern {
            return self.call_tool_in_rounds(request, context).await;
        }
        let registry = self.current();
        let arguments = request.arguments.unwrap_or_default();
        let outbox = Outbox::new(context.peer.clone());
        let served = ServedCall::new(
            &request.name,
            &context,
            &self.log_level,
            self.sampler.clone(),
            outbox.queue(),
        );
        let origin = riverse_tool::CallOrigin::new("mcp", None);
        let call_context = CallContext::with_origin(Arc::new(served), Some(origin));
        let call = registry.call_with(&request.name, arguments, &call_context);
        // On notifications/cancelled the call is dropped, which stops the tool:
        // a Python worker is killed (a fresh one serves later calls), an MCP
        // server is sent notifications/cancelled in turn. Its context ends, so
        // a question or sample in flight is withdrawn from the client.
        let outcome = tokio::select! {
            outcome = call => outcome,
            () = context.ct.cancelled() => {
                return Err(ErrorData::internal_error(format!("tool \"{}\": cancelled by the client", request.name), None));
            }
        };
        // What the tool said reaches the client before its result, unless the
        // client cancels or stops reading first.
        tokio::select! {
            () = outbox.flushed() => {}
            () = context.ct.cancelled() => {
                return Err(ErrorData::internal_error(format!("tool \"{}\": cancelled by the client", request.name), None));
            }
        }
        match outcome {
            Ok(result) => Ok(call_result(result).into()),
            // Naming a tool that is not served is the caller's mistake, not a
            // tool failure: MCP makes it a protocol error.
            Err(err @ (CallError::UnknownTool(_) | CallError::Unavailable { .. })) => {
                Err(ErrorData::invalid_params(err.to_string(), None))
            }
        }
    }
}

impl RegistryServer {
    /// A call of the 2026-07-28 protocol: its questions are `input_required`
    /// results, and for a client that declared the tasks extension it
    /// becomes a task once it runs past [`work::TASK_AFTER`].
    async fn call_tool_in_rounds(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let tasks = context
            .client_capabilities()
            .is_some_and(|capabilities| capabilities.supports_tasks());
        let call = match &request.request_state {
            Some(state) => {
                match self.background.resume(
                    &request.name,
                    state,
                    request.input_responses.clone(),
                )? {
                    Ok(call) => call,
                    Err(asking_again) => return Ok(asking_again),
                }
            }
            // Answers without a requestState answer the new call's
            // questions of the same keys, as a server that keeps no state
            // would read them.
            None => self
                .start_call(&request, &context)
                .answering(request.input_responses.clone().unwrap_or_default()),
        };
        self.background
            .drive(call, tasks, context.ct.cancelled())
            .await
    }

    /// `request`'s call, started in a task of its own.
    fn start_call(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> RunningCall {
        let registry = self.current();
        let arguments = request.arguments.clone().unwrap_or_default();
        let outbox = Outbox::new(context.peer.clone());
        let capabilities = context.client_capabilities().unwrap_or_default();
        let elicits = capabilities
            .elicitation
            .as_ref()
            .is_some_and(|offered| offered.form.is_some() || offered.url.is_none());
        let rounds = RunningCall::rounds(elicits, capabilities.sampling.is_some());
        let served = ServedCall::new(
            &request.name,
            context,
            &self.log_level,
            self.sampler.clone(),
            outbox.queue(),
        )
        .with_rounds(rounds.0.clone());
        let origin = riverse_tool::CallOrigin::new("mcp", None);
        let call_context = CallContext::with_origin(Arc::new(served), Some(origin));
        let name = request.name.to_string();
        RunningCall::start(&request.name, rounds, async move {
            registry.call_with(&name, arguments, &call_context).await
        })
    }
}

/// An over-long request line, by its id, becomes a request the server answers
/// with an error; one without a readable id is dropped, with a warning.
fn too_long_request() -> Replace {
    Box::new(|start, end, total| {
        let Some(id) = id_of_cut_line(start, end) else {
            tracing::warn!("dropped a request of {total} bytes with no readable id");
            return None;
        };
        let params = serde_json::json!({"bytes": total});
        Some(
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"{TOO_LARGE_METHOD}","params":{params}}}"#
            )
            .into_bytes(),
        )
    })
}

/// A manifest as MCP lists it: the schema from the parameters and their types
/// (or the tool's own, whole), the examples after the description, and the
/// tool's output schema, whole, and its annotations, when it has them.
fn mcp_tool(manifest: &ToolManifest) -> Tool {
    let schema = match input_schema(manifest) {
        Value::Object(schema) => schema,
        _ => Map::new(),
    };
    let mut tool = Tool::new(manifest.name.clone(), described(manifest), Arc::new(schema));
    tool.output_schema = match &manifest.output_schema {
        Some(Value::Object(schema)) => Some(Arc::new(schema.clone())),
        _ => None,
    };
    tool.annotations = manifest.annotations.as_ref().map(annotations_to_mcp);
    tool
}

/// A result as MCP content: `data` as text when there is any (a structured
/// result's JSON when the tool gave no text), then the content blocks, and
/// the structured result as `structuredContent`. A failed call says why as
/// data too, in `_meta` under [`FAILURE_META_KEY`].
pub(crate) fn call_result(result: ToolResult) -> CallToolResult {
    let kind = result.failure_kind();
    let blocks = result.content.into_iter().map(content::to_mcp);
    let Some(kind) = kind else {
        let text = (!result.data.is_empty()).then(|| ContentBlock::text(result.data));
        let mut done = CallToolResult::success(text.into_iter().chain(blocks).collect());
        done.structured_content = result.structured;
        return done;
    };
    let text = if result.error.is_empty() {
        "the tool failed without saying why".to_owned()
    } else {
        result.error
    };
    let mut meta = MetaObject::new();
    meta.insert(FAILURE_META_KEY.to_owned(), json!(kind));
    let content = std::iter::once(ContentBlock::text(text)).chain(blocks);
    let mut failed = CallToolResult::error(content.collect());
    failed.meta = Some(meta);
    failed
}

/// A registry being served to one client.
pub struct Serving {
    service: RunningService<RoleServer, RegistryServer>,
    tools: LiveRegistry,
}

impl Serving {
    /// Serves `registry` from now on; the client is told with
    /// `notifications/tools/list_changed`.
    pub fn replace_registry(&self, registry: Registry) {
        self.tools.replace(registry);
    }

    /// Waits until the client goes away.
    pub async fn waiting(self) -> Result<(), Error> {
        self.service
            .waiting()
            .await
            .map(|_reason| ())
            .map_err(|err| Error::ServeFailed(err.to_string()))
    }
}

/// Serves the tools over `transport` once a client has initialized; a
/// [`LiveRegistry`] replaced later is served from then on, and the client told.
/// A tool's `self.sample` goes to the client's LLM when it offers sampling,
/// else to `sampler`, when there is one.
pub async fn serve<T, E, A>(
    tools: impl Into<LiveRegistry>,
    sampler: Option<Arc<dyn Sampler>>,
    transport: T,
) -> Result<Serving, Error>
where
    T: IntoTransport<RoleServer, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    serve_with_skills(tools, None, sampler, transport).await
}

/// [`serve`], with the project's skills served by the MCP skills extension
/// when `skills` is given.
pub async fn serve_with_skills<T, E, A>(
    tools: impl Into<LiveRegistry>,
    skills: Option<LiveSkills>,
    sampler: Option<Arc<dyn Sampler>>,
    transport: T,
) -> Result<Serving, Error>
where
    T: IntoTransport<RoleServer, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let tools = tools.into();
    let service = RegistryServer::new(tools.clone(), sampler)
        .with_skills(skills)
        .serve(transport)
        .await
        .map_err(|err| match err {
            ServerInitializeError::ConnectionClosed(_) => {
                Error::ServeFailed("the client closed the connection before initializing".into())
            }
            other => Error::ServeFailed(other.to_string()),
        })?;
    Ok(Serving { service, tools })
}

/// Serves the tools on stdin and stdout until the client closes them (see
/// [`serve`]).
pub async fn serve_stdio(
    tools: impl Into<LiveRegistry>,
    sampler: Option<Arc<dyn Sampler>>,
) -> Result<(), Error> {
    serve_stdio_with_skills(tools, None, sampler).await
}

/// [`serve_stdio`], with the project's skills when `skills` is given.
pub async fn serve_stdio_with_skills(
    tools: impl Into<LiveRegistry>,
    skills: Option<LiveSkills>,
    sampler: Option<Arc<dyn Sampler>>,
) -> Result<(), Error> {
    let tools = tools.into();
    let serving = match stdio_pipes() {
        Some((stdin, stdout)) => {
            serve_with_skills(tools, skills, sampler, line_transport(stdin, stdout)).await?
        }
        None => {
            let transport = line_transport(tokio::io::stdin(), tokio::io::stdout());
            serve_with_skills(tools, skills, sampler, transport).await?
        }
    };
    serving.waiting().await
}

/// Requests read from `read`, each line at most [`MAX_REQUEST_BYTES`] long,
/// and replies written to `write`.
fn line_transport<R, W>(read: R, write: W) -> LineTransport<BufReader<BoundedLines<R>>, W>
where
    R: AsyncRead + Unpin,
{
    let bounded = BoundedLines::new(read, MAX_REQUEST_BYTES, too_long_request());
    LineTransport::new(BufReader::new(bounded), write)
}

/// stdin and stdout as non-blocking pipes, when they are pipes (as an MCP host
/// starts a server). Tokio's own stdin and stdout hand every read and write to
/// a blocking thread, which costs each round trip tens of microseconds; a pipe
/// is polled like a socket. Anything else (a file, a terminal) gets `None`.
fn stdio_pipes() -> Option<(pipe::Receiver, pipe::Sender)> {
    let stdin = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    let stdout = std::io::stdout().as_fd().try_clone_to_owned().ok()?;
    // Both are checked before either is made non-blocking: the flag belongs
    // to the open file, which the fallback's blocking reads and writes share,
    // and they would fail with EAGAIN (stdin a pipe, stdout a file).
    let (stdin, stdout) = (as_pipe(stdin)?, as_pipe(stdout)?);
    let receiver = pipe::Receiver::from_owned_fd(stdin).ok()?;
    let sender = pipe::Sender::from_owned_fd(stdout).ok()?;
    Some((receiver, sender))
}

/// `fd` when it is a pipe.
fn as_pipe(fd: OwnedFd) -> Option<OwnedFd> {
    let file = std::fs::File::from(fd);
    let is_pipe = file.metadata().ok()?.file_type().is_fifo();
    is_pipe.then(|| file.into())
}

#[cfg(test)]
mod tests;
