//! The registry, built from every tool source the settings enable.

use std::path::Path;

use riverse_mcp::mcp_tools;
use riverse_python::environment::{self, Prepared};
use riverse_python::{
    FoundHooks, HookOptions, HostLink, PythonOptions, python_hooks, python_tools,
    resolve_interpreter,
};
use riverse_tool::{CallHooks, Found, Hooks, Registry, ToolSource};
use riverse_yaml_tools::agent_tools;

use crate::Settings;
use crate::settings::options::{
    agents_options, environment_options, mcp_options, python_options, registry_options,
};

mod reload;

pub use reload::{HotReload, Reloaded, ToolChanges};

/// Discovers every enabled source, in order (drop-in Python tools first, then
/// YAML agents, then MCP servers), and builds the registry. Sources start side by side, since an
/// MCP server may take seconds to come up. Failures are entries of the
/// registry, never an error.
pub async fn build_registry(settings: &Settings) -> Registry {
    ToolSources::discover(settings, RunMode::OneShot)
        .await
        .registry(settings)
}

/// The registry of a command that only shows the tools (`riverse tools`):
/// built as [`build_registry`] builds it, its discovering worker a fresh
/// interpreter whatever `python.fork` says ([`RunMode::Listing`]).
pub async fn list_tools(settings: &Settings) -> Registry {
    ToolSources::discover(settings, RunMode::Listing)
        .await
        .registry(settings)
}

/// Gives the metrics the tool sources record (the Python workers') their
/// help text in the recorder the front end installed.
pub fn describe_metrics() {
    riverse_python::describe_worker_metrics();
}

/// How long the tools will serve: it decides whether workers start ahead of
/// the first calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunMode {
    /// A command that shows the tools and calls none (`riverse tools`): the
    /// worker that discovers them is a fresh interpreter even with
    /// `python.fork`, since a fork server would cost one more interpreter's
    /// start and a fork for a worker that serves no call.
    Listing,
    /// A command that makes a call or a turn and exits (`call`, `ask`,
    /// `eval`): workers start when a call needs one.
    OneShot,
    /// A command that serves until stopped (`chat`, `mcp`, `serve`): it
    /// starts `python.workers` workers at once, so that its first calls find
    /// them ready.
    LongRunning,
}

/// What each tool source yielded, kept so that hot reload can start again
/// only the source that changed: saving a Python tool does not restart the
/// MCP servers.
pub struct ToolSources {
    mode: RunMode,
    python: Vec<Found>,
    /// Python tools reach the registry they end up in through this link.
    host: HostLink,
    agents: Vec<Found>,
    mcp: Vec<Found>,
    /// The hooks (`agent/hooks/`), rediscovered with the Python tools.
    hooks: Hooks,
}

impl ToolSources {
    /// Starts every enabled source at once.
    pub async fn discover(settings: &Settings, mode: RunMode) -> Self {
        let host = HostLink::default();
        // A listing calls nothing: its hooks would never run.
        let hooks = async {
            if mode == RunMode::Listing {
                FoundHooks::default()
            } else {
                hooks_found(settings, mode).await
            }
        };
        let (python, mcp, hooks) = tokio::join!(
            python_found(settings, &host, mode),
            mcp_found(settings),
            hooks
        );
        ToolSources {
            mode,
            python,
            host,
            agents: agents_found(settings),
            mcp,
            hooks: hooks_of(hooks),
        }
    }

    /// Imports the Python tools again, in new workers.
    pub async fn rediscover_python(&mut self, settings: &Settings) {
        let host = HostLink::default();
        let (python, hooks) = tokio::join!(
            python_found(settings, &host, self.mode),
            hooks_found(settings, self.mode)
        );
        self.python = python;
        self.hooks = hooks_of(hooks);
        self.host = host;
    }

    /// The mode these sources were started in.
    pub fn mode(&self) -> RunMode {
        self.mode
    }

    /// Takes `other`'s Python tools (and their link to the registry) instead
    /// of these.
    pub fn keep_python_of(&mut self, other: &mut ToolSources) {
        std::mem::swap(&mut self.python, &mut other.python);
        std::mem::swap(&mut self.host, &mut other.host);
        std::mem::swap(&mut self.hooks, &mut other.hooks);
    }

