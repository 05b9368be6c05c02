//! `settings.yaml`, read once into typed options.
//!
//! The file is parsed twice from the same text: into a JSON document that every
//! tool receives as its `config` dict (unknown keys and all), and into raw serde
//! structs whose errors carry the key path, line and column. The raw values are
//! then checked into the typed [`Settings`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use riverse_tool::ToolPolicy;
use serde::Deserialize;
use serde_json::Value;

pub use llm::{LocalSettings, OpenaiSettings};
pub use mcp::McpSettings;
pub use serve::{ServeSettings, Storage};

const DEFAULT_TOOLS_DIR: &str = "agent/tools";
const DEFAULT_MAX_OUTPUT_BYTES: usize = 64 * 1024;
const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(30);
const DEFAULT_WORKERS: usize = 2;
const DEFAULT_IMPORT_TIMEOUT: Duration = Duration::from_secs(10);
const DEFAULT_MAX_ROUNDS: usize = 4;
const DEFAULT_MAX_TOOL_CALLS: usize = 8;

#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("can't read {}: {cause}", path.display())]
    Unreadable { path: PathBuf, cause: String },
    /// The message carries the key path, line and column where YAML gives them.
    #[error("{}: {message}", path.display())]
    Malformed { path: PathBuf, message: String },
    #[error("{}: {key}: {message}", path.display())]
    Invalid {
        path: PathBuf,
        key: String,
        message: String,
    },
}

/// The language of built-in prompts and messages (`language`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Language {
    #[default]
    En,
    Ja,
    Zh,
}

/// `llm_provider`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LlmProvider {
    Openai,
    Local,
    #[default]
    Embedded,
}

