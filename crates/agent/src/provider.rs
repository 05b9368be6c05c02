//! The provider `llm_provider` names, built from its settings section.

use std::sync::Arc;

use riverse_llm::{
    EmbeddedOptions, EmbeddedProvider, Error, OllamaOptions, OllamaProvider, OpenAiOptions,
    OpenAiProvider, Provider, RetryPolicy,
};

use crate::{Agent, LlmProvider, Settings, TurnOptions, build_registry};

/// The provider the settings ask for. Building one contacts nothing; the
/// first request finds out whether the endpoint answers.
pub fn build_provider(settings: &Settings) -> Result<Arc<dyn Provider>, Error> {
    match settings.llm_provider {
        LlmProvider::Openai => {
            let openai = &settings.openai;
            let provider = OpenAiProvider::new(OpenAiOptions {
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
            })?;
            Ok(Arc::new(provider))
        }
        LlmProvider::Local => {
            let local = &settings.local;
            let provider = OllamaProvider::new(OllamaOptions {
                api_base: local.api_base.clone(),
                model: local.model.clone(),
                temperature: local.temperature,
                max_tokens: local.max_tokens,
                timeout: local.timeout,
                retry: RetryPolicy {
                    max_retries: local.max_retries,
                    ..RetryPolicy::default()
                },
            })?;
            Ok(Arc::new(provider))
        }
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
        TurnOptions::from_settings(settings),
    ))
}
