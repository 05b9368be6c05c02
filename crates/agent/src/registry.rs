//! The registry, built from every tool source the settings enable.

use std::path::Path;

use riverse_agents::{AgentsOptions, agent_tools};
use riverse_mcp::mcp_tools;
use riverse_python::{HostLink, python_tools};
use riverse_tool::{Found, Registry, ToolSource};

use crate::Settings;
use crate::config::{mcp_options, python_options, registry_options};

/// Discovers every enabled source, in order (drop-in Python tools first, then
/// YAML agents, then MCP servers), and builds the registry. Sources start side by side, since an
/// MCP server may take seconds to come up. Failures are entries of the
/// registry, never an error.
pub async fn build_registry(settings: &Settings) -> Registry {
    // Python tools reach the registry they end up in through this link.
    let host = HostLink::default();
    let python = async {
        if let Some(missing) = missing_tools_dir(settings) {
            vec![missing]
        } else if settings.tools.enabled {
            python_tools(python_options(settings, host.clone())).await
        } else {
            tracing::info!("drop-in tools are disabled by tools.enabled: false");
            Vec::new()
        }
    };
    let mcp = async {
        if settings.mcp.enabled {
            mcp_tools(mcp_options(settings)).await
        } else {
            if !settings.mcp.servers.is_empty() {
                tracing::info!("mcp servers are configured but mcp.enabled is false");
            }
            Vec::new()
        }
    };
    let (mut found, mcp) = tokio::join!(python, mcp);
    if settings.tools.enabled {
        found.extend(agent_tools(&agents_options(settings)));
    }
    found.extend(mcp);
    let registry = Registry::new(found, registry_options(settings));
    host.set(&registry);
    registry
}

/// Riverse's agents files live in `agent/config/`; `settings.yaml` may add a
/// top-level `agents:` list.
fn agents_options(settings: &Settings) -> AgentsOptions {
    let document = &settings.document;
    let settings_file = settings
        .file
        .clone()
        .unwrap_or_else(|| settings.project_dir.join("settings.yaml"));
    AgentsOptions {
        project_dir: settings.project_dir.clone(),
        config_dir: settings.project_dir.join("agent/config"),
        language: document
            .get("language")
            .and_then(|language| language.as_str())
            .unwrap_or("en")
            .to_owned(),
        settings_agents: document
            .get("agents")
            .map(|agents| (settings_file, agents.clone())),
    }
}

/// A `tools.dir` that names no directory is a failure that says so, rather
/// than a project that quietly has no tools. (The default directory may be
/// missing: a new project has no tools yet.)
fn missing_tools_dir(settings: &Settings) -> Option<Found> {
    let dir = settings.tools_dir();
    if !settings.tools.enabled || settings.tools.dir == Path::new("agent/tools") || dir.is_dir() {
        return None;
    }
    Some(Found::Failure {
        source: ToolSource::PythonHost {
            interpreter: settings
                .python
                .interpreter
                .clone()
                .unwrap_or_else(|| "python3".into()),
        },
        name: None,
        error: format!(
            "the tools directory {} does not exist (tools.dir in settings.yaml)",
            dir.display()
        ),
    })
}
