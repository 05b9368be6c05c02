//! `settings.yaml`, read once into typed settings.
//!
//! The file is parsed twice from the same text: into a JSON document that every
//! tool receives as its `config` dict (unknown keys and all), and into raw serde
//! structs whose fields are the typed values of [`values`], so that a value of
//! the wrong kind, or outside its range, is an error with the key path, line and
//! column. What Riverse's own settings files write and Riverse accepts (an
//! unknown language, a provider section of another name, a boolean written as
//! text) is read with a warning instead: see [`Settings::warnings`].
//!
//! Turning settings into the options of each part is [`crate::config`]'s job.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use riverse_process::sandbox::Sandbox;
use riverse_python::EnvPolicy;
use riverse_python::environment::{Dependencies, InstallerChoice};
use riverse_tool::ApprovalPolicy;
use serde::Deserialize;
use serde::de::IntoDeserializer;
use serde_json::Value;

pub use background::Background;
pub use hooks::HooksSettings;
pub use llm::{LocalSettings, OpenaiSettings};
pub use mcp::McpSettings;
pub use protected::ProtectedPath;
pub use schedules::{CatchUp, Runs, Schedule, ScheduleApproval, ScheduleSource};
pub use secrets::{Secret, SecretSource};
pub use serve::{ServeSettings, Storage, checked_token};
pub use skills::{SKILLS_DIR_VARIABLE, SkillsSettings};
use values::{Count, NonEmpty, Scalar, Seconds, Warnings};

const DEFAULT_TOOLS_DIR: &str = "agent/tools";
const DEFAULT_MAX_OUTPUT_BYTES: usize = 64 * 1024;
const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(30);
const DEFAULT_WORKERS: usize = 2;
const DEFAULT_IMPORT_TIMEOUT: Duration = Duration::from_secs(10);
const DEFAULT_MAX_ROUNDS: usize = 4;
const DEFAULT_MAX_TOOL_CALLS: usize = 8;
/// Measured with `cargo run --release -p riverse-bench --bin selection`: with
/// 200 tools, 24 keeps the expected tool among those shown for the template
/// tools' routing cases (docs/performance.md).
const DEFAULT_MAX_TOOLS_SHOWN: usize = 24;
/// A settings file is a page of YAML; anything this large is the wrong file
/// (`--config /dev/zero` would otherwise be read until memory runs out).
const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// `tools.max_output_bytes`: at most 64 MiB.
type OutputBytes = Count<1, { 64 * 1024 * 1024 }>;
/// `python.workers`.
type Workers = Count<1, 64>;
/// `agent.max_rounds`: 0 offers no tools.
type Rounds = Count<0, 100>;
/// `agent.max_tool_calls`.
type ToolCalls = Count<0, 1000>;
/// `agent.max_tools_shown`: 0 shows every tool.
type ToolsShown = Count<0, 10000>;

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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    #[default]
    En,
    Ja,
    Zh,
}

/// `llm_provider`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LlmProvider {
    Openai,
    Local,
    #[default]
    Embedded,
}

/// `log_format`: how log lines are written on stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// A line for a person: level and message.
    #[default]
    Text,
    /// One JSON object a line, with the spans (turn, call) it was logged in.
    Json,
}

/// `agent.tool_mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
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
    pub per_tool: BTreeMap<String, ToolSettings>,
}