    /// Reads the YAML agents files again.
    pub fn reread_agents(&mut self, settings: &Settings) {
        self.agents = agents_found(settings);
    }

    /// A registry of what the sources yielded, in order.
    pub fn registry(&self, settings: &Settings) -> Registry {
        let found = self
            .python
            .iter()
            .chain(&self.agents)
            .chain(&self.mcp)
            .cloned()
            .collect();
        let mut options = registry_options(settings);
        options.hooks = self.hooks.clone();
        let registry = Registry::new(found, options);
        self.host.set(&registry);
        registry
    }
}

/// Syncs the project's tool environment now (from an empty one with
/// `rebuild`), as a start would before the tools load: `riverse sync`.
pub async fn sync_environment(settings: &Settings, rebuild: bool) -> Result<Prepared, String> {
    let base = resolve_interpreter(
        settings.python.interpreter.as_deref(),
        &settings.project_dir,
    )
    .map_err(|err| format!("{err}; set python.interpreter in settings.yaml"))?;
    Ok(environment::prepare(
        &settings.project_dir,
        &settings.tools_dir(),
        base,
        &environment_options(settings),
        rebuild,
    )
    .await)
}

async fn python_found(settings: &Settings, host: &HostLink, mode: RunMode) -> Vec<Found> {
    if let Some(missing) = missing_tools_dir(settings) {
        vec![missing]
    } else if settings.tools.enabled {
        let prestart = mode == RunMode::LongRunning;
        python_tools(PythonOptions {
            first_worker_fresh: mode == RunMode::Listing,
            ..python_options(settings, host.clone(), prestart)
        })
        .await
    } else {
        tracing::info!("drop-in tools are disabled by tools.enabled: false");
        Vec::new()
    }
}

/// The hooks of `agent/hooks/` (`hooks.dir`), each file's fate with them:
/// `riverse hooks`.
pub async fn list_hooks(settings: &Settings) -> FoundHooks {
    hooks_found(settings, RunMode::Listing).await
}

async fn hooks_found(settings: &Settings, mode: RunMode) -> FoundHooks {
    if !settings.hooks.enabled {
        return FoundHooks::default();
    }
    let mut python = python_options(settings, HostLink::default(), mode == RunMode::LongRunning);
    python.tools_dir = settings.hooks.dir.clone();
    // Hooks are the project's own policy: no tool's sandbox or secrets.
    python.sandbox = None;
    python.tool_sandboxes.clear();
    python.tool_secrets.clear();
    let found = python_hooks(HookOptions {
        python,
        timeout: settings.hooks.timeout,
        on_error: settings.hooks.on_error,
    })
    .await;
    if let Some(error) = &found.error {
        tracing::warn!("hooks: {error}");
    }
    for report in &found.files {
        if let Some(error) = &report.error {
            tracing::warn!("hooks: {}", error.clone().located());
        }
    }
    found
}

fn hooks_of(found: FoundHooks) -> Hooks {
    Hooks(
        found
            .hooks
            .map(|hooks| hooks as std::sync::Arc<dyn CallHooks>),
    )
}

async fn mcp_found(settings: &Settings) -> Vec<Found> {
    if settings.mcp.enabled {
        mcp_tools(mcp_options(settings)).await
    } else {
        if !settings.mcp.servers.is_empty() {
            tracing::info!("mcp servers are configured but mcp.enabled is false");
        }
        Vec::new()
    }
}

/// The skills of the configured MCP servers that declare the MCP skills
/// extension, named `SERVER__NAME`; none when `mcp.enabled` is false. A
/// server's skill never takes a name `local` holds. Each server is started
/// for this (a connection of its own, kept while the result lives, to read
/// the skills' files with [`riverse_mcp::RemoteSkill::read_file`]).
pub async fn mcp_skills(
    settings: &Settings,
    local: &riverse_skills::SkillSet,
) -> riverse_mcp::McpSkills {
    if !settings.mcp.enabled || settings.mcp.servers.is_empty() {
        return riverse_mcp::McpSkills::default();
    }
    riverse_mcp::mcp_skills(mcp_options(settings), local).await
}

fn agents_found(settings: &Settings) -> Vec<Found> {
    if settings.tools.enabled {
        agent_tools(&agents_options(settings))
    } else {
        Vec::new()
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
