//! MCP servers as a tool source.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use parking_lot::Mutex;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use riverse_process::{BoundedLines, Replace};
use riverse_protocol::id_of_cut_line;
use riverse_tool::{
    AfterTimeout, CallContext, CallFailure, CallLimits, Found, Params, ServerFailure, Subject,
    Tool, ToolManifest, ToolResult, ToolSource, sanitize_name,
};
use rmcp::model::{CallToolRequestParams, ErrorCode, ServerResult};
use rmcp::service::{ClientInitializeError, RunningService, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{Peer, RoleClient, serve_client_with_lifecycle};
use serde_json::Value;
use tokio::time::Instant;

mod calls;
mod handler;
mod lifecycle;
mod reply;
mod rounds;
mod skills;
mod tasks;

use calls::CallsInFlight;
use handler::Client;
use lifecycle::{Lifecycle, OTHER_OPENING_WAIT, Opening, version_of};
use rounds::RoundsFailed;
pub use skills::{McpSkills, RemoteSkill, mcp_skills};

use crate::Error;
use crate::manifest::{annotations_from_mcp, restore_structured, translate};
use crate::process::{Launch, ServerProcess};
use crate::vet::NotMcp;

/// How long a call that lost its server waits for the exit status, to say how
/// the server ended.
const DEATH_GRACE: Duration = Duration::from_secs(2);

/// What a server is told of a call Riverse stopped waiting for.
const STOPPED_WAITING: &str = "riverse stopped waiting for the call";

/// What the MCP source needs from the settings.
#[derive(Debug, Clone)]
pub struct McpOptions {
    pub servers: Vec<ServerSpec>,
    /// Every server must have listed its tools within this (`mcp.startup_timeout`).
    pub startup_timeout: Duration,
    /// Stdio servers run here; a relative command resolves against it.
    pub project_dir: PathBuf,
    /// A stdio server's reply longer than [`CallLimits::reply_bytes`] fails
    /// its call at once.
    pub limits: CallLimits,
    /// Variables of Riverse's environment a stdio server doesn't inherit
    /// (Riverse's own keys, the secrets' sources) unless its `env` sets them.
    pub withheld_env: Vec<String>,
}

/// One entry of `mcp.servers`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSpec {
    /// Names the server in tool names, logs and errors.
    pub name: String,
    pub transport: ServerTransport,
    /// `protocol: 2026-07-28`: the session opens with `server/discover`, so
    /// a server that speaks both protocols speaks 2026-07-28 (its tasks,
    /// `input_required` results); `false` opens with `initialize`.
    pub opens_2026: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerTransport {
    /// A command speaking MCP on its stdin and stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        /// Added to Riverse's own environment.
        env: BTreeMap<String, String>,
    },
    /// A server reached over streamable HTTP.
    Http {
        url: String,
        /// Sent with every request (`Authorization`, API keys).
        headers: BTreeMap<String, String>,
    },
}

/// Starts every server at once and yields each one's tools, or one failure
/// that names the server and says what went wrong. Servers are reported in the
/// order given, whatever order they start in.
pub async fn mcp_tools(options: McpOptions) -> Vec<Found> {
    let startups = options.servers.iter().map(|spec| {
        let link = Arc::new(ServerLink::new(spec, &options));
        async move {
            let started = tokio::time::timeout(options.startup_timeout, link.start()).await;
            let tools = match started {
                Ok(Ok(tools)) => tools,
                Ok(Err(err)) => return vec![link.failure(err.to_string())],
                Err(_elapsed) => {
                    let err = Error::StartupTimedOut {
                        server: link.spec.name.clone(),
                        after: seconds(options.startup_timeout),
                        detail: link.release_spawned(),
                    };
                    return vec![link.failure(err.to_string())];
                }
            };
            tracing::debug!(target: "mcp", "{}: {} tools", link.spec.name, tools.len());
            tools
                .into_iter()
                .map(|tool| {
                    let description = tool.description.as_deref().unwrap_or_default();
                    let name = sanitize_name(&format!("mcp_{}_{}", link.spec.name, tool.name));
                    let mut translated = translate(&name, description, &tool.input_schema);
                    translated.manifest.output_schema = tool
                        .output_schema
                        .as_ref()
                        .map(|schema| Value::Object(schema.as_ref().clone()));
                    translated.manifest.annotations =
                        annotations_from_mcp(tool.annotations.as_ref());
                    Found::Tool {
                        tool: Arc::new(McpTool {
                            manifest: translated.manifest,
                            structured: translated.structured,
                            remote_name: tool.name.to_string(),
                            source: ToolSource::Mcp {
                                server: link.spec.name.clone(),
                            },
                            link: link.clone(),
                        }),
                        available: true,
                    }
                })
                .collect()
        }
    });
    futures_util::future::join_all(startups)
        .await
        .into_iter()
        .flatten()
        .collect()
}

