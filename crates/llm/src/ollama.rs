//! Ollama, through its OpenAI-compatible `/v1` endpoint, which carries tools
//! and streaming; what this adds is Ollama's defaults and advice in errors.

use std::time::Duration;

use crate::http::{Hints, RetryPolicy};
use crate::{ChatRequest, ChatResponse, Error, OpenAiOptions, OpenAiProvider, Provider, TextSink};

#[derive(Debug, Clone, PartialEq)]
pub struct OllamaOptions {
    /// Ollama's address, with or without `/v1`: `http://localhost:11434`.
    pub api_base: String,
    pub model: String,
    pub temperature: Option<f32>,
    pub max_tokens: Option<u32>,
    /// Loading a large model can take a while: keep this generous.
    pub timeout: Duration,
    pub retry: RetryPolicy,
}

#[derive(Debug)]
pub struct OllamaProvider {
    inner: OpenAiProvider,
}

impl OllamaProvider {
    pub fn new(options: OllamaOptions) -> Result<Self, Error> {
        let base = options.api_base.trim_end_matches('/');
        let base_url = if base.ends_with("/v1") {
            base.to_owned()
        } else {
            format!("{base}/v1")
        };
        let hints = Hints {
            unreachable: Some(format!(
                "is Ollama running? start it with `ollama serve`, or set local.api_base (now {base})"
            )),
            unauthorized: None,
            not_found: Some(format!(
                "is the model pulled? run `ollama pull {}`, or set local.model",
                options.model
            )),
        };
        let inner = OpenAiProvider::with_hints(
            OpenAiOptions {
                base_url,
                api_key: None,
                model: options.model,
                temperature: options.temperature,
                max_tokens: options.max_tokens,
                timeout: options.timeout,
                retry: options.retry,
            },
            hints,
        )?;
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

    fn supports_tools(&self) -> bool {
        true
    }

    async fn complete(
        &self,
        request: ChatRequest<'_>,
        on_text: Option<TextSink<'_>>,
    ) -> Result<ChatResponse, Error> {
        self.inner.complete(request, on_text).await
    }
}
