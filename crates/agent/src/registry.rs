//! The registry, built from every tool source the settings enable.

use std::collections::HashMap;

use riverse_mcp::{McpOptions, mcp_tools};
use riverse_python::{PythonOptions, python_tools};
use riverse_tool::{Registry, RegistryOptions, ToolPolicy};

use crate::Settings;

/// Discovers every enabled source, in order (drop-in Python tools first, then
/// MCP servers), and builds the registry. Sources start side by side, since an
/// MCP server may take seconds to come up. Failures are entries of the
/// registry, never an error.
pub async fn build_registry(settings: &Settings) -> Registry {
    let python = async {
        if settings.tools.enabled {
            python_tools(python_options(settings)).await
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
    found.extend(mcp);
    Registry::new(found, registry_options(settings))
}

fn mcp_options(settings: &Settings) -> McpOptions {
    McpOptions {
        servers: settings.mcp.servers.clone(),
        startup_timeout: settings.mcp.startup_timeout,
        project_dir: settings.project_dir.clone(),
        max_output_bytes: settings.tools.max_output_bytes,
    }
}

pub(crate) fn python_options(settings: &Settings) -> PythonOptions {
    PythonOptions {
        interpreter: settings.python.interpreter.clone(),
        project_dir: settings.project_dir.clone(),
        tools_dir: settings.tools.dir.clone(),
        workers: settings.python.workers,
        import_timeout: settings.python.import_timeout,
        config: settings.document.clone(),
        max_output_bytes: settings.tools.max_output_bytes,
        env: settings.python.env.clone(),
    }
}

fn registry_options(settings: &Settings) -> RegistryOptions {
    let policies: HashMap<String, ToolPolicy> = settings
        .tools
        .per_tool
        .iter()
        .map(|(name, policy)| (name.clone(), policy.clone()))
        .collect();
    RegistryOptions {
        max_output_bytes: settings.tools.max_output_bytes,
        default_timeout: settings.tools.default_timeout,
        policies,
    }
}
