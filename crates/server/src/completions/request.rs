//! A `/v1/chat/completions` body, checked: the messages as history and the
//! turn's message (or the client's tool results it goes on from), the
//! client's tools and choice of tools.

use riverse_llm::{Message, ToolCall};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::client_tools::{Choice, ClientFunction, arguments_text};
use crate::error::AppError;

/// The name `GET /v1/models` lists; any other name is served the same way.
pub const MODEL: &str = "riverse";

/// What a client sends. The other fields of OpenAI's request
/// (`temperature`, `user`, `n`, ...) are accepted and ignored.
#[derive(Debug, Deserialize)]
pub struct CompletionBody {
    /// `riverse` when absent or empty.
    model: Option<String>,
    stream: Option<bool>,
    stream_options: Option<StreamOptions>,
    messages: Vec<ChatMessage>,
    tools: Option<Vec<ChatTool>>,
    /// The functions of OpenAI's first function-calling API.
    functions: Option<Vec<FunctionDefinition>>,
    tool_choice: Option<ChoiceValue>,
    function_call: Option<ChoiceValue>,
    parallel_tool_calls: Option<bool>,
}

#[derive(Debug, Deserialize)]
struct StreamOptions {
    include_usage: Option<bool>,
}

#[derive(Debug, Deserialize)]
struct ChatTool {
    #[serde(rename = "type")]
    kind: String,
    function: Option<FunctionDefinition>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct FunctionDefinition {
    pub name: String,
    pub description: Option<String>,
    pub parameters: Option<Map<String, Value>>,
}

/// `tool_choice`: a mode, or an object naming a function
/// (`{"type": "function", "function": {"name"}}`; `function_call`'s
/// legacy `{"name"}`).
#[derive(Debug, Deserialize)]
#[serde(
    untagged,
    expecting = "expected \"none\", \"auto\", \"required\" or {\"type\": \"function\", \"function\": {\"name\": ...}}"
)]
enum ChoiceValue {
    Mode(String),
    Function { function: NamedFunction },
    Legacy { name: String },
}

#[derive(Debug, Deserialize)]
struct NamedFunction {
    name: String,
}

#[derive(Debug, Deserialize)]
#[serde(expecting = "a message object")]
struct ChatMessage {
    role: String,
    content: Option<Content>,
    tool_calls: Option<Vec<WireCall>>,
    tool_call_id: Option<String>,
    /// A legacy `function` message's function.
    name: Option<String>,
    function_call: Option<WireFunction>,
}

#[derive(Debug, Deserialize)]
struct WireCall {
    id: String,
    function: WireFunction,
}

#[derive(Debug, Deserialize)]
struct WireFunction {
    name: String,
    arguments: Option<Value>,
}

