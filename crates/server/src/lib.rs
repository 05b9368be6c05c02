//! `riverse serve`: the agent over HTTP.
//!
//! [`app`] builds the [`axum::Router`]: the OpenAI-compatible
//! `/v1/chat/completions` (tools run server-side; answers stream as
//! `chat.completion.chunk` events, tool activity in an extra `riverse` field,
//! see the `sse` module), `/v1/models`, `/v1/tools`, `/v1/conversations`
//! kept in a [`riverse_store::Store`] (SQLite or PostgreSQL), the chat page at `/`,
//! and the agent's tools over MCP's streamable HTTP transport at `/mcp`
//! ([`McpRoute`]; [`serve_mcp`] serves it alone). Every `/v1` route and
//! `/mcp` need the bearer token when one is set; `/mcp` also checks
//! `Origin`. Errors come in OpenAI's shape ([`AppError`]). [`serve`] runs it
//! until a shutdown signal, then waits (bounded) for turns in flight.
//!
//! Binding, signals and the choice of address are the caller's; so are the
//! agent and the store, which it builds from settings.

mod auth;
mod body;
mod completions;
mod conversations;
mod error;
mod mcp;
mod page;
mod sse;
mod tools;
mod turns;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::OriginalUri;
use axum::http::{HeaderName, HeaderValue, Method, header};
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use riverse_agent::{Agent, Language};
use riverse_store::Store;
use tokio::sync::Semaphore;
use tower_http::cors::{AllowOrigin, CorsLayer};

pub use error::AppError;
pub use mcp::{MCP_PATH, McpOptions, McpRoute, serve_mcp};

/// What `serve.*` decides for the server.
#[derive(Clone)]
pub struct ServerOptions {
    /// Required as `Authorization: Bearer` on `/v1` routes when set.
    pub token: Option<String>,
    pub max_body_bytes: usize,
    pub max_concurrent_turns: usize,
    pub turn_timeout: Duration,
    /// The page's language.
    pub language: Language,
    /// Origins whose pages may call the API from a browser (`serve.cors_origins`);
    /// none by default, so no cross-origin page can.
    /// Each `scheme://host[:port]`, as the settings checked them.
    pub cors_origins: Vec<String>,
}

impl std::fmt::Debug for ServerOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerOptions")
            .field("token", &self.token.as_ref().map(|_| "<set>"))
            .field("max_body_bytes", &self.max_body_bytes)
            .field("max_concurrent_turns", &self.max_concurrent_turns)
            .field("turn_timeout", &self.turn_timeout)
            .field("language", &self.language)
            .field("cors_origins", &self.cors_origins)
            .finish()
    }
}

/// What every request shares.
pub struct AppState {
    pub agent: Arc<Agent>,
    pub store: Store,
    pub options: ServerOptions,
    /// One permit per turn that may run.
    turns: Arc<Semaphore>,
    /// `/mcp`, serving the agent's own tools: hot reload reaches both.
    mcp: McpRoute,
}

impl AppState {
    pub fn new(agent: Arc<Agent>, store: Store, options: ServerOptions) -> Arc<Self> {
        let mcp = McpRoute::new(
            agent.live_registry().clone(),
            &McpOptions {
                token: options.token.clone(),
                max_body_bytes: options.max_body_bytes,
                cors_origins: options.cors_origins.clone(),
            },
        );
        Arc::new(AppState {
            turns: Arc::new(Semaphore::new(options.max_concurrent_turns)),
            mcp,
            agent,
            store,
            options,
        })
    }

    /// Waits until no turn runs, or `limit` has passed; `false` if turns
    /// were still running then.
    pub async fn turns_finished(&self, limit: Duration) -> bool {
        let all = u32::try_from(self.options.max_concurrent_turns).unwrap_or(u32::MAX);
        tokio::time::timeout(limit, self.turns.acquire_many(all))
            .await
            .is_ok()
    }
}

