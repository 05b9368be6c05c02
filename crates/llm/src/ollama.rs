//! Ollama, through its OpenAI-compatible `/v1` endpoint, which carries tools
//! and streaming; what this adds is Ollama's defaults and advice in errors.
//!
//! Usage comes as from any compatible endpoint: `/v1` reports Ollama's
//! `prompt_eval_count` and `eval_count` as `usage`'s `prompt_tokens` and
//! `completion_tokens`, in a whole reply and, asked with `stream_options`
//! (Ollama 0.5.2 on), on a streamed reply's last chunk. An older Ollama
//! streams none, and the completion carries the estimate instead.

use crate::http::Hints;
use crate::{ChatRequest, ChatResponse, Error, OpenAiOptions, OpenAiProvider, Provider, TextSink};

#[derive(Debug)]
pub struct OllamaProvider {
    inner: OpenAiProvider,
}

impl OllamaProvider {
    /// Ollama's OpenAI-compatible API (`http://localhost:11434/v1`) with
    /// these options, whose hints are added to the advice errors give (which
    /// says to start Ollama or pull the model). Ollama needs no `api_key`.
    pub fn new(options: OpenAiOptions) -> Result<Self, Error> {
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
        let inner = OpenAiProvider::new(OpenAiOptions { hints, ..options })?;
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

    fn accepts_images(&self) -> bool {
        self.inner.accepts_images()
    }

    async fn complete(
        &self,
        request: ChatRequest<'_>,
        on_text: Option<TextSink<'_>>,
    ) -> Result<ChatResponse, Error> {
        self.inner.complete(request, on_text).await
    }
}
