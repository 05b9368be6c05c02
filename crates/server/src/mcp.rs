//! `/mcp`: the tools over MCP's streamable HTTP transport (rmcp's service,
//! see [`riverse_mcp::HttpEndpoint`]), behind the `guard`'s `Host` and
//! `Origin` checks and the bearer token. Mounted by [`crate::app`] and, alone, by [`serve_mcp`]
//! (`riverse mcp --http`).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{Next, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use riverse_mcp::{HttpEndpoint, HttpOptions, LiveSkills};
use riverse_tool::{LiveRegistry, Sampler};
use serde_json::json;

use crate::auth::Token;
use crate::guard;
use crate::listen::{ConnectionLimits, serve_connections};

/// JSON-RPC's code for a request that can't be served as sent.
const INVALID_REQUEST: i64 = -32600;

/// The path of the endpoint.
pub const MCP_PATH: &str = "/mcp";

/// What `serve.*` decides for the MCP endpoint.
#[derive(Clone)]
pub struct McpOptions {
    /// Required as `Authorization: Bearer` when set.
    pub token: Option<String>,
    pub max_body_bytes: usize,
    /// Origins, besides the server's own, whose pages may call it
    /// (`serve.cors_origins`), each `scheme://host[:port]`.
    pub cors_origins: Vec<String>,
    /// How long a request's body may take to arrive.
    pub body_timeout: Duration,
    /// For [`serve_mcp`]'s own connections.
    pub connections: ConnectionLimits,
    /// Sessions held at once; an `initialize` beyond them is refused.
    pub max_sessions: usize,
    /// A session that receives nothing for this long is ended.
    pub session_timeout: Duration,
    /// The project's skills, served by the MCP skills extension; `None`
    /// declares nothing of skills.
    pub skills: Option<LiveSkills>,
}

impl std::fmt::Debug for McpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpOptions")
            .field("token", &self.token.as_ref().map(|_| "<set>"))
            .field("max_body_bytes", &self.max_body_bytes)
            .field("cors_origins", &self.cors_origins)
            .field("body_timeout", &self.body_timeout)
            .field("connections", &self.connections)
            .field("max_sessions", &self.max_sessions)
            .field("session_timeout", &self.session_timeout)
            .field("skills", &self.skills.is_some())
            .finish()
    }
}

/// The endpoint with its guards.
pub struct McpRoute {
    endpoint: HttpEndpoint,
    token: Token,
    caller: guard::Guard,
}

impl McpRoute {
    /// The endpoint for `tools`; `sampler` answers `self.sample` when the
    /// client offers no sampling.
    pub fn new(
        tools: LiveRegistry,
        sampler: Option<Arc<dyn Sampler>>,
        options: &McpOptions,
    ) -> Self {
        let endpoint = HttpEndpoint::with_skills(
            tools,
            options.skills.clone(),
            sampler,
            HttpOptions {
                max_body_bytes: options.max_body_bytes,
                max_sessions: options.max_sessions,
                session_timeout: options.session_timeout,
            },
        );
        McpRoute {
            endpoint,
            token: Token::new(options.token.as_deref()),
            caller: guard::Guard::new(options.token.is_some(), &options.cors_origins),
        }
    }

    /// `/mcp`, checking `Origin` first, then the token.
    pub fn router<S: Clone + Send + Sync + 'static>(&self) -> Router<S> {
        let guard = Guard {
            token: self.token.clone(),
            caller: self.caller.clone(),
        };
        Router::new()
            .route_service(MCP_PATH, self.endpoint.service())
            .route_layer(from_fn_with_state(Arc::new(guard), check))
    }

    /// Ends every MCP session and stream; see [`HttpEndpoint::close`].
    pub fn close(&self) {
        self.endpoint.close();
    }
}

/// What a request must pass before it reaches rmcp.
struct Guard {
    token: Token,
    /// `Host` and `Origin`, as for every route.
    caller: guard::Guard,
}

/// MCP asks HTTP servers to check `Origin`, against pages that rebind a DNS
/// name to the server: the `guard`'s checks, as for every route. Then the token: 401 without it, and removed with it. Both
/// refusals are JSON-RPC errors, which MCP clients show as they are.
async fn check(State(guard): State<Arc<Guard>>, mut request: Request, next: Next) -> Response {
    if let Err(refused) = guard.caller.check_caller(request.headers()) {
        let mut response = refusal(refused.status(), &refused.message());
        guard::mark_unframeable(response.headers_mut());
        return response;
    }
    if !guard.token.admits(request.headers()) {
        let mut refused = refusal(
            StatusCode::UNAUTHORIZED,
            "unauthorized: missing or wrong token; send Authorization: Bearer <serve.token>",
        );
        refused
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return refused;
    }
    // rmcp keeps the request's headers beside each message, and its trace
    // logs print messages whole: the token goes no further than this check.
    request.headers_mut().remove(header::AUTHORIZATION);
    let ends_session = request.method() == Method::DELETE;
    let mut response = next.run(request).await;
    // rmcp answers a session's end with 202; the SDKs answer 200, and their
    // clients take anything but 200 or 204 for a failure.
    if ends_session && response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::OK;
    }
    guard::mark_unframeable(response.headers_mut());
    response
}

/// A JSON-RPC error with no id (the request was not read) at `status`.
fn refusal(status: StatusCode, message: &str) -> Response {
    let body = json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": INVALID_REQUEST, "message": message},
    });
    (status, Json(body)).into_response()
}

/// Serves only `/mcp` on `listener` until `shutdown` resolves, then ends the
/// MCP sessions and waits up to `grace` for requests in flight. Returns
/// `false` when some were still running at the end of it. `sampler` answers
/// `self.sample` when a client offers no sampling.
pub async fn serve_mcp(
    listener: tokio::net::TcpListener,
    tools: LiveRegistry,
    sampler: Option<Arc<dyn Sampler>>,
    options: &McpOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
    grace: Duration,
) -> std::io::Result<bool> {
    let route = Arc::new(McpRoute::new(tools, sampler, options));
    let app = route
        .router::<()>()
        .fallback(crate::unknown_route)
        .layer(from_fn_with_state(
            options.body_timeout,
            crate::body::with_deadline,
        ));
    let stopping = {
        let route = route.clone();
        async move {
            shutdown.await;
            route.close();
        }
    };
    serve_connections(listener, app, options.connections, stopping, grace).await
}