pub fn app(state: Arc<AppState>) -> Router {
    let v1 = Router::new()
        .route("/chat/completions", post(completions::create))
        .route("/models", get(tools::models))
        .route("/tools", get(tools::list))
        .route("/tools/{name}/call", post(tools::call))
        .route(
            "/conversations",
            post(conversations::create).get(conversations::list),
        )
        .route(
            "/conversations/{id}",
            get(conversations::get)
                .patch(conversations::rename)
                .delete(conversations::delete),
        )
        .route(
            "/conversations/{id}/messages",
            post(conversations::post_message),
        )
        .fallback(unknown_route)
        .route_layer(axum::middleware::from_fn_with_state(
            auth::Token::new(state.options.token.as_deref()),
            auth::require_token,
        ));
    let cors = cors(&state.options.cors_origins);
    let app = Router::new()
        .route("/", get(page::page))
        .nest("/v1", v1)
        .merge(state.mcp.router())
        .fallback(unknown_route)
        .with_state(state);
    match cors {
        Some(cors) => app.layer(cors),
        None => app,
    }
}

/// Answers browsers' preflight requests and marks replies readable by pages
/// of the listed origins; `None` (no CORS headers at all) when none is listed.
fn cors(origins: &[String]) -> Option<CorsLayer> {
    let origins: Vec<HeaderValue> = origins
        .iter()
        .filter_map(|origin| HeaderValue::from_str(origin).ok())
        .collect();
    if origins.is_empty() {
        return None;
    }
    Some(
        CorsLayer::new()
            .allow_origin(AllowOrigin::list(origins))
            .allow_methods([Method::GET, Method::POST, Method::PATCH, Method::DELETE])
            .allow_headers([
                header::AUTHORIZATION,
                header::CONTENT_TYPE,
                header::ACCEPT,
                HeaderName::from_static("last-event-id"),
                HeaderName::from_static("mcp-session-id"),
                HeaderName::from_static("mcp-protocol-version"),
                HeaderName::from_static("mcp-method"),
                HeaderName::from_static("mcp-name"),
            ])
            // A page's MCP client reads the session it was given.
            .expose_headers([HeaderName::from_static("mcp-session-id")])
            .max_age(Duration::from_secs(600)),
    )
}

pub(crate) async fn unknown_route(OriginalUri(uri): OriginalUri) -> AppError {
    AppError::not_found(format!("no such route {}", uri.path()))
}

/// Turns Nagle's algorithm off on an accepted connection. A reply streamed
/// in small writes (an MCP call's SSE events, a turn's chunks) would
/// otherwise wait, write after write, for the client's delayed ACK: 40 ms
/// a call on a kept-alive connection.
pub(crate) fn no_delay(connection: &mut tokio::net::TcpStream) {
    if let Err(err) = connection.set_nodelay(true) {
        tracing::debug!("can't set TCP_NODELAY: {err}");
    }
}

/// Serves `app` on `listener` until `shutdown` resolves, then stops
/// accepting and waits up to `grace` for requests and turns in flight.
/// Returns `false` when some were still running at the end of it.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: Arc<AppState>,
    shutdown: impl Future<Output = ()> + Send + 'static,
    grace: Duration,
) -> std::io::Result<bool> {
    let (stopping, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = axum::serve(listener.tap_io(no_delay), app(state.clone()))
        .with_graceful_shutdown(async move {
            let _ = stopped.await;
        })
        .into_future();
    let mut server = tokio::spawn(server);
    tokio::select! {
        served = &mut server => {
            // The server stopped by itself: an accept error.
            return served.map_err(std::io::Error::other)?.map(|()| true);
        }
        () = shutdown => {}
    }
    // MCP clients hold streams open; they are ended rather than waited for.
    state.mcp.close();
    let _ = stopping.send(());
    let deadline = tokio::time::Instant::now() + grace;
    let connections_closed = tokio::time::timeout_at(deadline, &mut server).await.is_ok();
    if !connections_closed {
        server.abort();
    }
    let left = deadline.saturating_duration_since(tokio::time::Instant::now());
    let turns_finished = state.turns_finished(left).await;
    Ok(connections_closed && turns_finished)
}
