//! The provider `llm_provider` names, built from its settings section.

use std::sync::Arc;

use riverse_llm::{
    EmbeddedOptions, EmbeddedProvider, Error, OllamaProvider, OpenAiProvider, Provider,
};

use crate::{Agent, LlmProvider, Settings, build_registry, config};

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
        LlmProvider::Embedded => Ok(Arc::new(EmbeddedProvider::new(EmbeddedOptions {
            model_path: settings.embedded_model_path.clone(),
            python: settings
                .python
                .interpreter
                .clone()
                .unwrap_or_else(|| "python3".to_owned()),
            ..EmbeddedOptions::default()
        }))),
    }
}

/// The provider, then the registry: a provider that cannot be built fails
/// before any tool is imported.
pub async fn build_agent(settings: &Settings) -> Result<Agent, Error> {
    let provider = build_provider(settings)?;
    let registry = build_registry(settings).await;
    Ok(Agent::new(
        registry,
        provider,
        config::turn_options(settings),
    ))
}