/// A message's text: a string, or an array of text parts.
#[derive(Debug, Deserialize)]
#[serde(untagged, expecting = "expected a string or an array of text parts")]
enum Content {
    Text(String),
    Parts(Vec<Part>),
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Part {
    Text { text: String },
}

/// A request, checked.
#[derive(Debug)]
pub struct CompletionRequest {
    pub model: String,
    /// Every message before the last user message; with the client's tool
    /// results at its end when there is none.
    pub history: Vec<Message>,
    /// The last message, the user's; `None` when the request ends with the
    /// results of client calls, which the turn goes on from.
    pub message: Option<String>,
    pub stream: bool,
    pub include_usage: bool,
    /// The client's functions, tools and legacy `functions` alike.
    pub functions: Vec<ClientFunction>,
    pub choice: Option<Choice>,
    pub parallel_tool_calls: Option<bool>,
    /// The request offered `functions`, not `tools`: calls are handed back
    /// as a `function_call`, the legacy API's way.
    pub legacy_functions: bool,
}

impl CompletionBody {
    pub fn check(self) -> Result<CompletionRequest, AppError> {
        let legacy_functions =
            self.functions.as_ref().is_some_and(|f| !f.is_empty()) && self.tools.is_none();
        let mut functions = Vec::new();
        for (index, tool) in self.tools.into_iter().flatten().enumerate() {
            let field = format!("tools[{index}]");
            if tool.kind != "function" {
                return Err(AppError::invalid(
                    &format!("{field}.type"),
                    format!("only function tools are supported, got {:?}", tool.kind),
                ));
            }
            let Some(function) = tool.function else {
                return Err(AppError::invalid(&format!("{field}.function"), "missing"));
            };
            functions.push(function.at(format!("{field}.function")));
        }
        for (index, function) in self.functions.into_iter().flatten().enumerate() {
            functions.push(function.at(format!("functions[{index}]")));
        }
        let choice = match (self.tool_choice, self.function_call) {
            (Some(choice), _) => Some(choice.check("tool_choice")?),
            (None, Some(choice)) => Some(choice.check("function_call")?),
            (None, None) => None,
        };
        let Some(last) = self.messages.len().checked_sub(1) else {
            return Err(AppError::invalid("messages", "must not be empty"));
        };
        let mut history = Vec::with_capacity(self.messages.len());
        let mut legacy_call = 0;
        for (index, message) in self.messages.into_iter().enumerate() {
            history.push(message.check(index, &mut legacy_call)?);
        }
        answered_calls(&history)?;
        let message = match history.pop() {
            Some(Message::User(message)) => Some(message),
            Some(tool @ Message::Tool { .. }) => {
                history.push(tool);
                None
            }
            _ => {
                return Err(AppError::invalid(
                    &format!("messages[{last}].role"),
                    "the last message must be the user's, or a tool's result",
                ));
            }
        };
        Ok(CompletionRequest {
            model: self
                .model
                .filter(|model| !model.is_empty())
                .unwrap_or_else(|| MODEL.to_owned()),
            history,
            message,
            stream: self.stream.unwrap_or(false),
            include_usage: self
                .stream_options
                .and_then(|options| options.include_usage)
                .unwrap_or(false),
            functions,
            choice,
            parallel_tool_calls: self.parallel_tool_calls,
            legacy_functions,
        })
    }
}

impl FunctionDefinition {
    pub(crate) fn at(self, field: String) -> ClientFunction {
        ClientFunction {
            field,
            name: self.name,
            description: self.description,
            parameters: self.parameters,
        }
    }
}

impl ChoiceValue {
    fn check(self, field: &str) -> Result<Choice, AppError> {
        match self {
            ChoiceValue::Mode(mode) => Choice::mode(field, &mode),
            ChoiceValue::Function { function } => Ok(Choice::Named {
                field: format!("{field}.function.name"),
                name: function.name,
            }),
            ChoiceValue::Legacy { name } => Ok(Choice::Named {
                field: format!("{field}.name"),
                name,
            }),
        }
    }
}

impl ChatMessage {
    /// The message as the agent's; a legacy function call gets an id of its
    /// own, `function_call_<n>`, which the `function` message after it answers.
    fn check(self, index: usize, legacy_call: &mut usize) -> Result<Message, AppError> {
        let field = |name: &str| format!("messages[{index}].{name}");
        let content = self.content.map(Content::text).unwrap_or_default();
        match self.role.as_str() {
            "system" | "developer" => Ok(Message::System(content)),
            "user" => Ok(Message::User(content)),
            "assistant" => {
                let mut tool_calls: Vec<ToolCall> = self
                    .tool_calls
                    .into_iter()
                    .flatten()
                    .map(|call| ToolCall {
                        id: call.id,
                        name: call.function.name,
                        arguments: arguments_text(call.function.arguments),
                    })
                    .collect();
                if let Some(function) = self.function_call {
                    *legacy_call += 1;
                    tool_calls.push(ToolCall {
                        id: format!("function_call_{legacy_call}"),
                        name: function.name,
                        arguments: arguments_text(function.arguments),
                    });
                }
                Ok(Message::Assistant {
                    content,
                    tool_calls,
                })
            }
            "tool" => {
                let Some(call_id) = self.tool_call_id else {
                    return Err(AppError::invalid(&field("tool_call_id"), "missing"));
                };
                Ok(Message::Tool {
                    call_id,
                    content,
                    failed: false,
                })
            }
            "function" => {
                if self.name.is_none() {
                    return Err(AppError::invalid(&field("name"), "missing"));
                }
                Ok(Message::Tool {
                    call_id: format!("function_call_{legacy_call}"),
                    content,
                    failed: false,
                })
            }
            other => Err(AppError::invalid(
                &field("role"),
                format!("expected system, developer, user, assistant or tool, got {other:?}"),
            )),
        }
    }
}

/// Each tool message must answer a call of the assistant message before it,
/// and each call be answered before the conversation goes on, as OpenAI's
/// API and the models behind it require.
fn answered_calls(history: &[Message]) -> Result<(), AppError> {
    // The calls not answered yet, with the index of the message that made them.
    let mut open: Vec<(usize, &str)> = Vec::new();
    for (index, message) in history.iter().enumerate() {
        if let Message::Tool { call_id, .. } = message {
            let Some(position) = open.iter().position(|(_, id)| id == call_id) else {
                return Err(AppError::invalid(
                    &format!("messages[{index}].tool_call_id"),
                    format!("{call_id:?} answers no tool call of the assistant message before it"),
                ));
            };
            open.remove(position);
            continue;
        }
        unanswered(&open)?;
        if let Message::Assistant { tool_calls, .. } = message {
            open = tool_calls
                .iter()
                .map(|call| (index, call.id.as_str()))
                .collect();
        }
    }
    unanswered(&open)
}

fn unanswered(open: &[(usize, &str)]) -> Result<(), AppError> {
    match open.first() {
        Some(&(asked, id)) => Err(AppError::invalid(
            &format!("messages[{asked}].tool_calls"),
            format!("the call {id:?} has no tool message answering it"),
        )),
        None => Ok(()),
    }
}

impl Content {
    fn text(self) -> String {
        match self {
            Content::Text(text) => text,
            Content::Parts(parts) => parts.into_iter().map(|Part::Text { text }| text).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    fn parsed(body: Value) -> Result<CompletionRequest, String> {
        crate::body::parse(body)
            .and_then(CompletionBody::check)
            .map_err(|err| err.message)
    }

    #[test]
    fn messages_become_history_and_the_last_user_message() {
        let request = parsed(json!({
            "model": "gpt-4o",
            "stream": true,
            "messages": [
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "hello"},
                {"role": "user", "content": [{"type": "text", "text": "weather "}, {"type": "text", "text": "in Tokyo?"}]}
            ]
        }))
        .unwrap();
        assert_eq!(request.model, "gpt-4o");
        assert_eq!(
            request.history,
            vec![
                Message::System("be brief".into()),
                Message::User("hi".into()),
                Message::assistant("hello"),
            ]
        );
        assert_eq!(request.message.as_deref(), Some("weather in Tokyo?"));
        assert!(request.stream && !request.include_usage);
        assert!(request.functions.is_empty() && request.choice.is_none());
    }

    #[test]
    fn a_malformed_request_names_the_field() {
        assert_eq!(parsed(json!({})).unwrap_err(), "messages: missing");
        assert_eq!(
            parsed(json!({"messages": "hi"})).unwrap_err(),
            "messages: invalid type: string \"hi\", expected a sequence"
        );
        assert_eq!(
            parsed(json!({"messages": [{"role": "user", "content": "hi"}], "stream": "yes"}))
                .unwrap_err(),
            "stream: invalid type: string \"yes\", expected a boolean"
        );
        assert_eq!(
            parsed(json!({"messages": []})).unwrap_err(),
            "messages: must not be empty"
        );
        assert_eq!(
            parsed(json!({"messages": [{"content": "hi"}]})).unwrap_err(),
            "messages[0].role: missing"
        );
        assert_eq!(
            parsed(json!({"messages": ["hi"]})).unwrap_err(),
            "messages[0]: invalid type: string \"hi\", expected a message object"
        );
        assert_eq!(
            parsed(json!({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "x"}]}))
                .unwrap_err(),
            "messages[1].role: the last message must be the user's, or a tool's result"
        );
        assert_eq!(
            parsed(json!({"messages": [{"role": "user", "content": 3}]})).unwrap_err(),
            "messages[0].content: expected a string or an array of text parts"
        );
        assert_eq!(
            parsed(json!({"messages": [{"role": "user", "content": [{"type": "image_url"}]}]}))
                .unwrap_err(),
            "messages[0].content: expected a string or an array of text parts"
        );
        assert_eq!(
            parsed(json!({"messages": [{"role": "user", "content": "hi"}],
                          "tools": [{"type": "web_search"}]}))
            .unwrap_err(),
            "tools[0].type: only function tools are supported, got \"web_search\""
        );
        assert_eq!(
            parsed(json!({"messages": [{"role": "user", "content": "hi"}],
                          "tools": [{"type": "function", "function": {"description": "x"}}]}))
            .unwrap_err(),
            "tools[0].function.name: missing"
        );
        assert!(
            parsed(json!({"messages": [{"role": "user", "content": "hi"}], "tool_choice": 3}))
                .unwrap_err()
                .starts_with("tool_choice: expected \"none\"")
        );
    }

