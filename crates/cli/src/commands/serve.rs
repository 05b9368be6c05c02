//! `riverse serve [--addr HOST:PORT]`: the HTTP API and the chat page.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context;
use riverse_agent::{RunMode, Settings, Storage, build_agent_with_sources, checked_token};
use riverse_server::{AppState, MCP_PATH, ServerOptions};
use riverse_store::{PostgresStore, SqliteStore, Store};

use super::reload::{self, Report};
use super::tools;
use crate::output::{Exit, usage};

/// Where the SQLite database lives, relative to the project.
pub(super) const SQLITE_FILE: &str = ".riverse/riverse.db";

pub async fn run(settings: &Settings, addr: Option<SocketAddr>) -> anyhow::Result<Exit> {
    let serve = &settings.serve;
    let addr = addr.unwrap_or(serve.addr);
    let token = token_for(settings, addr)?;
    // Before the workers start, so that `/metrics` counts them.
    riverse_server::install_metrics();
    let (store, storage) = open_store(settings).await?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("can't listen on {addr}"))?;
    let (agent, sources) = build_agent_with_sources(settings, RunMode::LongRunning).await?;
    let agent = Arc::new(agent);
    let _watching = reload::start(settings, sources, agent.live_registry(), Report::Log);
    let tools = agent.registry().available_manifests().count();
    let (skills, _reloading) = super::skills::served_skills(settings).unzip();
    if let Some(skills) = &skills {
        agent.follow_skills(skills.changes());
    }
    let schedules = super::schedules::all(settings);
    let state = AppState::new(
        agent.clone(),
        store,
        ServerOptions {
            skills,
            schedules,
            ..ServerOptions::new(serve, settings.language, token)
        },
    );
    // Until the server stops: each schedule's runs at its times.
    let running_schedules = riverse_server::start_schedules(&state);
    // Background tasks kept alive, and those of a server that stopped taken
    // over (run again or failed as interrupted).
    let keeping_tasks = riverse_server::keep_tasks(&state);
    let bound = listener.local_addr().unwrap_or(addr);
    let scheduled = running_schedules.len();
    let stop_signalled = stop_signal();
    // No schedule starts a run once the server is stopping.
    let stop = async move {
        stop_signalled.await;
        drop(running_schedules);
    };
    eprintln!(
        "riverse serving http://{bound}/ ({}, {tools} tools, {}conversations in {storage}; \
         MCP at http://{bound}{MCP_PATH})",
        agent.provider().describe(),
        schedules_text(scheduled),
    );
    if let Some(failed) = tools::failed_to_load(&agent.registry()) {
        eprintln!("{failed}");
    }
    let finished = riverse_server::serve(listener, state.clone(), stop, serve.shutdown_timeout)
        .await
        .context("riverse serve")?;
    // The calls of background tasks stop with the server.
    drop(keeping_tasks);
    riverse_server::release_tasks(&state).await;
    if !finished {
        tracing::warn!(
            "turns still running after serve.shutdown_timeout ({:?}) were stopped",
            serve.shutdown_timeout
        );
    }
    eprintln!("riverse serve stopped");
    // Dropping the agent here stops the Python workers and MCP servers.
    drop(agent);
    Ok(Exit::Success)
}

/// "2 schedules, " for the start line; nothing without any.
fn schedules_text(running: usize) -> String {
    match running {
        0 => String::new(),
        1 => "1 schedule, ".to_owned(),
        _ => format!("{running} schedules, "),
    }
}

/// The shortest token a server off loopback accepts: anyone on the network
/// may guess at it.
const MIN_NETWORK_TOKEN_CHARS: usize = 16;

/// The token requests must carry: `RIVERSE_TOKEN`, else `serve.token`. A
/// server off loopback needs one, and not a short one.
pub fn token_for(settings: &Settings, addr: SocketAddr) -> anyhow::Result<Option<String>> {
    let from_env = std::env::var("RIVERSE_TOKEN")
        .ok()
        .filter(|token| !token.is_empty())
        .map(|token| checked_token(token).map_err(|why| usage(format!("RIVERSE_TOKEN {why}"))))
        .transpose()?;
    let token = from_env.or_else(|| settings.serve.token.clone());
    match &token {
        None if !addr.ip().is_loopback() => Err(usage(format!(
            "refusing to serve on {addr} without a token: set serve.token or RIVERSE_TOKEN, \
             or bind to 127.0.0.1"
        ))),
        Some(token) if !addr.ip().is_loopback() && token.len() < MIN_NETWORK_TOKEN_CHARS => {
            Err(usage(format!(
                "refusing to serve on {addr} with a token of {} characters: off loopback it \
                 needs at least {MIN_NETWORK_TOKEN_CHARS} (for example `openssl rand -hex 24`)",
                token.len()
            )))
        }
        _ => Ok(token),
    }
}

/// The store `serve.storage` names, and where it is, for the start line.
pub(super) async fn open_store(settings: &Settings) -> anyhow::Result<(Store, String)> {
    match settings.serve.storage {
        Storage::Sqlite => {
            let path = settings.project_dir.join(SQLITE_FILE);
            let store = SqliteStore::open(&path).await?;
            Ok((Store::Sqlite(store), path.display().to_string()))
        }
        Storage::Postgres => {
            // Settings refuse postgres without a URL.
            let url = settings.serve.database_url.as_deref().unwrap_or_default();
            let store = PostgresStore::connect(url).await?;
            Ok((Store::Postgres(store), "PostgreSQL".to_owned()))
        }
    }
}

/// Ctrl-C or SIGTERM. Both are watched from the call on, before the start
/// line is printed: one sent as soon as it is seen stops the server cleanly
/// rather than killing it.
pub fn stop_signal() -> impl Future<Output = ()> + Send + 'static {
    use tokio::signal::unix::{SignalKind, signal};
    let watched = signal(SignalKind::interrupt())
        .and_then(|interrupt| Ok((interrupt, signal(SignalKind::terminate())?)));
    async move {
        match watched {
            Ok((mut interrupt, mut terminate)) => {
                tokio::select! {
                    _ = interrupt.recv() => {}
                    _ = terminate.recv() => {}
                }
            }
            Err(err) => {
                tracing::warn!("can't watch for SIGINT and SIGTERM: {err}");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
}