/// A reply too long to read becomes an error reply to its request, so the call
/// fails at once rather than at its deadline.
fn too_long_reply() -> Replace {
    Box::new(|start, end, total| {
        let Some(id) = id_of_cut_line(start, end) else {
            tracing::warn!(target: "mcp", "dropped a line of {total} bytes with no readable id");
            return None;
        };
        let error = serde_json::json!({
            "code": -32603,
            "message": format!("the server's reply of {total} bytes is over the limit Riverse reads"),
        });
        Some(format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{error}}}"#).into_bytes())
    })
}

use riverse_tool::seconds;

/// Why a stdio server's handshake failed, in the words that explain it best:
/// what it wrote that is not MCP, how it exited, or its error reply.
async fn handshake_failure(
    err: ClientInitializeError,
    opening: Opening,
    process: &ServerProcess,
    not_mcp: &NotMcp,
) -> String {
    if let Some(cause) = not_mcp.cause() {
        return cause;
    }
    match err {
        ClientInitializeError::JsonRpcError(error) => {
            let method = opening.method();
            format!("it answered {method} with an error: {}", error.message)
        }
        // A server that exits during the handshake explains itself better by
        // its exit than rmcp can; one still running has closed its stdout.
        ClientInitializeError::ConnectionClosed(_)
        | ClientInitializeError::TransportError { .. } => {
            match process.exit_within(DEATH_GRACE).await {
                Some(how) => format!("the server {how}"),
                None => "the server closed its stdout without answering".to_owned(),
            }
        }
        other => other.to_string(),
    }
}

/// One tool of an MCP server.
pub struct McpTool {
    manifest: ToolManifest,
    /// Parameters to send as JSON structures (see `manifest`).
    structured: Vec<String>,
    /// The tool's name on its server.
    remote_name: String,
    source: ToolSource,
    link: Arc<ServerLink>,
}

#[async_trait::async_trait]
impl Tool for McpTool {
    fn manifest(&self) -> &ToolManifest {
        &self.manifest
    }

    fn source(&self) -> &ToolSource {
        &self.source
    }

    /// MCP has the server check the arguments against its `inputSchema`;
    /// they reach it restored from what the manifest's parameters made of them.
    fn checks_own_arguments(&self) -> bool {
        true
    }

    async fn call(
        &self,
        mut params: Params,
        timeout: Duration,
        context: &CallContext,
    ) -> ToolResult {
        let deadline = Instant::now() + timeout;
        let connected = match self.connected_by(deadline, timeout).await {
            Ok(connected) => connected,
            Err(failed) => return failed,
        };
        restore_structured(&mut params, &self.structured);
        let request = CallToolRequestParams::new(self.remote_name.clone()).with_arguments(params);
        let call = rounds::call_tool(&connected, request, context);
        self.reply_by(call, &connected, deadline, timeout, context)
            .await
    }

    /// Follows the server's task `task_id` again, as a call that became it
    /// was followed before Riverse stopped.
    async fn resume(&self, task_id: &str, timeout: Duration, context: &CallContext) -> ToolResult {
        let deadline = Instant::now() + timeout;
        let connected = match self.connected_by(deadline, timeout).await {
            Ok(connected) => connected,
            Err(failed) => return failed,
        };
        let call = tasks::resume(&connected.peer, task_id, context);
        self.reply_by(call, &connected, deadline, timeout, context)
            .await
    }
}

