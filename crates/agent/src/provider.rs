//! The provider `llm_provider` names, built from its settings section.

use std::sync::Arc;

use riverse_embedded::EmbeddedProvider;
use riverse_llm::{Error, Observed, OllamaProvider, OpenAiProvider, Provider};

use crate::settings::options;
use crate::{Agent, LlmProvider, RunMode, Settings, ToolSources};

/// The provider the settings ask for, its requests traced and counted
/// ([`Observed`]). Building one contacts nothing; the first request finds
/// out whether the endpoint answers.
pub fn build_provider(settings: &Settings) -> Result<Arc<dyn Provider>, Error> {
    let (system, model) = options::traced_model(settings);
    Ok(Arc::new(Observed::new(
        provider_named(settings)?,
        system,
        &model,
    )))
}

fn provider_named(settings: &Settings) -> Result<Arc<dyn Provider>, Error> {
    match settings.llm_provider {
        LlmProvider::Openai => Ok(Arc::new(OpenAiProvider::new(options::openai_options(
            settings,
        ))?)),
        LlmProvider::Local => Ok(Arc::new(OllamaProvider::new(options::ollama_options(
            settings,
        ))?)),
        LlmProvider::Embedded => {
            let provider = EmbeddedProvider::new(options::embedded_options(settings))
                .with_model_file_hint(EMBEDDED_MODEL_FILE_HINT);
            Ok(Arc::new(provider))
        }
    }
}

/// What fixes an embedded model file that can't be found, fetched or read.
const EMBEDDED_MODEL_FILE_HINT: &str =
    "set embedded.model_path in settings.yaml to use another GGUF file";

/// The provider, then the registry: a provider that cannot be built fails
/// before any tool is imported. With MCP servers configured, their skills
/// are listed beside the tools ([`crate::mcp_skills`]) and offered to the
/// model with the project's own.
pub async fn build_agent(settings: &Settings) -> Result<Agent, Error> {
    build_agent_with_sources(settings, RunMode::OneShot)
        .await
        .map(|(agent, _sources)| agent)
}

/// [`build_agent`], with what each tool source yielded, for hot reload.
pub async fn build_agent_with_sources(
    settings: &Settings,
    mode: RunMode,
) -> Result<(Agent, ToolSources), Error> {
    let provider = build_provider(settings)?;
    let skills = riverse_skills::load(&options::skills_options(settings));
    // The servers' skills take connections of their own: the tool source's
    // are inside its tools. Nothing starts when no server is configured.
    let (sources, remote) = tokio::join!(
        ToolSources::discover(settings, mode),
        crate::mcp_skills(settings, &skills)
    );
    for failure in &remote.failures {
        tracing::warn!("{failure}");
    }
    let agent = Agent::new(
        sources.registry(settings),
        provider,
        options::turn_options(settings),
    )
    .with_skills(skills)
    .with_remote_skills(remote);
    Ok((agent, sources))
}