/// `agent.tool_mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolMode {
    #[default]
    Auto,
    Native,
    Dispatcher,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolsSettings {
    /// `tools.enabled: false` turns every drop-in tool off.
    pub enabled: bool,
    /// Relative to the project directory.
    pub dir: PathBuf,
    pub max_output_bytes: usize,
    pub default_timeout: Duration,
    /// `tools.<name>.enabled` and `tools.<name>.timeout`.
    pub per_tool: BTreeMap<String, ToolPolicy>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PythonSettings {
    pub interpreter: Option<String>,
    pub workers: usize,
    pub import_timeout: Duration,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AgentSettings {
    pub tool_mode: ToolMode,
    pub max_rounds: usize,
    pub max_tool_calls: usize,
}

#[derive(Debug, Clone)]
pub struct Settings {
    pub project_dir: PathBuf,
    /// The file read, if any.
    pub file: Option<PathBuf>,
    /// The whole document, as tools receive it.
    pub document: Value,
    pub language: Language,
    pub llm_provider: LlmProvider,
    pub tools: ToolsSettings,
    pub python: PythonSettings,
    pub agent: AgentSettings,
    pub mcp: McpSettings,
    /// `openai`, with `OPENAI_API_KEY` and `OPENAI_BASE_URL` applied by [`Settings::load`].
    pub openai: OpenaiSettings,
    /// `local`: Ollama.
    pub local: LocalSettings,
    /// `embedded.model_path`: a GGUF file to run instead of the default model
    /// (relative to the project); `None` uses the cached default.
    pub embedded_model_path: Option<PathBuf>,
    /// `serve` (and `database`): `riverse serve`.
    pub serve: ServeSettings,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawSettings {
    language: Option<String>,
    llm_provider: Option<String>,
    tools: Option<RawTools>,
    python: Option<RawPython>,
    agent: Option<RawAgent>,
    mcp: Option<mcp::RawMcp>,
    openai: Option<llm::RawEndpoint>,
    local: Option<llm::RawEndpoint>,
    embedded: Option<RawEmbedded>,
    serve: Option<serve::RawServe>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawEmbedded {
    model_path: Option<String>,
}

#[derive(Deserialize, Default)]
struct RawTools {
    enabled: Option<bool>,
    dir: Option<String>,
    max_output_bytes: Option<usize>,
    /// Every other key: a tool's own section.
    #[serde(flatten)]
    sections: BTreeMap<String, serde_yaml_ng::Value>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawPython {
    interpreter: Option<String>,
    workers: Option<usize>,
    import_timeout: Option<f64>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawAgent {
    tool_mode: Option<String>,
    max_rounds: Option<usize>,
    max_tool_calls: Option<usize>,
}

impl Settings {
    /// Reads `config` if given, else `$RIVERSE_CONFIG`, else
    /// `PROJECT/settings.yaml` when it exists; otherwise every default.
    pub fn load(project_dir: &Path, config: Option<&Path>) -> Result<Settings, SettingsError> {
        let explicit = config
            .map(Path::to_path_buf)
            .or_else(|| std::env::var_os("RIVERSE_CONFIG").map(PathBuf::from));
        let path = match explicit {
            Some(path) => Some(path),
            None => Some(project_dir.join("settings.yaml")).filter(|path| path.is_file()),
        };
        let Some(path) = path else {
            return Settings::from_yaml(project_dir, None, "").map(with_env);
        };
        let text = std::fs::read_to_string(&path).map_err(|err| SettingsError::Unreadable {
            path: path.clone(),
            cause: err.to_string(),
        })?;
        Settings::from_yaml(project_dir, Some(path), &text).map(with_env)
    }

    /// Parses settings from YAML text; `file` names it in errors.
    pub fn from_yaml(
        project_dir: &Path,
        file: Option<PathBuf>,
        text: &str,
    ) -> Result<Settings, SettingsError> {
        let path = file
            .clone()
            .unwrap_or_else(|| PathBuf::from("settings.yaml"));
        let malformed = |err: serde_yaml_ng::Error| SettingsError::Malformed {
            path: path.clone(),
            message: err.to_string(),
        };
        let document = match serde_yaml_ng::from_str::<Value>(text).map_err(malformed)? {
            Value::Null => Value::Object(Default::default()),
            document @ Value::Object(_) => document,
            other => {
                return Err(SettingsError::Malformed {
                    path,
                    message: format!(
                        "expected a mapping of settings at the top level, found {other}"
                    ),
                });
            }
        };
        let raw: RawSettings = serde_yaml_ng::from_str::<Option<RawSettings>>(text)
            .map_err(malformed)?
            .unwrap_or_default();
        let invalid = |key: &str, message: String| SettingsError::Invalid {
            path: path.clone(),
            key: key.to_owned(),
            message,
        };
        let language = match raw.language.as_deref() {
            None | Some("en") => Language::En,
            Some("ja") => Language::Ja,
            Some("zh") => Language::Zh,
            Some(other) => {
                return Err(invalid(
                    "language",
                    format!("expected en, ja or zh, got {other:?}"),
                ));
            }
        };
        let llm_provider = match raw.llm_provider.as_deref() {
            None | Some("embedded") => LlmProvider::Embedded,
            Some("openai") => LlmProvider::Openai,
            Some("local") => LlmProvider::Local,
            Some(other) => {
                return Err(invalid(
                    "llm_provider",
                    format!("expected openai, local or embedded, got {other:?}"),
                ));
            }
        };
        let tools = tools_settings(raw.tools.unwrap_or_default(), &invalid)?;
        let raw_python = raw.python.unwrap_or_default();
        let python = PythonSettings {
            interpreter: raw_python.interpreter.filter(|s| !s.trim().is_empty()),
            workers: match raw_python.workers {
                Some(0) => return Err(invalid("python.workers", "must be at least 1".into())),
                Some(n) => n,
                None => DEFAULT_WORKERS,
            },
            import_timeout: match raw_python.import_timeout {
                Some(secs) => seconds(secs).ok_or_else(|| {
                    invalid(
                        "python.import_timeout",
                        format!("expected a positive number of seconds, got {secs}"),
                    )
                })?,
                None => DEFAULT_IMPORT_TIMEOUT,
            },
        };
        let raw_agent = raw.agent.unwrap_or_default();
        let agent = AgentSettings {
            tool_mode: match raw_agent.tool_mode.as_deref() {
                None | Some("auto") => ToolMode::Auto,
                Some("native") => ToolMode::Native,
                Some("dispatcher") => ToolMode::Dispatcher,
                Some(other) => {
                    return Err(invalid(
                        "agent.tool_mode",
                        format!("expected auto, native or dispatcher, got {other:?}"),
                    ));
                }
            },
            max_rounds: raw_agent.max_rounds.unwrap_or(DEFAULT_MAX_ROUNDS),
            max_tool_calls: raw_agent.max_tool_calls.unwrap_or(DEFAULT_MAX_TOOL_CALLS),
        };
        let mcp = mcp::mcp_settings(raw.mcp.unwrap_or_default(), &invalid)?;
        let openai = llm::openai_settings(raw.openai.unwrap_or_default(), &invalid)?;
        let local = llm::local_settings(raw.local.unwrap_or_default(), &invalid)?;
        let serve = serve::serve_settings(raw.serve.unwrap_or_default(), &document, &invalid)?;
        Ok(Settings {
            project_dir: project_dir.to_owned(),
            file,
            document,
            language,
            llm_provider,
            tools,
            python,
            agent,
            mcp,
            openai,
            local,
            embedded_model_path: raw
                .embedded
                .and_then(|embedded| embedded.model_path)
                .filter(|path| !path.trim().is_empty())
                .map(|path| project_dir.join(path)),
            serve,
        })
    }

    /// The tools directory as a path to open.
    pub fn tools_dir(&self) -> PathBuf {
        self.project_dir.join(&self.tools.dir)
    }
}

/// The environment variables that override the file (DESIGN.md section 5).
fn with_env(mut settings: Settings) -> Settings {
    settings.openai.apply_env(&|name| std::env::var(name).ok());
    settings
}

fn seconds(secs: f64) -> Option<Duration> {
    (secs.is_finite() && secs > 0.0).then(|| Duration::from_secs_f64(secs))
}

fn tools_settings(
    raw: RawTools,
    invalid: &dyn Fn(&str, String) -> SettingsError,
) -> Result<ToolsSettings, SettingsError> {
    let mut per_tool = BTreeMap::new();
    for (name, section) in raw.sections {
        let serde_yaml_ng::Value::Mapping(section) = section else {
            continue;
        };
        let mut policy = ToolPolicy::default();
        if let Some(enabled) = section.get("enabled") {
            let key = format!("tools.{name}.enabled");
            policy.enabled = Some(enabled.as_bool().ok_or_else(|| {
                invalid(
                    &key,
                    format!("expected true or false, got {}", yaml_text(enabled)),
                )
            })?);
        }
        if let Some(timeout) = section.get("timeout") {
            let key = format!("tools.{name}.timeout");
            policy.timeout = Some(timeout.as_f64().and_then(seconds).ok_or_else(|| {
                invalid(
                    &key,
                    format!(
                        "expected a positive number of seconds, got {}",
                        yaml_text(timeout)
                    ),
                )
            })?);
        }
        per_tool.insert(name, policy);
    }
    Ok(ToolsSettings {
        enabled: raw.enabled.unwrap_or(true),
        dir: PathBuf::from(raw.dir.unwrap_or_else(|| DEFAULT_TOOLS_DIR.to_owned())),
        max_output_bytes: raw.max_output_bytes.unwrap_or(DEFAULT_MAX_OUTPUT_BYTES),
        default_timeout: DEFAULT_TOOL_TIMEOUT,
        per_tool,
    })
}

fn yaml_text(value: &serde_yaml_ng::Value) -> String {
    serde_yaml_ng::to_string(value)
        .map(|text| text.trim().to_owned())
        .unwrap_or_else(|_| "?".into())
}

mod llm;
mod mcp;
mod serve;
#[cfg(test)]
mod tests;