impl McpTool {
    fn timed_out(&self, timeout: Duration, then: AfterTimeout) -> ToolResult {
        ToolResult::from(CallFailure::TimedOut {
            subject: Subject::Tool(self.manifest.name.clone()),
            after: timeout,
            then,
        })
    }

    /// The server's live session, reached before `deadline`, or the call's
    /// failure.
    async fn connected_by(
        &self,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<Connected, ToolResult> {
        match tokio::time::timeout_at(deadline, self.link.connected()).await {
            Ok(Ok(connected)) => Ok(connected),
            Ok(Err(err)) => Err(ToolResult::from(CallFailure::CouldNotRun {
                tool: self.manifest.name.clone(),
                cause: err.to_string(),
            })),
            Err(_elapsed) => {
                let server = self.link.spec.name.clone();
                Err(self.timed_out(timeout, AfterTimeout::ServerRestarting { server }))
            }
        }
    }

    /// The result of `call` (a call's rounds, or a task followed), awaited
    /// until `deadline`.
    async fn reply_by(
        &self,
        call: impl Future<Output = Result<ServerResult, RoundsFailed>>,
        connected: &Connected,
        deadline: Instant,
        timeout: Duration,
        context: &CallContext,
    ) -> ToolResult {
        let name = &self.manifest.name;
        let server = &self.link.spec.name;
        // Dropping the call at the deadline sends notifications/cancelled.
        // Time the call waits on its front end (a question, a sample) is
        // not the tool's.
        let left = deadline.saturating_duration_since(Instant::now());
        let Some(reply) = context.within(left, call).await else {
            let server = server.clone();
            return self.timed_out(timeout, AfterTimeout::ServerCancelled { server });
        };
        let reply = match reply {
            Ok(reply) => Ok(reply),
            Err(RoundsFailed::Service(err)) => Err(err),
            Err(RoundsFailed::Input(cause)) => {
                return ToolResult::from(CallFailure::CouldNotRun {
                    tool: name.clone(),
                    cause: format!("mcp server {server:?} {cause}"),
                });
            }
        };
        match reply {
            Ok(ServerResult::CallToolResult(result)) => {
                reply::tool_result(result, self.link.max_output_bytes)
            }
            // A server with nothing to say may answer `{}`.
            Ok(ServerResult::EmptyResult(_)) => ToolResult::ok(""),
            Ok(other) => {
                let reply = format!("{other:?}");
                server_failed(name, server, ServerFailure::UnexpectedReply { reply })
            }
            Err(ServiceError::McpError(error)) => {
                let refused = ServerFailure::Refused {
                    message: error.message.to_string(),
                    invalid_params: error.code == ErrorCode::INVALID_PARAMS,
                };
                server_failed(name, server, refused)
            }
            Err(ServiceError::TransportClosed | ServiceError::TransportSend(_)) => {
                if let Some(cause) = connected.not_mcp.cause() {
                    return server_failed(name, server, ServerFailure::NotMcp { cause });
                }
                let death = match &connected.process {
                    Some(process) => process.death(DEATH_GRACE).await,
                    None => "the connection was closed".to_owned(),
                };
                server_failed(name, server, ServerFailure::Died { death })
            }
            Err(other) => {
                let cause = other.to_string();
                server_failed(name, server, ServerFailure::Lost { cause })
            }
        }
    }
}

/// A server's failure of a call of `tool`, as its result.
fn server_failed(tool: &str, server: &str, failure: ServerFailure) -> ToolResult {
    ToolResult::from(CallFailure::Server {
        tool: tool.to_owned(),
        server: server.to_owned(),
        failure,
    })
}

/// A live session with a server.
struct Session {
    service: RunningService<RoleClient, Client>,
    /// The calls running on it, which what the server sends is routed to.
    calls: CallsInFlight,
    /// The process of a stdio server.
    process: Option<Arc<ServerProcess>>,
    /// What ended a stdio server's connection, when it wrote something that
    /// is not MCP.
    not_mcp: NotMcp,
}

impl Session {
    fn is_alive(&self) -> bool {
        !self.service.peer().is_transport_closed()
            && self
                .process
                .as_ref()
                .is_none_or(|process| process.is_running())
    }
}

/// What a call needs from a session, taken out so calls run side by side.
struct Connected {
    peer: Peer<RoleClient>,
    calls: CallsInFlight,
    process: Option<Arc<ServerProcess>>,
    not_mcp: NotMcp,
}

/// A failed try at a session.
struct Attempt {
    error: Error,
    /// The server refused the opening as one of another protocol would.
    refused: bool,
}

impl From<Error> for Attempt {
    fn from(error: Error) -> Self {
        Attempt {
            error,
            refused: false,
        }
    }
}

/// A configured server and its session, started again when it is gone.
struct ServerLink {
    spec: ServerSpec,
    project_dir: PathBuf,
    withheld_env: Vec<String>,
    /// The longest reply line read from a stdio server.
    reply_limit: usize,
    /// `tools.max_output_bytes`, which a result's text and its structured
    /// content share.
    max_output_bytes: usize,
    /// `None` before the first start and after a failed restart. Held while
    /// (re)connecting, so two calls never start two servers.
    session: tokio::sync::Mutex<Option<Session>>,
    /// The process last spawned, reachable before its handshake ends so that a
    /// server that never finishes starting can still say what it printed.
    spawned: Mutex<Option<Arc<ServerProcess>>>,
    /// Which opening the server last answered.
    lifecycle: Lifecycle,
}

impl ServerLink {
    fn new(spec: &ServerSpec, options: &McpOptions) -> Self {
        ServerLink {
            spec: spec.clone(),
            project_dir: options.project_dir.clone(),
            withheld_env: options.withheld_env.clone(),
            reply_limit: options.limits.reply_bytes_with_content(),
            max_output_bytes: options.limits.max_output_bytes,
            session: tokio::sync::Mutex::new(None),
            spawned: Mutex::new(None),
            lifecycle: Lifecycle::opening_with(spec.opens_2026),
        }
    }