/// What Riverse reads of a tool's own section, `tools.<name>`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolSettings {
    /// `Some(false)` turns the tool off whatever its own check says.
    pub enabled: Option<bool>,
    pub timeout: Option<Duration>,
    /// `tools.<name>.approval`: whether a call runs, asks first, or is
    /// refused.
    pub approval: ApprovalPolicy,
    /// `tools.<name>.sandbox`: where the tool's processes may reach.
    pub sandbox: Option<Sandbox>,
    /// `tools.<name>.secrets`: the names of the secrets the tool is given.
    pub secrets: Vec<String>,
    /// `tools.<name>.background`: a call still running after a while
    /// becomes a task that outlives its turn.
    pub background: Option<Background>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PythonSettings {
    pub interpreter: Option<String>,
    pub workers: usize,
    pub import_timeout: Duration,
    /// `python.fork`: fork workers from a fork server that has imported the
    /// tool files (default), rather than start each as a fresh interpreter.
    pub fork: bool,
    /// `python.env` (`inherit` | `clean`) with `python.env_allow`.
    pub env: EnvPolicy,
    /// `python.dependencies` (`auto` | `off`): whether what the tool files
    /// declare is installed into the project's tool environment.
    pub dependencies: Dependencies,
    /// `python.installer` (`auto` | `uv` | `pip`): what makes it.
    pub installer: InstallerChoice,
    /// `python.sandbox`: the sandbox of every Python tool without one of its
    /// own, and of the tool files' import.
    pub sandbox: Option<Sandbox>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AgentSettings {
    pub tool_mode: ToolMode,
    pub max_rounds: usize,
    pub max_tool_calls: usize,
    pub max_tools_shown: usize,
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
    /// `openai` (or the section `llm_provider` names), with `OPENAI_API_KEY`
    /// and `OPENAI_BASE_URL` applied by [`Settings::load`].
    pub openai: OpenaiSettings,
    /// `local`: Ollama.
    pub local: LocalSettings,
    /// `embedded.model_path`: a GGUF file to run instead of the default model
    /// (relative to the project); `None` uses the cached default.
    pub embedded_model_path: Option<PathBuf>,
    /// Values read otherwise than written, one line each (`key: what was done`),
    /// for the front end to show.
    pub warnings: Vec<String>,
    /// `serve` (and `database`): `riverse serve`.
    pub serve: ServeSettings,
    /// `log_format`; `--log-format` wins over it.
    pub log_format: LogFormat,
    /// `skills`, with `SKILLS_DIR` applied by [`Settings::load`].
    pub skills: SkillsSettings,
    /// `schedules`, each with its own errors; [`Settings::schedules`] adds
    /// the skills' schedules.
    pub schedules: Vec<Schedule>,
    /// `secrets`, by name, each with its value or why it could not be read.
    pub secrets: BTreeMap<String, Secret>,
    /// `hooks`: the hook files run around every call.
    pub hooks: HooksSettings,
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
    log_format: Option<LogFormat>,
    skills: Option<skills::RawSkills>,
    /// Read entry by entry: a bad one never stops the others.
    schedules: Option<Vec<serde_yaml_ng::Value>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawEmbedded {
    model_path: Option<String>,
}

#[derive(Deserialize, Default)]
struct RawTools {
    enabled: Option<Scalar<bool>>,
    dir: Option<NonEmpty>,
    max_output_bytes: Option<Scalar<OutputBytes>>,
    /// Every other key: a tool's own section.
    #[serde(flatten)]
    sections: BTreeMap<String, serde_yaml_ng::Value>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawPython {
    interpreter: Option<String>,
    workers: Option<Scalar<Workers>>,
    import_timeout: Option<Scalar<Seconds>>,
    fork: Option<Scalar<bool>>,
    env: Option<EnvMode>,
    env_allow: Vec<String>,
    dependencies: Option<DependenciesMode>,
    installer: Option<InstallerMode>,
}

/// `python.dependencies`: `auto` or `off` (`false` too, as YAML 1.1 readers
/// such as PyYAML read a bare `off`).
#[derive(Clone, Copy)]
struct DependenciesMode(Dependencies);

impl<'de> Deserialize<'de> for DependenciesMode {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match serde_yaml_ng::Value::deserialize(deserializer)? {
            serde_yaml_ng::Value::Bool(false) => Ok(DependenciesMode(Dependencies::Off)),
            serde_yaml_ng::Value::String(text) if text == "off" => {
                Ok(DependenciesMode(Dependencies::Off))
            }
            serde_yaml_ng::Value::String(text) if text == "auto" => {
                Ok(DependenciesMode(Dependencies::Auto))
            }
            other => Err(serde::de::Error::custom(format!(
                "{} is none of auto, off",
                yaml_text(&other)
            ))),
        }
    }
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum InstallerMode {
    Auto,
    Uv,
    Pip,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum EnvMode {
    Inherit,
    Clean,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawAgent {
    tool_mode: Option<ToolMode>,
    max_rounds: Option<Scalar<Rounds>>,
    max_tool_calls: Option<Scalar<ToolCalls>>,
    max_tools_shown: Option<Scalar<ToolsShown>>,
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
        let text = read_bounded(&path)?;
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
        let (raw, document) = parse_document(&path, text)?;
        let invalid = |key: &str, message: String| SettingsError::Invalid {
            path: path.clone(),
            key: key.to_owned(),
            message,
        };
        let mut warnings = Warnings::default();
        let language = language(raw.language.as_deref(), &mut warnings);
        let (llm_provider, openai_section) = llm_provider(
            raw.llm_provider.as_deref(),
            &document,
            &invalid,
            &mut warnings,
        )?;
        // Read before the tools' sections, whose sandboxes start from it.
        let python_sandbox = document
            .get("python")
            .and_then(|python| python.get("sandbox"))
            .map(|value| sandbox::sandbox_at("python.sandbox", value, project_dir, None))
            .transpose()
            .map_err(|(key, why)| invalid(&key, why))?;
        let tools = tools_settings(
            raw.tools.unwrap_or_default(),
            project_dir,
            python_sandbox.as_ref(),
            &invalid,
            &mut warnings,
        )?;
        let secrets = secrets::secrets_settings(
            document.get("secrets"),
            project_dir,
            &invalid,
            &mut warnings.0,
        )?;
        secrets::check_tools_secrets(&tools, &secrets, &invalid)?;
        let mut python = python_settings(raw.python.unwrap_or_default(), &secrets, &mut warnings);
        python.sandbox = python_sandbox;
        let agent = agent_settings(raw.agent.unwrap_or_default(), &mut warnings);
        let mut mcp = mcp::mcp_settings(raw.mcp.unwrap_or_default(), &invalid, &mut warnings)?;
        secrets::expand_in_servers(&mut mcp, &secrets, &invalid)?;
        let openai = match openai_section {
            Some(name) => {
                let raw = serde_yaml_ng::from_value(yaml_section(text, &name))
                    .map_err(|err| invalid(&name, err.to_string()))?;
                llm::openai_settings(&name, raw, &mut warnings)
            }
            None => llm::openai_settings("openai", raw.openai.unwrap_or_default(), &mut warnings),
        };
        let local = llm::local_settings(raw.local.unwrap_or_default(), &mut warnings);
        let serve = serve::serve_settings(
            raw.serve.unwrap_or_default(),
            &document,
            &invalid,
            &mut warnings,
        )?;
        let skills = skills::skills_settings(raw.skills.unwrap_or_default(), &mut warnings);
        let hooks = hooks::hooks_settings(document.get("hooks"), &invalid)?;
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
            warnings: warnings
                .0
                .into_iter()
                .map(|warning| format!("{}: {warning}", path.display()))
                .collect(),
            serve,
            log_format: raw.log_format.unwrap_or_default(),
            skills,
            schedules: schedules::schedules_settings(raw.schedules.unwrap_or_default()),
            secrets,
            hooks,
        })
        .inspect(Settings::protect_secrets)
    }

    /// The tools directory as a path to open.
    pub fn tools_dir(&self) -> PathBuf {
        self.project_dir.join(&self.tools.dir)
    }

    /// The skills directory as a path to open.
    pub fn skills_dir(&self) -> PathBuf {
        self.project_dir.join(&self.skills.dir)
    }

    /// The hooks directory as a path to open.
    pub fn hooks_dir(&self) -> PathBuf {
        self.project_dir.join(&self.hooks.dir)
    }
}

/// The settings typed, and the whole document as tools receive it.
fn parse_document(path: &Path, text: &str) -> Result<(RawSettings, Value), SettingsError> {
    let malformed = |err: serde_yaml_ng::Error| SettingsError::Malformed {
        path: path.to_owned(),
        message: err.to_string(),
    };
    let raw = serde_yaml_ng::from_str::<Option<RawSettings>>(text);
    let document = match serde_yaml_ng::from_str::<Value>(text) {
        Ok(Value::Null) => Value::Object(Default::default()),
        Ok(document @ Value::Object(_)) => document,
        Ok(other) => {
            return Err(SettingsError::Malformed {
                path: path.to_owned(),
                message: format!("expected a mapping of settings at the top level, found {other}"),
            });
        }
        // A JSON value can't hold an integer past 64 bits; where a typed key
        // has one, its own error says which range the key takes.
        Err(err) if err.to_string().contains("number out of range") => {
            return Err(malformed(raw.err().unwrap_or(err)));
        }
        Err(err) => return Err(malformed(err)),
    };
    Ok((raw.map_err(malformed)?.unwrap_or_default(), document))
}

fn read_bounded(path: &Path) -> Result<String, SettingsError> {
    let unreadable = |cause: String| SettingsError::Unreadable {
        path: path.to_owned(),
        cause,
    };
    let file = std::fs::File::open(path).map_err(|err| unreadable(err.to_string()))?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|err| unreadable(err.to_string()))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(unreadable(format!(
            "larger than {} MiB; is it a settings file?",
            MAX_FILE_BYTES / (1024 * 1024)
        )));
    }
    String::from_utf8(bytes).map_err(|err| unreadable(format!("not UTF-8 text ({err})")))
}

