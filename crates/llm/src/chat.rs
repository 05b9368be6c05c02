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
    /// Whether the model must call one of `tools`, or which. A provider that
    /// can't be told offers the tools as for [`ToolChoice::Auto`].
    pub tool_choice: &'a ToolChoice,
    /// `Some(false)`: at most one call in the answer, where the provider
    /// can be told; `None` leaves its default.
    pub parallel_tool_calls: Option<bool>,
}

/// What one completion answered.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChatResponse {
    pub text: String,
    pub tool_calls: Vec<ToolCall>,
    /// Tokens the call took. Riverse's providers give it on every
    /// completion: as the endpoint counted them, or [`Usage::estimate`]d when
    /// an endpoint reports none; the embedded model counts its own. `None`
    /// only from a provider that cannot tell.
    pub usage: Option<Usage>,
}

/// Tokens a completion took, in the shape of OpenAI's `usage`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub prompt_tokens: u64,
    #[serde(default)]
    pub completion_tokens: u64,
    #[serde(default)]
    pub total_tokens: u64,
}

/// Characters a token stands for in [`Usage::estimate`].
const CHARS_PER_TOKEN: u64 = 4;

impl Usage {
    /// A count with its total: `prompt_tokens + completion_tokens`.
    pub fn new(prompt_tokens: u64, completion_tokens: u64) -> Usage {
        Usage {
            prompt_tokens,
            completion_tokens,
            total_tokens: prompt_tokens + completion_tokens,
        }
    }

    /// An estimate, not a count: about 4 characters a token, rounded up, for
    /// `prompt_chars` characters sent and `completion_chars` answered. Used
    /// only when the endpoint reports no usage of its own; it is close for
    /// English, and low for text such as Japanese that takes more tokens a
    /// character.
    pub fn estimate(prompt_chars: usize, completion_chars: usize) -> Usage {
        let tokens = |chars: usize| (chars as u64).div_ceil(CHARS_PER_TOKEN);
        Usage::new(tokens(prompt_chars), tokens(completion_chars))
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_estimate_is_a_token_for_every_four_characters_begun() {
        assert_eq!(Usage::estimate(0, 0), Usage::default());
        assert_eq!(
            Usage::estimate(8, 9),
            Usage {
                prompt_tokens: 2,
                completion_tokens: 3,
                total_tokens: 5
            }
        );
        assert_eq!(Usage::estimate(1, 4), Usage::new(1, 1));
    }
}

/// Whether, and which, tools the model must call, as OpenAI's `tool_choice`
/// says it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ToolChoice {
    /// The model decides.
    #[default]
    Auto,
    /// The model answers without calling any.
    None,
    /// The model calls at least one.
    Required,
    /// The model calls this one.
    Function(String),
}
