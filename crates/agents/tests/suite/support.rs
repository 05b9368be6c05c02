//! Agents files in a temporary project, loaded into a registry.

use std::path::Path;

use riverse_agents::{AgentsOptions, agent_tools};
use riverse_tool::{Registry, RegistryOptions, ToolResult};
use serde_json::Value;
use tempfile::TempDir;

/// A project whose `agent/config/agents_en.yaml` is `yaml`.
pub fn project(yaml: &str) -> TempDir {
    let project = tempfile::tempdir().unwrap();
    write(project.path(), "agent/config/agents_en.yaml", yaml);
    project
}

pub fn write(root: &Path, relative: &str, contents: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

pub fn options(project: &Path, language: &str) -> AgentsOptions {
    AgentsOptions {
        project_dir: project.to_owned(),
        config_dir: project.join("agent/config"),
        language: language.to_owned(),
        settings_agents: None,
    }
}

pub fn registry(options: &AgentsOptions) -> Registry {
    Registry::new(agent_tools(options), RegistryOptions::default())
}

pub async fn call(registry: &Registry, name: &str, params: Value) -> ToolResult {
    let Value::Object(params) = params else {
        panic!("parameters must be an object: {params}");
    };
    registry
        .call(name, params)
        .await
        .unwrap_or_else(|err| panic!("{name} could not be called: {err}"))
}