/// The environment variables that override the file (DESIGN.md section 5).
fn with_env(mut settings: Settings) -> Settings {
    settings.openai.apply_env(&|name| std::env::var(name).ok());
    settings.skills.apply_env(&|name| std::env::var(name).ok());
    settings.protect_secrets();
    settings
}

/// A name the enum does not know is `None`.
fn known<'de, T: Deserialize<'de>>(name: &'de str) -> Option<T> {
    T::deserialize(IntoDeserializer::<serde::de::value::Error>::into_deserializer(name)).ok()
}

/// Riverse falls back to English for a language it has no prompts for.
fn language(name: Option<&str>, warnings: &mut Warnings) -> Language {
    let Some(name) = name else {
        return Language::En;
    };
    known(name).unwrap_or_else(|| {
        warnings.push(
            "language",
            format!("{name:?} is not one of en, ja, zh; using en"),
        );
        Language::En
    })
}

/// The provider, and the section that configures the OpenAI-compatible one
/// when it is not `openai`: Riverse reads `llm_provider: deepseek` as "the
/// endpoint in the `deepseek` section".
fn llm_provider(
    name: Option<&str>,
    document: &Value,
    invalid: &dyn Fn(&str, String) -> SettingsError,
    warnings: &mut Warnings,
) -> Result<(LlmProvider, Option<String>), SettingsError> {
    let Some(name) = name else {
        return Ok((LlmProvider::Embedded, None));
    };
    if let Some(provider) = known(name) {
        return Ok((provider, None));
    }
    if document.get(name).is_some_and(Value::is_object) {
        warnings.push(
            "llm_provider",
            format!("{name:?} is not a provider name; its section {name:?} is used as an OpenAI-compatible endpoint"),
        );
        return Ok((LlmProvider::Openai, Some(name.to_owned())));
    }
    Err(invalid(
        "llm_provider",
        format!(
            "expected openai, local or embedded, or the name of a section with an api_base, got {name:?}"
        ),
    ))
}

