//! The calls the model makes first for a message, without running them or
//! asking for an answer: what `riverse eval` measures.

use riverse_llm::{ChatRequest, ToolChoice};
use serde::Serialize;
use serde_json::Value;

use crate::ToolMode;

use super::asked::AskedCall;
use super::client::ToolUse;
use super::conversation::conversation;
use super::prompts;
use super::{Agent, TurnError};

/// A call the model chose, not run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoutedCall {
    pub tool: String,
    /// The arguments as an object, or as the model's text when they were not
    /// a JSON object.
    pub params: Value,
}

impl Agent {
    /// The calls the model makes first for `message`, without running them or
    /// asking for an answer: what `riverse eval` measures. Routes as
    /// [`Agent::turn`] does, `auto`'s fallback to the dispatcher included.
    pub async fn route(&self, message: &str) -> Result<Vec<RoutedCall>, TurnError> {
        let tools = self.tools_shown(&[], message);
        let calls = match self.routing() {
            ToolMode::Dispatcher => {
                self.dispatch(&tools, &[], message, &ToolUse::default())
                    .await?
                    .0
            }
            _ => {
                let (conversation, _) = conversation(
                    prompts::system(self.options.language).to_owned(),
                    &[],
                    Some(message),
                );
                let request = ChatRequest {
                    messages: &conversation,
                    tools: &tools,
                    temperature: None,
                    max_tokens: None,
                    tool_choice: &ToolChoice::Auto,
                    parallel_tool_calls: None,
                };
                match self.provider.complete(request, None).await {
                    Ok(response) => response.tool_calls.iter().map(AskedCall::read).collect(),
                    Err(err) if self.falls_back(&err) => {
                        self.dispatch(&tools, &[], message, &ToolUse::default())
                            .await?
                            .0
                    }
                    Err(err) => return Err(err.into()),
                }
            }
        };
        Ok(calls
            .into_iter()
            .map(|call| RoutedCall {
                params: call.arguments.recorded().to_value(),
                tool: call.tool,
            })
            .collect())
    }
}
