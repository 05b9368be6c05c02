//! Riverse's YAML agents: HTTP and command tools declared without code.
//!
//! Riverse projects declare external capabilities in
//! `agent/config/agents_{language}.yaml` (falling back to `agents_en.yaml`),
//! and `settings.yaml` may add a top-level `agents:` list. Each entry becomes
//! an [`AgentTool`]: an `http` agent sends one request and reads its reply,
//! a `command` agent runs one program. Values are URL-encoded where they go
//! into a URL and escaped for a JSON or form body; they never reach a shell
//! unless the entry asks for one (and are then positional parameters, never
//! script text), may not begin an argument with `-` unless the entry allows
//! options, and may not name a protected path. Replies are read up to a cap,
//! redirects stay on the template's host unless the entry says otherwise, and
//! every call has a deadline.
//!
//! [`agent_tools`] reads the files and yields [`riverse_tool::Found`] values: a
//! malformed entry is a failure naming the file, the entry and the field, and
//! the other entries still load. Reading `settings.yaml` is the caller's job.

mod command;
mod http;
mod programs;
mod shell;
mod spec;
mod template;
mod words;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use riverse_process::sandbox::{Confinement, Sandbox};
use riverse_tool::{
    CallContext, CallLimits, Found, Params, Tool, ToolManifest, ToolResult, ToolSource,
};
use serde_json::Value;

pub use spec::{
    Action, AgentSpec, BodyTemplate, CommandSpec, HttpSpec, ParamSet, Redirect, SpecError,
};

/// Where the agents are declared.
#[derive(Debug, Clone)]
pub struct AgentsOptions {
    /// The project root: commands run here, and sources are shown relative to it.
    pub project_dir: PathBuf,
    /// The folder holding `agents_{language}.yaml` (Riverse's `agent/config`).
    pub config_dir: PathBuf,
    /// `language` in the settings.
    pub language: String,
    /// `settings.yaml`'s top-level `agents:` list and the file it comes from.
    pub settings_agents: Option<(PathBuf, Value)>,
    /// An HTTP agent's reply longer than [`CallLimits::reply_bytes`] fails
    /// its call, unread past that.
    pub limits: CallLimits,
    /// Paths a command agent's value may not name (relative ones against
    /// `project_dir`; symlinks followed): Riverse's own settings, tools and
    /// state. Empty: no check.
    pub protected_paths: Vec<PathBuf>,
    /// `tools.<name>.sandbox` of command agents: the program runs in it.
    pub sandboxes: BTreeMap<String, Sandbox>,
    /// Variables of Riverse's environment a command agent's program doesn't
    /// inherit: Riverse's own keys and the secrets' sources.
    pub withheld_env: Vec<String>,
}

/// One declared agent as a tool.
pub struct AgentTool {
    spec: AgentSpec,
    source: ToolSource,
    project_dir: PathBuf,
    protected_paths: Arc<[command::Protected]>,
    withheld_env: Arc<[String]>,
    /// The longest HTTP reply read.
    max_reply_bytes: usize,
    client: reqwest::Client,
    /// The sandbox a command agent's program runs in.
    sandbox: Option<Arc<Confinement>>,
    /// Its policy, which a nested call from another sandbox is checked
    /// against (kept where the kernel can't enforce it, too).
    policy: Option<Sandbox>,
}

#[async_trait::async_trait]
impl Tool for AgentTool {
    fn manifest(&self) -> &ToolManifest {
        &self.spec.manifest
    }

    fn source(&self) -> &ToolSource {
        &self.source
    }

    fn sandbox(&self) -> Option<&Sandbox> {
        self.policy.as_ref()
    }

    async fn call(&self, params: Params, timeout: Duration, _context: &CallContext) -> ToolResult {
        match &self.spec.action {
            Action::Http(spec) => {
                http::call(&self.client, spec, &params, timeout, self.max_reply_bytes).await
            }
            Action::Command(spec) => {
                let place = command::Place {
                    project_dir: &self.project_dir,
                    protected_paths: &self.protected_paths,
                    withheld_env: &self.withheld_env,
                    sandbox: self.sandbox.as_ref(),
                };
                command::call(spec, &params, &place, timeout).await
            }
        }
    }
}

/// The agents file for `language`, else `agents_en.yaml`, if either exists.
pub fn agents_file(config_dir: &Path, language: &str) -> Option<PathBuf> {
    [language, "en"]
        .iter()
        .map(|language| config_dir.join(format!("agents_{language}.yaml")))
        .find(|path| path.is_file())
}

