//! The registry served over MCP's streamable HTTP transport, as rmcp's tower
//! service: the caller mounts it (at `/mcp`) and puts the bearer token and
//! the `Origin` check in front of it.

use std::sync::Arc;
use std::time::Duration;

use riverse_tool::LiveRegistry;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::server::RegistryServer;

/// How often an idle SSE stream carries a comment, so that proxies and
/// clients do not take a quiet stream for a dead one.
const SSE_KEEP_ALIVE: Duration = Duration::from_secs(15);

/// What the endpoint accepts.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// `Host` values (a name, or `name:port`) requests may carry; `None`
    /// accepts any. The loopback names keep a page that rebinds its own DNS
    /// name to 127.0.0.1 away from a server that has no token; a server with
    /// a token has the token for that.
    pub allowed_hosts: Option<Vec<String>>,
    /// The longest request body; a longer one gets 413 without being read
    /// to its end.
    pub max_body_bytes: usize,
}

/// The HTTP service rmcp builds around [`RegistryServer`].
pub type McpService = StreamableHttpService<RegistryServer, LocalSessionManager>;

/// The MCP endpoint: one [`RegistryServer`] per client session (or per
/// request, for clients of the sessionless 2026 protocol), all reading the
/// same [`LiveRegistry`], so each call runs on the shared Python workers and
/// every session hears when the tools are replaced.
pub struct HttpEndpoint {
    service: McpService,
}

impl HttpEndpoint {
    pub fn new(tools: LiveRegistry, options: HttpOptions) -> Self {
        let mut config = StreamableHttpServerConfig::default()
            .with_sse_keep_alive(Some(SSE_KEEP_ALIVE))
            .with_max_request_body_bytes(options.max_body_bytes);
        config = match options.allowed_hosts {
            Some(hosts) => config.with_allowed_hosts(hosts),
            None => config.disable_allowed_hosts(),
        };
        let service = StreamableHttpService::new(
            move || Ok(RegistryServer::new(tools.clone())),
            Arc::new(LocalSessionManager::default()),
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

/// The `Host` values of a server on loopback: the loopback names, with any port.
pub fn loopback_hosts() -> Vec<String> {
    ["localhost", "127.0.0.1", "::1"]
        .map(str::to_owned)
        .to_vec()
}