    fn failure(&self, error: String) -> Found {
        Found::Failure {
            source: ToolSource::Mcp {
                server: self.spec.name.clone(),
            },
            name: None,
            error,
        }
    }

    /// Connects and lists the server's tools.
    async fn start(&self) -> Result<Vec<rmcp::model::Tool>, Error> {
        let mut slot = self.session.lock().await;
        let session = slot.insert(self.connect().await?);
        let version = version_of(&session.service);
        tracing::debug!(target: "mcp", "{}: speaks MCP {version}", self.spec.name);
        let listed = session.service.peer().list_all_tools().await;
        listed.map_err(|err| Error::ListFailed {
            server: self.spec.name.clone(),
            cause: err.to_string(),
        })
    }

    /// What the last server process started has printed, and that process let
    /// go of, which kills it unless a session still holds it.
    fn release_spawned(&self) -> String {
        let spawned = self.spawned.lock().take();
        spawned
            .map(|process| process.stderr_detail())
            .unwrap_or_default()
    }

    /// The live session, restarting the server when it is gone.
    async fn connected(&self) -> Result<Connected, Error> {
        let mut slot = self.session.lock().await;
        let alive = slot.as_ref().is_some_and(Session::is_alive);
        if !alive {
            if slot.is_some() {
                tracing::warn!(target: "mcp", "{}: the server is gone; starting it again", self.spec.name);
            }
            *slot = None;
            *slot = Some(self.connect().await?);
        }
        let session = slot.as_ref().ok_or_else(|| Error::InitializeFailed {
            server: self.spec.name.clone(),
            cause: "no session".into(),
        })?;
        Ok(Connected {
            peer: session.service.peer().clone(),
            calls: session.calls.clone(),
            process: session.process.clone(),
            not_mcp: session.not_mcp.clone(),
        })
    }

