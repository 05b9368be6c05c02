//! The registry, built from every tool source the settings enable.

use riverse_mcp::mcp_tools;
use riverse_python::python_tools;
use riverse_tool::Registry;

use crate::Settings;
use crate::config::{mcp_options, python_options, registry_options};

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
