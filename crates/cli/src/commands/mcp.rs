//! `riverse mcp [--http HOST:PORT]`: the registry served as an MCP server.
//!
//! On stdio, stdout carries the protocol and nothing else; what goes wrong is
//! logged on stderr, where MCP hosts collect a server's logs. With `--http`,
//! the tools are served over MCP's streamable HTTP transport at `/mcp` and
//! nothing else, under `serve`'s rules: the token (required off loopback),
//! the `Origin` check, `serve.max_body_bytes`.
//!
//! A tool's `self.sample` goes to the client's LLM when the client offers
//! sampling, else to the LLM the settings name.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context;
use riverse_agent::{ProviderSampler, RunMode, Settings, ToolSources, build_provider};
use riverse_server::{MCP_PATH, ServerOptions};
use riverse_tool::{LiveRegistry, Sampler, Status};

use super::reload::{self, Report};

use super::serve::{stop_signal, token_for};
use crate::output::Exit;

pub async fn run(settings: &Settings, http: Option<SocketAddr>) -> anyhow::Result<Exit> {
    // Refused before the tools start.
    let token = match http {
        Some(addr) => token_for(settings, addr)?,
        None => None,
    };
    let sources = ToolSources::discover(settings, RunMode::LongRunning).await;
    let registry = sources.registry(settings);
    for entry in registry.entries() {
        if let (Status::Error | Status::Conflict, Some(error)) = (entry.status(), entry.error()) {
            let name = entry.name().unwrap_or("-");
            tracing::warn!("not serving {name} ({}): {error}", entry.source());
        }
    }
    let served = registry.available_manifests().count();
    let tools = LiveRegistry::new(registry);
    let _watching = reload::start(settings, sources, &tools, Report::Log);
    let sampler = own_sampler(settings);
    let (skills, _reloading) = super::skills::served_skills(settings).unzip();
    let Some(addr) = http else {
        tracing::info!("serving {served} tools over mcp on stdio");
        riverse_mcp::serve_stdio_with_skills(tools, skills, sampler)
            .await
            .context("riverse mcp")?;
        return Ok(Exit::Success);
    };
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("can't listen on {addr}"))?;
    let bound = listener.local_addr().unwrap_or(addr);
    // Watched before the start line: a signal sent once it is seen stops
    // the server cleanly.
    let stop = stop_signal();
    eprintln!("riverse mcp serving {served} tools at http://{bound}{MCP_PATH}");
    let options = ServerOptions {
        skills,
        ..ServerOptions::new(&settings.serve, settings.language, token)
    }
    .mcp();
    let finished = riverse_server::serve_mcp(
        listener,
        tools,
        sampler,
        &options,
        stop,
        settings.serve.shutdown_timeout,
    )
    .await
    .context("riverse mcp --http")?;
    if !finished {
        tracing::warn!(
            "calls still running after serve.shutdown_timeout ({:?}) were stopped",
            settings.serve.shutdown_timeout
        );
    }
    eprintln!("riverse mcp stopped");
    Ok(Exit::Success)
}

/// The LLM of the settings as a sampler. Building it loads nothing (the
/// embedded model loads at its first completion), so a server whose tools
/// never sample pays nothing for it.
fn own_sampler(settings: &Settings) -> Option<Arc<dyn Sampler>> {
    match build_provider(settings) {
        Ok(provider) => Some(Arc::new(ProviderSampler::new(provider))),
        Err(err) => {
            tracing::warn!("tools' samples have no LLM of Riverse's to fall back on: {err}");
            None
        }
    }
}