/// The top-level `name` section of `text` as YAML, so that it reads with the
/// same types as the `openai` section.
fn yaml_section(text: &str, name: &str) -> serde_yaml_ng::Value {
    serde_yaml_ng::from_str::<serde_yaml_ng::Mapping>(text)
        .ok()
        .and_then(|mut top| top.remove(name))
        .unwrap_or_default()
}

fn tools_settings(
    raw: RawTools,
    project_dir: &Path,
    python_sandbox: Option<&Sandbox>,
    invalid: &dyn Fn(&str, String) -> SettingsError,
    warnings: &mut Warnings,
) -> Result<ToolsSettings, SettingsError> {
    let mut per_tool = BTreeMap::new();
    for (name, section) in raw.sections {
        if !section.is_mapping() {
            // An empty section (`file_list:`) or a value of the tool's own.
            continue;
        }
        // What Riverse reads of a tool's section; the rest is the tool's own.
        let key = |field: &str| format!("tools.{name}.{field}");
        let enabled: Option<Scalar<bool>> = section_field(&section, "enabled", &key, invalid)?;
        let timeout: Option<Scalar<Seconds>> = section_field(&section, "timeout", &key, invalid)?;
        let approval = match section.get("approval") {
            None => ApprovalPolicy::default(),
            Some(value) => {
                let value = serde_json::to_value(value)
                    .map_err(|err| invalid(&key("approval"), err.to_string()))?;
                approval::approval_at(&key("approval"), &value)
                    .map_err(|(key, why)| invalid(&key, why))?
                    .within(project_dir)
            }
        };
        let sandbox = match section.get("sandbox") {
            None => None,
            Some(value) => {
                let value = serde_json::to_value(value)
                    .map_err(|err| invalid(&key("sandbox"), err.to_string()))?;
                let sandbox =
                    sandbox::sandbox_at(&key("sandbox"), &value, project_dir, python_sandbox)
                        .map_err(|(key, why): (String, String)| invalid(&key, why))?;
                Some(sandbox)
            }
        };
        let secrets: Option<Vec<String>> = section_field(&section, "secrets", &key, invalid)?;
        let background = match section.get("background") {
            None => None,
            Some(value) => {
                let value = serde_json::to_value(value)
                    .map_err(|err| invalid(&key("background"), err.to_string()))?;
                Some(
                    background::background_at(&key("background"), &value)
                        .map_err(|(key, why)| invalid(&key, why))?,
                )
            }
        };
        let policy = ToolSettings {
            background,
            secrets: secrets.unwrap_or_default(),
            enabled: enabled.map(|enabled| warnings.take(&key("enabled"), enabled)),
            timeout: timeout.map(|timeout| warnings.take(&key("timeout"), timeout).0),
            approval,
            sandbox,
        };
        per_tool.insert(name, policy);
    }
    Ok(ToolsSettings {
        enabled: raw
            .enabled
            .is_none_or(|enabled| warnings.take("tools.enabled", enabled)),
        dir: PathBuf::from(
            raw.dir
                .map_or_else(|| DEFAULT_TOOLS_DIR.to_owned(), |dir| dir.0),
        ),
        max_output_bytes: raw
            .max_output_bytes
            .map_or(DEFAULT_MAX_OUTPUT_BYTES, |bytes| {
                warnings.take("tools.max_output_bytes", bytes).get()
            }),
        default_timeout: DEFAULT_TOOL_TIMEOUT,
        per_tool,
    })
}

