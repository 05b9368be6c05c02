//! `riverse serve`: the agent over HTTP.
//!
//! [`app`] builds the [`axum::Router`]: the OpenAI-compatible
//! `/v1/chat/completions` (Riverse's tools run server-side, the request's own
//! tools beside them are handed back to the client; answers stream as
//! `chat.completion.chunk` events, tool activity in an extra `riverse` field,
//! see the `sse` module), OpenAI's Responses API at `/v1/responses` (kept in
//! the store), `/v1/models`, `/v1/tools`, `/v1/conversations`
//! kept in a [`riverse_store::Store`] (SQLite or PostgreSQL),
//! `/v1/riverse/questions/{id}` for the answers to what tools ask while a
//! stream waits (the `questions` module), `/v1/schedules` for the
//! schedules that [`start_schedules`] runs at their times (the `schedules`
//! module), `/v1/tasks` for the background tasks that calls become and
//! [`keep_tasks`] keeps alive (the `tasks` module), the chat page at `/`,
//! and the agent's tools over MCP's streamable HTTP transport at `/mcp`
//! ([`McpRoute`]; [`serve_mcp`] serves it alone). Every route first passes
//! the `guard`: loopback `Host` names only when there is no token, no page
//! of another origin, JSON bodies only; then every `/v1` route and `/mcp`
//! need the bearer token when one is set. Errors come in OpenAI's shape
//! ([`AppError`]). [`serve`] accepts connections under [`ConnectionLimits`]
//! (`listen`) until a shutdown signal, then waits (bounded) for turns in
//! flight.
//!
//! Binding, signals and the choice of address are the caller's; so are the
//! agent and the store, which it builds from settings.

mod activity;
mod answers;
mod auth;
mod body;
mod client_tools;
mod completions;
mod conversation_events;
mod conversations;
mod error;
mod guard;
mod handed_back;
mod health;
mod listen;
mod mcp;
mod page;
mod prometheus;
mod questions;
mod responses;
mod schedules;
mod sse;
mod tasks;
mod tools;
mod turns;
mod updates;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::OriginalUri;
use axum::http::{HeaderName, HeaderValue, Method, header};
use axum::middleware::from_fn_with_state;
use axum::routing::{get, post};
use riverse_agent::{Agent, Language, ServeSettings};
use riverse_store::Store;
use tokio::sync::Semaphore;
use tower_http::cors::{AllowOrigin, CorsLayer};

pub use error::AppError;
pub use listen::ConnectionLimits;
pub use mcp::{MCP_PATH, McpOptions, McpRoute, serve_mcp};
pub use prometheus::install as install_metrics;
pub use questions::DEFAULT_QUESTION_TIMEOUT;
pub use schedules::{Clock, SCHEDULE_DENIES, ScheduleLoops, start_schedules};
pub use tasks::{TaskKeeper, TaskRows, keep_tasks, release_tasks};

use crate::health::LlmState;
use crate::questions::Questions;

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
    /// How long a request's body may take to arrive.
    pub body_timeout: Duration,
    pub connections: ConnectionLimits,
    /// MCP sessions held at once on `/mcp`.
    pub max_mcp_sessions: usize,
    /// An MCP session unused this long is ended.
    pub mcp_session_timeout: Duration,
    /// How long a tool's question waits for its answer before the tool
    /// reads a cancel.
    pub question_timeout: Duration,
    /// The project's skills, served on `/mcp` by the MCP skills extension;
    /// `None` (the default) serves none.
    pub skills: Option<riverse_mcp::LiveSkills>,
    /// The schedules [`start_schedules`] runs and `/v1/schedules` shows;
    /// none by default.
    pub schedules: Vec<riverse_agent::Schedule>,
    /// The time schedules run by.
    pub schedule_clock: Clock,
}

impl ServerOptions {
    /// What `serve.*` says, with the token the server starts with.
    pub fn new(serve: &ServeSettings, language: Language, token: Option<String>) -> Self {
        ServerOptions {
            token,
            max_body_bytes: serve.max_body_bytes,
            max_concurrent_turns: serve.max_concurrent_turns,
            turn_timeout: serve.turn_timeout,
            language,
            cors_origins: serve.cors_origins.clone(),
            body_timeout: serve.body_timeout,
            connections: ConnectionLimits {
                header_timeout: serve.header_timeout,
                max_connections: serve.max_connections,
            },
            max_mcp_sessions: serve.max_mcp_sessions,
            mcp_session_timeout: serve.mcp_session_timeout,
            question_timeout: serve.question_timeout,
            skills: None,
            schedules: Vec::new(),
            schedule_clock: Clock::system(),
        }
    }

