//! Settings turned into the options of each part: the one place that knows
//! both the `settings.yaml` keys and the lower crates' option structs. Lower
//! crates report what is wrong; the advice that names a key to change is
//! added here.

use std::collections::HashMap;

use riverse_llm::{Hints, OllamaOptions, OpenAiOptions, RetryPolicy};
use riverse_mcp::McpOptions;
use riverse_python::{HostLink, PythonOptions};
use riverse_tool::{RegistryOptions, ToolPolicy};

use crate::{Settings, TurnOptions};

pub fn turn_options(settings: &Settings) -> TurnOptions {
    TurnOptions {
        tool_mode: settings.agent.tool_mode,
        max_rounds: settings.agent.max_rounds,
        max_tool_calls: settings.agent.max_tool_calls,
        max_tools_shown: settings.agent.max_tools_shown,
        language: settings.language,
    }
}

/// `host` is how Python tools reach the registry they end up in.
pub fn python_options(settings: &Settings, host: HostLink) -> PythonOptions {
    PythonOptions {
        interpreter: settings.python.interpreter.clone(),
        project_dir: settings.project_dir.clone(),
        tools_dir: settings.tools.dir.clone(),
        workers: settings.python.workers,
        import_timeout: settings.python.import_timeout,
        config: settings.tool_config(),
        host,
        max_output_bytes: settings.tools.max_output_bytes,
        env: settings.python.env.clone(),
        interpreter_hint: Some("set python.interpreter in settings.yaml".into()),
        fork: settings.python.fork,
        prestart: settings.python.prestart,
    }
}

pub fn mcp_options(settings: &Settings) -> McpOptions {
    McpOptions {
        servers: settings.mcp.servers.clone(),
        startup_timeout: settings.mcp.startup_timeout,
        project_dir: settings.project_dir.clone(),
        max_output_bytes: settings.tools.max_output_bytes,
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
            };
            (name.clone(), policy)
        })
        .collect();
    RegistryOptions {
        max_output_bytes: settings.tools.max_output_bytes,
        default_timeout: settings.tools.default_timeout,
        policies,
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

pub fn ollama_options(settings: &Settings) -> OllamaOptions {
    let local = &settings.local;
    OllamaOptions {
        base_url: local.base_url.clone(),
        model: local.model.clone(),
        temperature: local.temperature,
        max_tokens: local.max_tokens,
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
