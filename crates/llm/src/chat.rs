//! A conversation as providers see it.

use riverse_tool::ToolManifest;
use serde::{Deserialize, Serialize};

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    System(String),
    User(String),
    /// What the model said; `tool_calls` is empty for a plain answer.
    Assistant {
        content: String,
        tool_calls: Vec<ToolCall>,
    },
    /// The result of one tool call, answering the call with id `call_id`:
    /// its data, or (`failed`) why it failed.
    Tool {
        call_id: String,
        content: String,
        failed: bool,
    },
    /// Images tools returned, for a model that sees images
    /// ([`crate::Provider::accepts_images`]): after the results of their
    /// round, as a user message of image parts (tool messages carry text).
    Images(Vec<Image>),
}

/// An image as a model is shown it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// Who made it, for the text before the images: `the tool "chart"`.
    pub from: String,
    pub mime_type: String,
    /// The bytes in base64.
    pub data: String,
}

impl Message {
    pub fn assistant(content: impl Into<String>) -> Self {
        Message::Assistant {
            content: content.into(),
            tool_calls: Vec::new(),
        }
    }
}

/// A call the model asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// Unique within the conversation; the result message quotes it.
    pub id: String,
    pub name: String,
    /// The arguments as the model wrote them: JSON text, not yet checked,
    /// because a model may write anything and the agent reports it back.
    pub arguments: String,
}

/// What one completion is asked.
#[derive(Debug, Clone, Copy)]
pub struct ChatRequest<'a> {
    pub messages: &'a [Message],
    /// The tools the model may call; empty offers none.
    pub tools: &'a [ToolManifest],
    /// `None` uses the provider's configured temperature.
    pub temperature: Option<f64>,
    /// The most tokens to answer with; `None` uses the provider's configured
    /// limit (a tool's `self.sample(..., max_tokens=)` sets it).
    pub max_tokens: Option<u32>,
}

/// What one completion answered.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChatResponse {
    pub text: String,
    pub tool_calls: Vec<ToolCall>,
    /// Tokens the call took, when the endpoint said.
    pub usage: Option<Usage>,
}

/// Tokens, as OpenAI-compatible endpoints count them in `usage`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub prompt_tokens: u64,
    #[serde(default)]
    pub completion_tokens: u64,
    #[serde(default)]
    pub total_tokens: u64,
}

impl Usage {
    /// The sum of two counts, either of which may be unknown; unknown only
    /// when both are.
    pub fn sum(a: Option<Usage>, b: Option<Usage>) -> Option<Usage> {
        match (a, b) {
            (Some(a), Some(b)) => Some(Usage {
                prompt_tokens: a.prompt_tokens + b.prompt_tokens,
                completion_tokens: a.completion_tokens + b.completion_tokens,
                total_tokens: a.total_tokens + b.total_tokens,
            }),
            (one, other) => one.or(other),
        }
    }
}
