//! `riverse mcp`: the registry served as an MCP server on stdio.
//!
//! stdout carries the protocol and nothing else; what goes wrong is logged on
//! stderr, where MCP hosts collect a server's logs.

use anyhow::Context;
use riverse_agent::{Settings, ToolSources};
use riverse_tool::{LiveRegistry, Status};

use super::reload::{self, Report};

use crate::output::Exit;

pub async fn run(settings: &Settings) -> anyhow::Result<Exit> {
    let sources = ToolSources::discover(settings).await;
    let registry = sources.registry(settings);
    for entry in registry.entries() {
        if let (Status::Error | Status::Conflict, Some(error)) = (entry.status(), entry.error()) {
            let name = entry.name().unwrap_or("-");
            tracing::warn!("not serving {name} ({}): {error}", entry.source());
        }
    }
    let served = registry.available_manifests().count();
    tracing::info!("serving {served} tools over mcp on stdio");
    let tools = LiveRegistry::new(registry);
    let _watching = reload::start(settings, sources, &tools, Report::Log);
    riverse_mcp::serve_stdio(tools)
        .await
        .context("riverse mcp")?;
    Ok(Exit::Success)
}