    #[test]
    fn client_tools_and_the_choice_are_read() {
        let request = parsed(json!({
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [{"type": "function", "function": {"name": "lookup", "description": "Looks up",
                       "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}}],
            "tool_choice": {"type": "function", "function": {"name": "lookup"}},
            "parallel_tool_calls": false,
            "stream": true,
            "stream_options": {"include_usage": true}
        }))
        .unwrap();
        assert_eq!(request.functions.len(), 1);
        assert_eq!(request.functions[0].field, "tools[0].function");
        assert_eq!(request.functions[0].name, "lookup");
        assert_eq!(
            request.choice,
            Some(Choice::Named {
                field: "tool_choice.function.name".into(),
                name: "lookup".into()
            })
        );
        assert_eq!(request.parallel_tool_calls, Some(false));
        assert!(request.include_usage && !request.legacy_functions);
        let legacy = parsed(json!({
            "messages": [{"role": "user", "content": "hi"}],
            "functions": [{"name": "lookup"}],
            "function_call": "auto"
        }))
        .unwrap();
        assert!(legacy.legacy_functions);
        assert_eq!(
            legacy.choice,
            Some(Choice::Mode(riverse_llm::ToolChoice::Auto))
        );
        assert_eq!(
            parsed(
                json!({"messages": [{"role": "user", "content": "hi"}], "tool_choice": "always"})
            )
            .unwrap_err(),
            "tool_choice: expected \"none\", \"auto\", \"required\" or a function, got \"always\""
        );
    }

    #[test]
    fn tool_results_end_a_request_that_goes_on_from_them() {
        let request = parsed(json!({
            "messages": [
                {"role": "user", "content": "look it up"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": "{\"q\":\"x\"}"}}
                ]},
                {"role": "tool", "tool_call_id": "call_1", "content": "found"}
            ]
        }))
        .unwrap();
        assert_eq!(request.message, None);
        assert_eq!(
            request.history,
            vec![
                Message::User("look it up".into()),
                Message::Assistant {
                    content: String::new(),
                    tool_calls: vec![ToolCall {
                        id: "call_1".into(),
                        name: "lookup".into(),
                        arguments: "{\"q\":\"x\"}".into()
                    }]
                },
                Message::Tool {
                    call_id: "call_1".into(),
                    content: "found".into(),
                    failed: false
                },
            ]
        );
        let legacy = parsed(json!({
            "messages": [
                {"role": "user", "content": "look it up"},
                {"role": "assistant", "content": null, "function_call": {"name": "lookup", "arguments": "{}"}},
                {"role": "function", "name": "lookup", "content": "found"}
            ]
        }))
        .unwrap();
        assert!(
            matches!(&legacy.history[2], Message::Tool { call_id, .. } if call_id == "function_call_1")
        );
    }

    #[test]
    fn every_call_is_answered_and_every_result_answers_a_call() {
        let call = json!({"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}});
        assert_eq!(
            parsed(json!({"messages": [
                {"role": "user", "content": "x"},
                {"role": "tool", "tool_call_id": "call_9", "content": "r"}
            ]}))
            .unwrap_err(),
            "messages[1].tool_call_id: \"call_9\" answers no tool call of the assistant message before it"
        );
        assert_eq!(
            parsed(json!({"messages": [
                {"role": "user", "content": "x"},
                {"role": "assistant", "tool_calls": [call]},
                {"role": "user", "content": "y"}
            ]}))
            .unwrap_err(),
            "messages[1].tool_calls: the call \"call_1\" has no tool message answering it"
        );
        assert_eq!(
            parsed(json!({"messages": [
                {"role": "user", "content": "x"},
                {"role": "tool", "content": "r"}
            ]}))
            .unwrap_err(),
            "messages[1].tool_call_id: missing"
        );
    }
}
