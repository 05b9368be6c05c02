//! Ollama, through its OpenAI-compatible `/v1` endpoint, which carries tools
//! and streaming; what this adds is Ollama's defaults and advice in errors.

use std::time::Duration;

use crate::http::{Hints, RetryPolicy};
use crate::{ChatRequest, ChatResponse, Error, OpenAiOptions, OpenAiProvider, Provider, TextSink};

#[derive(Debug, Clone, PartialEq)]
pub struct OllamaOptions {
    /// Ollama's OpenAI-compatible API: `http://localhost:11434/v1`.
    pub base_url: String,
    pub model: String,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    /// Loading a large model can take a while: keep this generous.
    pub timeout: Duration,
    pub retry: RetryPolicy,
    /// Added to the advice errors give (which says to start Ollama or pull
    /// the model): how to point Riverse elsewhere.
    pub hints: Hints,
}

#[derive(Debug)]
pub struct OllamaProvider {
    inner: OpenAiProvider,
}

impl OllamaProvider {
    pub fn new(options: OllamaOptions) -> Result<Self, Error> {
        let advice = |own: String, caller: &Option<String>| match caller {
            Some(caller) => Some(format!("{own}, {caller}")),
            None => Some(own),
        };
        let hints = Hints {
            unreachable: advice(
                "is Ollama running? start it with `ollama serve`".into(),
                &options.hints.unreachable,
            ),
            unauthorized: options.hints.unauthorized.clone(),
            not_found: advice(
                format!("is the model pulled? run `ollama pull {}`", options.model),
                &options.hints.not_found,
            ),
        };
        let inner = OpenAiProvider::new(OpenAiOptions {
            base_url: options.base_url,
            api_key: None,
            model: options.model,
            temperature: options.temperature,
            max_tokens: options.max_tokens,
            timeout: options.timeout,
            retry: options.retry,
            hints,
        })?;
        Ok(OllamaProvider { inner })
    }

    pub fn url(&self) -> &str {
        self.inner.url()
    }
}

#[async_trait::async_trait]
impl Provider for OllamaProvider {
    fn describe(&self) -> String {
        format!("Ollama: {}", self.inner.describe())
    }

    async fn complete(
        &self,
        request: ChatRequest<'_>,
        on_text: Option<TextSink<'_>>,
    ) -> Result<ChatResponse, Error> {
        self.inner.complete(request, on_text).await
    }
}
