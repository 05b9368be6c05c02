//! LLM providers for Riverse.
//!
//! A [`Provider`] takes a conversation of [`Message`]s and the manifests of the
//! tools on offer, and returns a [`ChatResponse`]: text, [`ToolCall`]s, or both,
//! passing text to a callback as it streams in. [`OpenAiProvider`] speaks any
//! OpenAI-compatible `/chat/completions` endpoint (streaming, tool-call deltas,
//! retries with backoff, a request timeout, the token [`Usage`] the endpoint
//! reports or else an estimate); [`OllamaProvider`] is Ollama through
//! its compatible endpoint, with Ollama's advice in its errors. A model that runs
//! in-process implements the same trait with no HTTP at all (`riverse-embedded`
//! does): it receives the manifests and the conversation, and reports the calls
//! it chose as tool calls. [`Observed`] wraps any provider so that each request
//! is a `chat` span of OpenTelemetry's GenAI conventions.
//!
//! Out of scope: running tools and deciding when a turn ends (the agent does
//! both), and reading settings (callers pass [`OpenAiOptions`], to either).

mod chat;
mod error;
mod http;
pub mod observed;
mod ollama;
mod openai;

pub use chat::{ChatRequest, ChatResponse, Image, Message, ToolCall, ToolChoice, Usage};
pub use error::Error;
pub use http::{Hints, RetryPolicy};
pub use observed::{Observed, tokens};
pub use ollama::OllamaProvider;
pub use openai::{OpenAiOptions, OpenAiProvider, function_definition};

/// Receives answer text as it streams in, one piece at a time.
pub type TextSink<'a> = &'a mut (dyn FnMut(&str) + Send);

/// A language model the agent can talk to.
#[async_trait::async_trait]
pub trait Provider: Send + Sync {
    /// The model and where it runs, for messages: `gpt-4o-mini at https://api.openai.com/v1`.
    fn describe(&self) -> String;

    /// Whether the model is shown images ([`Message::Images`]); one that is
    /// not reads a line naming each image instead.
    fn accepts_images(&self) -> bool {
        false
    }

    /// One completion. With `on_text`, text is handed over as it arrives; the
    /// response holds all of it either way.
    async fn complete(
        &self,
        request: ChatRequest<'_>,
        on_text: Option<TextSink<'_>>,
    ) -> Result<ChatResponse, Error>;
}
