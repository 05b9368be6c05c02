//! Builds a registry from real tool files and compares what it holds.

use std::time::Duration;

use riverse_python::{PythonOptions, python_tools};
use riverse_test_support::{McpProcess, Project};
use riverse_tool::{Registry, RegistryOptions, Status, ToolPolicy, ToolResult};
use serde_json::{Value, json};

/// A project holding `echo.py` and the given fixtures.
pub fn project(fixtures: &[&str]) -> Project {
    let project = Project::new();
    project.fixture("echo.py");
    for fixture in fixtures {
        project.fixture(fixture);
    }
    project
}

/// One worker, so that "the other tools still answer" is proven in the very
/// pool that saw the failure, and a short import deadline.
pub fn options(project: &Project) -> PythonOptions {
    PythonOptions {
        interpreter: None,
        project_dir: project.path().to_owned(),
        tools_dir: "agent/tools".into(),
        workers: 1,
        import_timeout: Duration::from_secs(2),
        config: json!({}),
        host: Default::default(),
        limits: riverse_tool::CallLimits::default(),
        env: Default::default(),
        interpreter_hint: None,
        fork: fork_mode(),
        prestart: false,
        first_worker_fresh: false,
        environment: Default::default(),
        sandbox: None,
        tool_sandboxes: Default::default(),
        tool_secrets: Default::default(),
    }
}

/// Whether workers are forked from a fork server: on, unless
/// `RIVERSE_TEST_PYTHON_FORK=0` asks for fresh interpreters (`scripts/test` runs
/// this suite both ways).
pub fn fork_mode() -> bool {
    std::env::var("RIVERSE_TEST_PYTHON_FORK").map_or(true, |value| value != "0")
}

pub async fn registry(options: PythonOptions) -> Registry {
    registry_with(options, RegistryOptions::default()).await
}

pub async fn registry_with(options: PythonOptions, registry_options: RegistryOptions) -> Registry {
    Registry::new(python_tools(options).await, registry_options)
}

/// Registry options with one tool's policy.
pub fn policy(name: &str, policy: ToolPolicy) -> RegistryOptions {
    let mut options = RegistryOptions::default();
    options.policies.insert(name.to_owned(), policy);
    options
}

/// An entry of the registry, comparable as a whole.
#[derive(Debug, PartialEq)]
pub struct Row {
    pub name: Option<String>,
    pub status: Status,
    pub source: String,
    pub error: Option<String>,
}

pub fn available(name: &str, file: &str) -> Row {
    Row {
        name: Some(name.to_owned()),
        status: Status::Available,
        source: format!("agent/tools/{file}"),
        error: None,
    }
}

pub fn failed(name: Option<&str>, status: Status, file: &str, error: &str) -> Row {
    Row {
        name: name.map(str::to_owned),
        status,
        source: format!("agent/tools/{file}"),
        error: Some(error.to_owned()),
    }
}

pub fn rows(registry: &Registry) -> Vec<Row> {
    registry
        .entries()
        .iter()
        .map(|entry| Row {
            name: entry.name().map(str::to_owned),
            status: entry.status(),
            source: entry.source().to_string(),
            error: entry.error().map(str::to_owned),
        })
        .collect()
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

/// The well-behaved tool still answers.
pub async fn assert_echo_answers(registry: &Registry) {
    assert_eq!(
        call(registry, "echo", json!({"text": "still here"})).await,
        ToolResult::ok("still here")
    );
}

/// Loads `fixture` beside `echo.py` and checks that the registry holds echo
/// and `reported` (the fixture's one entry), and that echo still answers in
/// the pool that saw the failure. Returns both for further checks (the
/// project's directory lives as long as it does).
pub async fn registry_beside_echo(fixture: &str, reported: Row) -> (Project, Registry) {
    let project = project(&[fixture]);
    let registry = registry(options(&project)).await;
    assert_eq!(rows(&registry), [available("echo", "echo.py"), reported]);
    assert_echo_answers(&registry).await;
    (project, registry)
}

/// The worker script run alone in `project`, as the MCP server of its tools
/// directory, its stderr dropped; nothing said to it yet.
pub fn standalone(project: &Project) -> McpProcess {
    let script = riverse_python::write_worker_package(project.path()).unwrap();
    let python = riverse_python::resolve_interpreter(None, project.path())
        .unwrap()
        .executable;
    let mut command = std::process::Command::new(python);
    command
        .arg(&script)
        .arg("agent/tools")
        .current_dir(project.path());
    McpProcess::spawn(command, std::process::Stdio::null())
}