    /// The MCP endpoint's share of them.
    pub fn mcp(&self) -> McpOptions {
        McpOptions {
            token: self.token.clone(),
            max_body_bytes: self.max_body_bytes,
            cors_origins: self.cors_origins.clone(),
            body_timeout: self.body_timeout,
            connections: self.connections,
            max_sessions: self.max_mcp_sessions,
            session_timeout: self.mcp_session_timeout,
            skills: self.skills.clone(),
        }
    }
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
            .field("body_timeout", &self.body_timeout)
            .field("connections", &self.connections)
            .field("max_mcp_sessions", &self.max_mcp_sessions)
            .field("mcp_session_timeout", &self.mcp_session_timeout)
            .field("question_timeout", &self.question_timeout)
            .field("skills", &self.skills.is_some())
            .field("schedules", &self.schedules.len())
            .field("schedule_clock", &self.schedule_clock)
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
    /// The questions tools asked that wait for an answer.
    questions: Arc<Questions>,
    /// How the LLM answered the last turn, for `/readyz`.
    llm: LlmState,
    /// The background tasks this server runs.
    tasks: tasks::RunningTasks,
    /// The open `/v1/conversations/{id}/events` streams.
    conversation_events: conversation_events::ConversationEvents,
    /// Follow-ups open one at a time: the order their answers are stored in
    /// is the order their streams are told they started.
    follow_ups_opening: tokio::sync::Mutex<()>,
    /// Turns end at once, telling their clients the server is stopping:
    /// it waited `serve.shutdown_timeout` for them.
    stopping: tokio::sync::watch::Sender<Option<Duration>>,
}

impl AppState {
    pub fn new(agent: Arc<Agent>, store: Store, options: ServerOptions) -> Arc<Self> {
        prometheus::install();
        let mcp = McpRoute::new(
            agent.live_registry().clone(),
            Some(agent.sampler()),
            &options.mcp(),
        );
        Arc::new(AppState {
            turns: Arc::new(Semaphore::new(options.max_concurrent_turns)),
            mcp,
            questions: Questions::new(options.question_timeout),
            llm: LlmState::default(),
            tasks: tasks::RunningTasks::default(),
            conversation_events: Default::default(),
            follow_ups_opening: Default::default(),
            stopping: tokio::sync::watch::Sender::new(None),
            agent,
            store,
            options,
        })
    }

    /// How many questions wait for an answer now.
    pub fn open_questions(&self) -> usize {
        self.questions.open_count()
    }

    /// Ends every turn still running, and every one started from now on,
    /// with a reply that says the server is stopping, after waiting `waited`.
    pub fn stop_turns(&self, waited: Duration) {
        self.stopping.send_replace(Some(waited));
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
        .route("/responses", post(responses::create))
        .route(
            "/responses/{id}",
            get(responses::get).delete(responses::delete),
        )
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
        .route(
            "/conversations/{id}/events",
            get(conversation_events::events),
        )
        .route("/riverse/questions/{id}", post(answers::answer))
        .route("/schedules", get(schedules::list))
        .route("/schedules/{name}/runs", get(schedules::runs))
        .route("/schedules/{name}/run", post(schedules::run_now))
        .route("/tasks", get(tasks::list))
        .route("/tasks/{id}", get(tasks::get))
        .route("/tasks/{id}/cancel", post(tasks::cancel))
        .fallback(unknown_route)
        .route_layer(from_fn_with_state(
            auth::Token::new(state.options.token.as_deref()),
            auth::require_token,
        ));
    let guard = guard::Guard::new(state.options.token.is_some(), &state.options.cors_origins);
    // Health needs no token; the metrics do, as the API does.
    let metrics_route = Router::new()
        .route("/metrics", get(prometheus::metrics))
        .route_layer(from_fn_with_state(
            auth::Token::new(state.options.token.as_deref()),
            auth::require_token,
        ));
    let pages_and_api = Router::new()
        .route("/", get(page::page))
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .merge(metrics_route)
        .nest("/v1", v1)
        .fallback(unknown_route)
        .layer(from_fn_with_state(guard, guard::check));
    let cors = cors(&state.options.cors_origins);
    let body_timeout = state.options.body_timeout;
    // `/mcp` has the same guard, with refusals as JSON-RPC errors.
    let app = pages_and_api
        .merge(state.mcp.router())
        .with_state(state)
        .layer(from_fn_with_state(body_timeout, body::with_deadline));
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

/// How long the replies of the turns stopped at the end of a shutdown's
/// grace get to reach their clients before the connections are dropped.
const STOPPED_REPLY_GRACE: Duration = Duration::from_secs(2);

/// Serves `app` on `listener` until `shutdown` resolves, then stops
/// accepting and waits up to `grace` for requests and turns in flight.
/// Turns still running then end with an error that says the server is
/// stopping, which reaches their clients (for a short while more).
/// Returns `false` when some were still running at the end of it.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: Arc<AppState>,
    shutdown: impl Future<Output = ()> + Send + 'static,
    grace: Duration,
) -> std::io::Result<bool> {
    let (stopped_at, stop_time) = tokio::sync::oneshot::channel();
    let stopping = {
        let state = state.clone();
        async move {
            shutdown.await;
            let _ = stopped_at.send(tokio::time::Instant::now());
            // MCP clients hold streams open; they are ended rather than waited for.
            state.mcp.close();
            state.conversation_events.close();
            tokio::spawn(async move {
                tokio::time::sleep(grace).await;
                state.stop_turns(grace);
            });
        }
    };
    let connections_closed = listen::serve_connections(
        listener,
        app(state.clone()),
        state.options.connections,
        stopping,
        grace + STOPPED_REPLY_GRACE,
    )
    .await?;
    let deadline = stop_time
        .await
        .unwrap_or_else(|_| tokio::time::Instant::now())
        + grace
        + STOPPED_REPLY_GRACE;
    let left = deadline.saturating_duration_since(tokio::time::Instant::now());
    let turns_finished = state.turns_finished(left).await;
    Ok(connections_closed && turns_finished)
}