    /// Connects, opening the session as the server was last found to
    /// answer, and the other way when it refuses that (see [`lifecycle`]).
    async fn connect(&self) -> Result<Session, Error> {
        let first = self.lifecycle.first();
        let refusal = match self.connect_as(first).await {
            Ok(session) => return Ok(session),
            Err(Attempt { error, refused }) if !refused => return Err(error),
            Err(Attempt { error, .. }) => error,
        };
        let other = first.other();
        let server = &self.spec.name;
        match tokio::time::timeout(OTHER_OPENING_WAIT, self.connect_as(other)).await {
            Ok(Ok(session)) => Ok(session),
            Ok(Err(Attempt { error, .. })) => {
                tracing::debug!(target: "mcp", "{server}: {} failed too: {error}", other.method());
                Err(refusal)
            }
            Err(_elapsed) => {
                tracing::debug!(target: "mcp", "{server}: no answer to {}", other.method());
                // The process that did not answer, let go of.
                self.spawned.lock().take();
                Err(refusal)
            }
        }
    }

    /// One try at a session opened with `opening`.
    async fn connect_as(&self, opening: Opening) -> Result<Session, Attempt> {
        let server = &self.spec.name;
        let calls = CallsInFlight::default();
        let client = Client {
            server: server.clone(),
            calls: calls.clone(),
        };
        let (started, process, not_mcp) = match &self.spec.transport {
            ServerTransport::Stdio { command, args, env } => {
                let (process, stdout, stdin) = ServerProcess::spawn(Launch {
                    server,
                    command,
                    args,
                    env,
                    withheld: &self.withheld_env,
                    dir: &self.project_dir,
                })
                .map_err(Attempt::from)?;
                let process = Arc::new(process);
                *self.spawned.lock() = Some(process.clone());
                let not_mcp = NotMcp::default();
                let stdout = BoundedLines::new(stdout, self.reply_limit, too_long_reply())
                    .vetting(not_mcp.vet());
                let started =
                    serve_client_with_lifecycle(client, (stdout, stdin), opening.mode()).await;
                (started, Some(process), not_mcp)
            }
            ServerTransport::Http { url, headers } => {
                let transport = self.http_transport(url, headers).map_err(Attempt::from)?;
                let started = serve_client_with_lifecycle(client, transport, opening.mode()).await;
                (started, None, NotMcp::default())
            }
        };
        let service = match started {
            Ok(service) => service,
            Err(err) => {
                let refused = opening.refused_by(&err) && not_mcp.cause().is_none();
                let cause = match (&process, &self.spec.transport) {
                    (Some(process), _) => {
                        let cause = handshake_failure(err, opening, process, &not_mcp).await;
                        // Of no use now, whatever it is doing: once it is
                        // gone, what it printed is complete.
                        process.stop(DEATH_GRACE).await;
                        format!("{cause}{}", process.stderr_detail())
                    }
                    (None, ServerTransport::Http { url, .. }) => format!("{url}: {err}"),
                    (None, _) => err.to_string(),
                };
                let server = server.clone();
                let error = Error::InitializeFailed { server, cause };
                return Err(Attempt { error, refused });
            }
        };
        self.lifecycle.began(opening);
        Ok(Session {
            service,
            calls,
            process,
            not_mcp,
        })
    }

    fn http_transport(
        &self,
        url: &str,
        headers: &BTreeMap<String, String>,
    ) -> Result<StreamableHttpClientTransport<reqwest::Client>, Error> {
        let invalid = |message: String| Error::InvalidConfig {
            server: self.spec.name.clone(),
            message,
        };
        let mut header_map = HeaderMap::new();
        for (name, value) in headers {
            let header = HeaderName::try_from(name.as_str())
                .map_err(|err| invalid(format!("header {name:?} is not a valid name: {err}")))?;
            let value = HeaderValue::try_from(value.as_str())
                .map_err(|err| invalid(format!("header {name:?} has an invalid value: {err}")))?;
            header_map.insert(header, value);
        }
        // reqwest is built without a default TLS provider; installing ring
        // twice is harmless, the second attempt is simply refused.
        let _ = rustls::crypto::ring::default_provider().install_default();
        // Default headers rather than rmcp's custom headers: these may include
        // Authorization, which rmcp reserves for its own OAuth support.
        let http = reqwest::Client::builder()
            .default_headers(header_map)
            .build()
            .map_err(|err| invalid(format!("can't build an http client: {err}")))?;
        let config = StreamableHttpClientTransportConfig::with_uri(url);
        Ok(StreamableHttpClientTransport::with_client(http, config))
    }
}