/// One field of a section read as YAML, its errors under `key(field)`.
fn section_field<T: serde::de::DeserializeOwned>(
    section: &serde_yaml_ng::Value,
    field: &str,
    key: &dyn Fn(&str) -> String,
    invalid: &dyn Fn(&str, String) -> SettingsError,
) -> Result<Option<T>, SettingsError> {
    section
        .get(field)
        .map(|value| serde_yaml_ng::from_value(value.clone()))
        .transpose()
        .map_err(|err| invalid(&key(field), err.to_string()))
}

fn python_settings(
    raw: RawPython,
    secrets: &BTreeMap<String, Secret>,
    warnings: &mut Warnings,
) -> PythonSettings {
    PythonSettings {
        interpreter: raw.interpreter.filter(|s| !s.trim().is_empty()),
        workers: raw.workers.map_or(DEFAULT_WORKERS, |workers| {
            warnings.take("python.workers", workers).get()
        }),
        import_timeout: raw.import_timeout.map_or(DEFAULT_IMPORT_TIMEOUT, |secs| {
            warnings.take("python.import_timeout", secs).0
        }),
        fork: raw
            .fork
            .is_none_or(|fork| warnings.take("python.fork", fork)),
        env: match raw.env {
            None | Some(EnvMode::Inherit) => EnvPolicy::Inherit {
                withheld: Settings::withheld_variables(secrets, &raw.env_allow),
            },
            Some(EnvMode::Clean) => EnvPolicy::Clean {
                allow: raw.env_allow,
            },
        },
        dependencies: raw.dependencies.map_or(Dependencies::Auto, |mode| mode.0),
        installer: match raw.installer {
            None | Some(InstallerMode::Auto) => InstallerChoice::Auto,
            Some(InstallerMode::Uv) => InstallerChoice::Uv,
            Some(InstallerMode::Pip) => InstallerChoice::Pip,
        },
        sandbox: None,
    }
}

fn agent_settings(raw: RawAgent, warnings: &mut Warnings) -> AgentSettings {
    AgentSettings {
        tool_mode: raw.tool_mode.unwrap_or_default(),
        max_rounds: raw.max_rounds.map_or(DEFAULT_MAX_ROUNDS, |rounds| {
            warnings.take("agent.max_rounds", rounds).get()
        }),
        max_tool_calls: raw.max_tool_calls.map_or(DEFAULT_MAX_TOOL_CALLS, |calls| {
            warnings.take("agent.max_tool_calls", calls).get()
        }),
        max_tools_shown: raw
            .max_tools_shown
            .map_or(DEFAULT_MAX_TOOLS_SHOWN, |shown| {
                warnings.take("agent.max_tools_shown", shown).get()
            }),
    }
}

mod approval;
mod background;
mod hooks;
mod llm;
mod mcp;
pub mod options;
mod protected;
mod sandbox;
mod schedules;
mod secrets;
mod serve;
mod skills;
#[cfg(test)]
mod tests;
mod tool_config;
pub(crate) mod values;

pub use tool_config::tool_config;

/// A YAML value as it would be written, for messages.
fn yaml_text(value: &serde_yaml_ng::Value) -> String {
    serde_yaml_ng::to_string(value)
        .map(|text| text.trim().to_owned())
        .unwrap_or_else(|_| "?".into())
}
