//! The registry served over MCP's streamable HTTP transport, as rmcp's tower
//! service: the caller mounts it (at `/mcp`) and puts the bearer token and
//! the `Host` and `Origin` checks in front of it (rmcp's own `Host` check is
//! off: one rule, the caller's, decides). Sessions are bounded in number and
//! end when unused ([`BoundedSessions`]).

use std::sync::Arc;
use std::time::Duration;

use futures_util::Stream;
use riverse_tool::{LiveRegistry, Sampler};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, SessionConfig,
};
use rmcp::transport::streamable_http_server::session::{
    EventStore, RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::server::{Background, RegistryServer};
use crate::skills::LiveSkills;

/// How often an idle SSE stream carries a comment, so that proxies and
/// clients do not take a quiet stream for a dead one.
const SSE_KEEP_ALIVE: Duration = Duration::from_secs(15);

/// What the endpoint accepts.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// The longest request body; a longer one gets 413 without being read
    /// to its end.
    pub max_body_bytes: usize,
    /// Sessions held at once; creating one more fails.
    pub max_sessions: usize,
    /// A session that receives nothing for this long ends; its client starts
    /// a new one, as the protocol asks of clients.
    pub session_timeout: Duration,
}

/// The HTTP service rmcp builds around [`RegistryServer`].
pub type McpService = StreamableHttpService<RegistryServer, BoundedSessions>;

/// The MCP endpoint: one [`RegistryServer`] per client session (or per
/// request, for clients of the sessionless 2026 protocol), all reading the
/// same [`LiveRegistry`], so each call runs on the shared Python workers and
/// every session hears when the tools are replaced.
pub struct HttpEndpoint {
    service: McpService,
}

impl HttpEndpoint {
    /// `sampler` answers a tool's `self.sample` when the client offers no
    /// sampling (see [`crate::serve`]).
    pub fn new(
        tools: LiveRegistry,
        sampler: Option<Arc<dyn Sampler>>,
        options: HttpOptions,
    ) -> Self {
        Self::with_skills(tools, None, sampler, options)
    }

    /// [`HttpEndpoint::new`], serving `skills` too by the MCP skills
    /// extension when given.
    pub fn with_skills(
        tools: LiveRegistry,
        skills: Option<LiveSkills>,
        sampler: Option<Arc<dyn Sampler>>,
        options: HttpOptions,
    ) -> Self {
        let mut config = StreamableHttpServerConfig::default()
            .with_sse_keep_alive(Some(SSE_KEEP_ALIVE))
            .with_max_request_body_bytes(options.max_body_bytes);
        config = config.disable_allowed_hosts();
        // Calls that outlive their request (parked on a question, or tasks)
        // are the endpoint's, whichever session or request asks about them.
        let background = Background::default();
        let service = StreamableHttpService::new(
            move || {
                Ok(RegistryServer::new(tools.clone(), sampler.clone())
                    .with_skills(skills.clone())
                    .with_background(background.clone()))
            },
            Arc::new(BoundedSessions::new(
                options.max_sessions,
                options.session_timeout,
            )),
            config,
        );
        HttpEndpoint { service }
    }

    /// The tower service to mount; clones share the sessions.
    pub fn service(&self) -> McpService {
        self.service.clone()
    }

    /// Ends every session and open stream, and refuses later requests: a
    /// server shutting down does not wait on clients' long-lived streams.
    pub fn close(&self) {
        self.service.config.cancellation_token.cancel();
    }
}

/// rmcp's in-memory sessions, at most `max` of them: each session holds a
/// task and its buffers, and without a bound any local process could open
/// sessions until memory runs out.
#[derive(Debug)]
pub struct BoundedSessions {
    sessions: LocalSessionManager,
    max: usize,
    /// Held while a session is counted and created, so that two at once
    /// can't both take the last place.
    creating: tokio::sync::Mutex<()>,
}

impl BoundedSessions {
    pub fn new(max: usize, idle: Duration) -> Self {
        let mut sessions = LocalSessionManager::default();
        let mut config = SessionConfig::default();
        config.keep_alive = Some(idle);
        sessions.session_config = config;
        BoundedSessions {
            sessions,
            max,
            creating: tokio::sync::Mutex::new(()),
        }
    }

    /// Sessions open now.
    pub async fn count(&self) -> usize {
        self.sessions.sessions.read().await.len()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SessionsError {
    #[error(
        "too many MCP sessions are open ({0}, serve.max_mcp_sessions); end one (DELETE) or try again later"
    )]
    Full(usize),
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
}

impl SessionManager for BoundedSessions {
    type Error = SessionsError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let _creating = self.creating.lock().await;
        if self.count().await >= self.max {
            return Err(SessionsError::Full(self.max));
        }
        Ok(self.sessions.create_session().await?)
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        Ok(self.sessions.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.sessions.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        Ok(self.sessions.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.sessions.create_stream(id, message).await?)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        Ok(self.sessions.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.sessions.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.sessions.resume(id, last_event_id).await?)
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        // Sessions live in this process only: one that is gone stays gone,
        // and its client starts a new one (under the bound).
        let _ = id;
        Ok(RestoreOutcome::NotSupported)
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.sessions.event_store()
    }
}
