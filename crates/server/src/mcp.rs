//! `/mcp`: the tools over MCP's streamable HTTP transport (rmcp's service,
//! see [`riverse_mcp::HttpEndpoint`]), behind the `Origin` check and the
//! bearer token. Mounted by [`crate::app`] and, alone, by [`serve_mcp`]
//! (`riverse mcp --http`).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{Next, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use axum::serve::ListenerExt;
use riverse_mcp::{HttpEndpoint, HttpOptions, loopback_hosts};
use riverse_tool::LiveRegistry;
use serde_json::json;

use crate::auth::Token;
use crate::no_delay;

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
}

impl std::fmt::Debug for McpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpOptions")
            .field("token", &self.token.as_ref().map(|_| "<set>"))
            .field("max_body_bytes", &self.max_body_bytes)
            .field("cors_origins", &self.cors_origins)
            .finish()
    }
}

/// The endpoint with its guards.
pub struct McpRoute {
    endpoint: HttpEndpoint,
    token: Token,
    origins: Arc<[String]>,
}

impl McpRoute {
    pub fn new(tools: LiveRegistry, options: &McpOptions) -> Self {
        // Without a token the server is on loopback (the command refuses
        // anything else), and only loopback `Host` names are served: a page
        // that points its own DNS name at 127.0.0.1 gets 403. With a token,
        // hosts are whatever names clients use, and the token keeps pages out.
        let allowed_hosts = match options.token {
            None => Some(loopback_hosts()),
            Some(_) => None,
        };
        let endpoint = HttpEndpoint::new(
            tools,
            HttpOptions {
                allowed_hosts,
                max_body_bytes: options.max_body_bytes,
            },
        );
        McpRoute {
            endpoint,
            token: Token::new(options.token.as_deref()),
            origins: options.cors_origins.clone().into(),
        }
    }

    /// `/mcp`, checking `Origin` first, then the token.
    pub fn router<S: Clone + Send + Sync + 'static>(&self) -> Router<S> {
        let guard = Guard {
            token: self.token.clone(),
            origins: self.origins.clone(),
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
    /// `serve.cors_origins`.
    origins: Arc<[String]>,
}

/// MCP asks HTTP servers to check `Origin`, against pages that rebind a DNS
/// name to the server: a request from a browser page is served when the page
/// comes from the server itself (its origin names the `Host` the request was
/// sent to) or from an origin in `serve.cors_origins`; any other gets 403.
/// Requests without `Origin` do not come from a page and pass. Then the
/// token: 401 without it, and removed with it. Both refusals are JSON-RPC
/// errors, which MCP clients show as they are.
async fn check(State(guard): State<Arc<Guard>>, mut request: Request, next: Next) -> Response {
    if let Some(origin) = request.headers().get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("an unreadable origin");
        if !origin_is_allowed(origin, request.headers(), &guard.origins) {
            return refusal(
                StatusCode::FORBIDDEN,
                &format!(
                    "forbidden: pages of {origin} may not call this server (serve.cors_origins)"
                ),
            );
        }
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
    next.run(request).await
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

fn origin_is_allowed(origin: &str, headers: &HeaderMap, listed: &[String]) -> bool {
    if listed
        .iter()
        .any(|allowed| allowed.eq_ignore_ascii_case(origin))
    {
        return true;
    }
    let Some(host) = headers
        .get(header::HOST)
        .and_then(|host| host.to_str().ok())
    else {
        return false;
    };
    ["http://", "https://"].iter().any(|scheme| {
        origin
            .get(..scheme.len())
            .is_some_and(|start| start.eq_ignore_ascii_case(scheme))
            && origin[scheme.len()..].eq_ignore_ascii_case(host)
    })
}

/// Serves only `/mcp` on `listener` until `shutdown` resolves, then ends the
/// MCP sessions and waits up to `grace` for requests in flight. Returns
/// `false` when some were still running at the end of it.
pub async fn serve_mcp(
    listener: tokio::net::TcpListener,
    tools: LiveRegistry,
    options: &McpOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
    grace: Duration,
) -> std::io::Result<bool> {
    let route = McpRoute::new(tools, options);
    let app = route.router::<()>().fallback(crate::unknown_route);
    let (stopping, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = axum::serve(listener.tap_io(no_delay), app).with_graceful_shutdown(async move {
        let _ = stopped.await;
    });
    let mut server = tokio::spawn(server.into_future());
    tokio::select! {
        served = &mut server => {
            // The server stopped by itself: an accept error.
            return served.map_err(std::io::Error::other)?.map(|()| true);
        }
        () = shutdown => {}
    }
    route.close();
    let _ = stopping.send(());
    let finished = tokio::time::timeout(grace, &mut server).await.is_ok();
    if !finished {
        server.abort();
    }
    Ok(finished)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(value: &'static str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_static(value));
        headers
    }

    #[test]
    fn a_page_of_the_server_itself_or_of_a_listed_origin_is_allowed() {
        let listed = ["https://app.example.com".to_owned()];
        let local = host("127.0.0.1:8420");
        assert!(origin_is_allowed("http://127.0.0.1:8420", &local, &listed));
        assert!(origin_is_allowed(
            "https://APP.example.com",
            &local,
            &listed
        ));
        assert!(!origin_is_allowed("http://127.0.0.1:9999", &local, &listed));
        assert!(!origin_is_allowed("http://evil.example", &local, &listed));
        assert!(!origin_is_allowed("null", &local, &listed));
        assert!(!origin_is_allowed(
            "http://127.0.0.1:8420",
            &HeaderMap::new(),
            &[]
        ));
    }
}