/// Reads the agents file and the settings' list, in that order, into tools
/// and failures.
pub fn agent_tools(options: &AgentsOptions) -> Vec<Found> {
    let mut lists: Vec<(PathBuf, Result<Value, String>)> = Vec::new();
    if let Some(file) = agents_file(&options.config_dir, &options.language) {
        let document = std::fs::read_to_string(&file)
            .map_err(|err| format!("can't read it: {err}"))
            .and_then(|text| serde_yaml_ng::from_str::<Value>(&text).map_err(|err| err.to_string()))
            .and_then(|document| match document {
                Value::Null => Ok(Value::Array(Vec::new())),
                Value::Object(mut top) => Ok(top.remove("agents").unwrap_or(Value::Null)),
                other => Err(format!(
                    "expected a mapping with an agents: list, found {}",
                    spec::kind_of(&other)
                )),
            });
        lists.push((file, document));
    }
    if let Some((file, list)) = &options.settings_agents {
        lists.push((file.clone(), Ok(list.clone())));
    }
    if lists.is_empty() {
        return Vec::new();
    }
    let client = match http::client() {
        Ok(client) => client,
        Err(err) => {
            let source = ToolSource::Agent {
                file: shown(&options.project_dir, &lists[0].0),
            };
            return vec![Found::Failure {
                source,
                name: None,
                error: format!("can't set up an HTTP client: {err}"),
            }];
        }
    };
    let protected_paths: Arc<[command::Protected]> =
        command::protected(&options.project_dir, &options.protected_paths).into();
    let withheld_env: Arc<[String]> = options.withheld_env.clone().into();
    let max_reply_bytes = options.limits.reply_bytes();
    let mut found = Vec::new();
    for (file, list) in lists {
        let source = ToolSource::Agent {
            file: shown(&options.project_dir, &file),
        };
        let label = source.to_string();
        let entries = match list.and_then(|list| match list {
            Value::Null => Ok(Vec::new()),
            Value::Array(entries) => Ok(entries),
            other => Err(format!(
                "agents: expected a list of agents, found {}",
                spec::kind_of(&other)
            )),
        }) {
            Ok(entries) => entries,
            Err(error) => {
                found.push(Found::Failure {
                    source,
                    name: None,
                    error: format!("{label}: {error}"),
                });
                continue;
            }
        };
        for (index, entry) in entries.iter().enumerate() {
            match AgentSpec::parse(entry) {
                Ok(spec) => {
                    let (policy, sandbox) = match confine(&spec, options) {
                        Ok(confined) => confined,
                        Err(error) => {
                            found.push(Found::Failure {
                                source: source.clone(),
                                name: Some(spec.manifest.name.clone()),
                                error,
                            });
                            continue;
                        }
                    };
                    found.push(Found::Tool {
                        available: spec.enabled,
                        tool: Arc::new(AgentTool {
                            spec,
                            source: source.clone(),
                            project_dir: options.project_dir.clone(),
                            protected_paths: protected_paths.clone(),
                            withheld_env: withheld_env.clone(),
                            max_reply_bytes,
                            client: client.clone(),
                            sandbox,
                            policy,
                        }),
                    });
                }
                Err(err) => found.push(Found::Failure {
                    source: source.clone(),
                    name: err.name.clone(),
                    error: format!("{label}: {}", err.describe(index)),
                }),
            }
        }
    }
    found
}

/// The sandbox a command agent's program runs in, and its policy, prepared;
/// none for an HTTP agent (Riverse itself makes its requests) or a command
/// without one.
type Confined = (Option<Sandbox>, Option<Arc<Confinement>>);

fn confine(spec: &AgentSpec, options: &AgentsOptions) -> Result<Confined, String> {
    let (Action::Command(_), Some(sandbox)) =
        (&spec.action, options.sandboxes.get(&spec.manifest.name))
    else {
        return Ok((None, None));
    };
    let confinement = sandbox.confinement(&[]).map_err(|err| err.to_string())?;
    Ok((Some(sandbox.clone()), confinement))
}

/// A path relative to the project when it lies inside it.
fn shown(project_dir: &Path, file: &Path) -> PathBuf {
    file.strip_prefix(project_dir)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| file.to_owned())
}

/// The start of a reply or an error stream, on one line, for a message.
fn excerpt(text: &str) -> String {
    const MAX_CHARS: usize = 200;
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    riverse_tool::shorten(&flat, MAX_CHARS)
}
