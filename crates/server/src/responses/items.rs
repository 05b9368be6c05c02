//! Responses input items: what a request's `input` holds and what a stored
//! response keeps, read into [`Item`]s ([`read`]) and replayed as the
//! agent's messages ([`replay`]).
//!
//! Riverse's own calls come back as the `mcp_call` items it returned, each
//! a call with its result; the client's as `function_call` items, each
//! answered by a `function_call_output`.

use riverse_llm::{Message, ToolCall};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::body::kind_of;
use crate::client_tools::arguments_text;
use crate::error::AppError;

/// What `mcp_call` items name as their server.
pub const SERVER_LABEL: &str = "riverse";

/// One item of a conversation.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Message {
        role: Role,
        text: String,
    },
    /// A call of one of the client's tools, which the client answers.
    FunctionCall {
        call_id: String,
        name: String,
        arguments: String,
    },
    FunctionCallOutput {
        call_id: String,
        output: String,
    },
    /// A call of one of Riverse's tools, run: `Ok` with its output, or
    /// `Err` with why it failed.
    McpCall {
        id: String,
        /// The model's id for the call, which the model is shown again; the
        /// item's id when the item came back without it.
        call_id: String,
        name: String,
        arguments: String,
        outcome: Result<String, String>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    /// `system` and `developer` alike.
    System,
    Assistant,
}

/// An item and where it came from, for errors: `input[2]`, or
/// `previous_response_id` for those of a stored response.
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    pub at: String,
    pub item: Item,
}

#[derive(Debug, Deserialize)]
struct MessageItem {
    role: String,
    content: Content,
}

/// A message's content, or a call's output: a string, or an array of parts.
#[derive(Debug, Deserialize)]
#[serde(untagged, expecting = "expected a string or an array of content parts")]
enum Content {
    Text(String),
    Parts(Vec<Value>),
}

#[derive(Debug, Deserialize)]
struct TextPart {
    text: String,
}

#[derive(Debug, Deserialize)]
struct FunctionCallItem {
    call_id: String,
    name: String,
    arguments: Option<Value>,
}

#[derive(Debug, Deserialize)]
struct FunctionCallOutputItem {
    call_id: String,
    output: Content,
}

#[derive(Debug, Deserialize)]
struct McpCallItem {
    id: String,
    /// Riverse's own field: OpenAI's item has no id of the model's.
    call_id: Option<String>,
    name: String,
    arguments: Option<Value>,
    output: Option<String>,
    /// Riverse writes the error's text; OpenAI's newer clients an object.
    error: Option<Value>,
}

/// The item `value` is, found at `at`; `None` for the kinds that carry
/// nothing for the agent (`reasoning`, `item_reference`). A message's
/// `type` may be left out.
pub fn read(value: Value, at: &str) -> Result<Option<Item>, AppError> {
    let Value::Object(fields) = &value else {
        return Err(AppError::invalid(
            at,
            format!("expected an item object, got {}", kind_of(&value)),
        ));
    };
    let kind = match fields.get("type") {
        None | Some(Value::Null) => "message",
        Some(Value::String(kind)) => kind.as_str(),
        Some(other) => {
            return Err(AppError::invalid(
                &format!("{at}.type"),
                format!("expected a string, got {}", kind_of(other)),
            ));
        }
    };
    let item = match kind {
        "message" => {
            let message: MessageItem = parse_at(value, at)?;
            let role = match message.role.as_str() {
                "user" => Role::User,
                "system" | "developer" => Role::System,
                "assistant" => Role::Assistant,
                other => {
                    return Err(AppError::invalid(
                        &format!("{at}.role"),
                        format!("expected user, system, developer or assistant, got {other:?}"),
                    ));
                }
            };
            Item::Message {
                role,
                text: message.content.text(&format!("{at}.content"))?,
            }
        }
        "function_call" => {
            let call: FunctionCallItem = parse_at(value, at)?;
            Item::FunctionCall {
                call_id: call.call_id,
                name: call.name,
                arguments: arguments_text(call.arguments),
            }
        }
        "function_call_output" => {
            let output: FunctionCallOutputItem = parse_at(value, at)?;
            Item::FunctionCallOutput {
                call_id: output.call_id,
                output: output.output.text(&format!("{at}.output"))?,
            }
        }
        "mcp_call" => {
            let call: McpCallItem = parse_at(value, at)?;
            let outcome = match call.error {
                None | Some(Value::Null) => Ok(call.output.unwrap_or_default()),
                Some(error) => Err(error_text(error)),
            };
            Item::McpCall {
                call_id: call.call_id.unwrap_or_else(|| call.id.clone()),
                id: call.id,
                name: call.name,
                arguments: arguments_text(call.arguments),
                outcome,
            }
        }
        "reasoning" | "item_reference" => return Ok(None),
        other => {
            return Err(AppError::invalid(
                &format!("{at}.type"),
                format!(
                    "expected message, function_call, function_call_output, mcp_call, \
                     reasoning or item_reference, got {other:?}"
                ),
            ));
        }
    };
    Ok(Some(item))
}

/// `value` as `T`, with a 400 naming the field under `at`.
pub fn parse_at<T: DeserializeOwned>(value: Value, at: &str) -> Result<T, AppError> {
    crate::body::parse(value).map_err(|err| {
        let inner = err.param.unwrap_or_default();
        let why = err
            .message
            .strip_prefix(&format!("{inner}: "))
            .unwrap_or(&err.message);
        let field = match inner.as_str() {
            "body" => at.to_owned(),
            inner => format!("{at}.{inner}"),
        };
        AppError::invalid(&field, why)
    })
}

/// An `mcp_call` error as text: Riverse's string, or the message of an
/// error object.
fn error_text(error: Value) -> String {
    match error {
        Value::String(text) => text,
        Value::Object(fields) => match fields.get("message") {
            Some(Value::String(message)) => message.clone(),
            _ => Value::Object(fields).to_string(),
        },
        other => other.to_string(),
    }
}

impl Content {
    /// The text, its parts' put together; only text parts may be there.
    fn text(self, at: &str) -> Result<String, AppError> {
        let parts = match self {
            Content::Text(text) => return Ok(text),
            Content::Parts(parts) => parts,
        };
        let mut text = String::new();
        for (index, part) in parts.into_iter().enumerate() {
            let at = format!("{at}[{index}]");
            let kind = part.get("type").and_then(Value::as_str);
            match kind {
                Some("input_text" | "output_text" | "text") => {
                    text.push_str(&parse_at::<TextPart>(part, &at)?.text);
                }
                Some(other) => {
                    return Err(AppError::invalid(
                        &format!("{at}.type"),
                        format!("only text parts are supported, got {other:?}"),
                    ));
                }
                None if part.is_object() => {
                    return Err(AppError::invalid(&format!("{at}.type"), "missing"));
                }
                None => {
                    return Err(AppError::invalid(
                        &at,
                        format!("expected a content part, got {}", kind_of(&part)),
                    ));
                }
            }
        }
        Ok(text)
    }
}

impl Item {
    /// The item as a stored response keeps it: input as a later request
    /// could send it.
    pub fn to_json(&self) -> Value {
        match self {
            Item::Message { role, text } => {
                let role = match role {
                    Role::User => "user",
                    Role::System => "system",
                    Role::Assistant => "assistant",
                };
                json!({"type": "message", "role": role, "content": text})
            }
            Item::FunctionCall {
                call_id,
                name,
                arguments,
            } => json!({
                "type": "function_call", "call_id": call_id, "name": name, "arguments": arguments,
            }),
            Item::FunctionCallOutput { call_id, output } => json!({
                "type": "function_call_output", "call_id": call_id, "output": output,
            }),
            Item::McpCall {
                id,
                call_id,
                name,
                arguments,
                outcome,
            } => {
                let mut item = Map::new();
                item.insert("type".into(), json!("mcp_call"));
                item.insert("id".into(), json!(id));
                item.insert("call_id".into(), json!(call_id));
                item.insert("server_label".into(), json!(SERVER_LABEL));
                item.insert("name".into(), json!(name));
                item.insert("arguments".into(), json!(arguments));
                let (output, error) = match outcome {
                    Ok(output) => (json!(output), Value::Null),
                    Err(error) => (Value::Null, json!(error)),
                };
                item.insert("output".into(), output);
                item.insert("error".into(), error);
                Value::Object(item)
            }
        }
    }
}

/// The items as the agent's messages. Calls in a row are one assistant
/// message, with the text of an assistant message just before them, as the
/// model said them; each of Riverse's calls is followed by its result. Every
/// `function_call_output` must answer a `function_call` before it, and each
/// `function_call` be answered before anything else comes: a 400 names the
/// item at fault.
pub fn replay(items: &[Placed]) -> Result<Vec<Message>, AppError> {
    let mut replay = Replay::default();
    for placed in items {
        replay.add(placed)?;
    }
    replay.finish()
}

#[derive(Default)]
struct Replay {
    messages: Vec<Message>,
    /// What the last assistant message can still take.
    open: Open,
    /// The client's calls not answered yet: where each was, and its id.
    unanswered: Vec<(String, String)>,
}

/// What comes of a call item that follows.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Open {
    #[default]
    Nothing,
    /// The last message is the assistant's text: calls join it.
    Text,
    /// The assistant message at this index holds Riverse's calls just
    /// before: another joins them.
    OwnCalls(usize),
    /// The same for the client's calls.
    ClientCalls(usize),
}

impl Replay {
    fn add(&mut self, placed: &Placed) -> Result<(), AppError> {
        match &placed.item {
            Item::Message { role, text } => {
                self.all_answered()?;
                let (message, open) = match role {
                    Role::User => (Message::User(text.clone()), Open::Nothing),
                    Role::System => (Message::System(text.clone()), Open::Nothing),
                    Role::Assistant => (Message::assistant(text.clone()), Open::Text),
                };
                self.messages.push(message);
                self.open = open;
            }
            Item::McpCall {
                call_id,
                name,
                arguments,
                outcome,
                ..
            } => {
                self.all_answered()?;
                let call = ToolCall {
                    id: call_id.clone(),
                    name: name.clone(),
                    arguments: arguments.clone(),
                };
                // A model may number its calls afresh each round: a call
                // whose id is already there is a round of its own.
                let at = match self.open {
                    Open::OwnCalls(at) if !self.has_call(at, call_id) => at,
                    Open::OwnCalls(_) => {
                        self.messages.push(Message::assistant(""));
                        self.messages.len() - 1
                    }
                    _ => self.assistant_for_calls(),
                };
                self.join(at, call);
                let (content, failed) = match outcome {
                    Ok(output) => (output.clone(), false),
                    Err(error) => (error.clone(), true),
                };
                self.messages.push(Message::Tool {
                    call_id: call_id.clone(),
                    content,
                    failed,
                });
                self.open = Open::OwnCalls(at);
            }
            Item::FunctionCall {
                call_id,
                name,
                arguments,
            } => {
                let at = match self.open {
                    Open::ClientCalls(at) => at,
                    _ => {
                        self.all_answered()?;
                        self.assistant_for_calls()
                    }
                };
                self.join(
                    at,
                    ToolCall {
                        id: call_id.clone(),
                        name: name.clone(),
                        arguments: arguments.clone(),
                    },
                );
                self.unanswered.push((placed.at.clone(), call_id.clone()));
                self.open = Open::ClientCalls(at);
            }
            Item::FunctionCallOutput { call_id, output } => {
                let Some(position) = self.unanswered.iter().position(|(_, id)| id == call_id)
                else {
                    return Err(AppError::invalid(
                        &format!("{}.call_id", placed.at),
                        format!("{call_id:?} answers no function_call before it"),
                    ));
                };
                self.unanswered.remove(position);
                self.messages.push(Message::Tool {
                    call_id: call_id.clone(),
                    content: output.clone(),
                    failed: false,
                });
                self.open = Open::Nothing;
            }
        }
        Ok(())
    }

    /// The index of the assistant message the next calls go in: the text
    /// just said, or a new message.
    fn assistant_for_calls(&mut self) -> usize {
        if self.open != Open::Text {
            self.messages.push(Message::assistant(""));
        }
        self.messages.len() - 1
    }

    fn has_call(&self, at: usize, call_id: &str) -> bool {
        matches!(self.messages.get(at), Some(Message::Assistant { tool_calls, .. })
            if tool_calls.iter().any(|call| call.id == call_id))
    }

    fn join(&mut self, at: usize, call: ToolCall) {
        if let Some(Message::Assistant { tool_calls, .. }) = self.messages.get_mut(at) {
            tool_calls.push(call);
        }
    }

    fn all_answered(&self) -> Result<(), AppError> {
        match self.unanswered.first() {
            Some((at, call_id)) => Err(AppError::invalid(
                at,
                format!("the function call {call_id:?} has no function_call_output answering it"),
            )),
            None => Ok(()),
        }
    }

    fn finish(self) -> Result<Vec<Message>, AppError> {
        self.all_answered()?;
        Ok(self.messages)
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn placed(values: Vec<Value>) -> Result<Vec<Placed>, String> {
        let mut items = Vec::new();
        for (index, value) in values.into_iter().enumerate() {
            let at = format!("input[{index}]");
            if let Some(item) = read(value, &at).map_err(|err| err.message)? {
                items.push(Placed { at, item });
            }
        }
        Ok(items)
    }

    fn replayed(values: Vec<Value>) -> Result<Vec<Message>, String> {
        replay(&placed(values)?).map_err(|err| err.message)
    }

    fn call(id: &str, name: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: "{}".into(),
        }
    }

    fn result(id: &str, content: &str, failed: bool) -> Message {
        Message::Tool {
            call_id: id.into(),
            content: content.into(),
            failed,
        }
    }

    #[test]
    fn messages_of_every_shape_are_read() {
        let messages = replayed(vec![
            json!({"role": "developer", "content": "be brief"}),
            json!({"type": "message", "role": "user",
                   "content": [{"type": "input_text", "text": "weather "}, {"type": "text", "text": "in Tokyo?"}]}),
            json!({"type": "reasoning", "id": "rs_1", "summary": []}),
            json!({"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
                   "content": [{"type": "output_text", "text": "Sunny.", "annotations": []}]}),
            json!({"type": "item_reference", "id": "msg_0"}),
            json!({"role": "system", "content": "no"}),
        ])
        .unwrap();
        assert_eq!(
            messages,
            vec![
                Message::System("be brief".into()),
                Message::User("weather in Tokyo?".into()),
                Message::assistant("Sunny."),
                Message::System("no".into()),
            ]
        );
    }

    #[test]
    fn calls_in_a_row_are_one_assistant_message_with_the_text_before_them() {
        let messages = replayed(vec![
            json!({"role": "user", "content": "pack for Tokyo"}),
            json!({"type": "message", "role": "assistant", "content": "Checking."}),
            json!({"type": "mcp_call", "id": "mcp_1", "call_id": "c1", "server_label": "riverse",
                   "name": "weather", "arguments": "{}", "output": "sunny", "error": null,
                   "status": "completed"}),
            json!({"type": "mcp_call", "id": "mcp_2", "name": "clock", "arguments": {},
                   "output": null, "error": {"type": "mcp_tool_execution_error", "message": "clock broke"}}),
            json!({"type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "packing_list",
                   "arguments": "{}", "status": "completed"}),
            json!({"type": "function_call", "call_id": "call_b", "name": "packing_list", "arguments": "{}"}),
            json!({"type": "function_call_output", "call_id": "call_b", "output": "shoes"}),
            json!({"type": "function_call_output", "call_id": "call_a",
                   "output": [{"type": "input_text", "text": "umbrella"}]}),
        ])
        .unwrap();
        assert_eq!(
            messages,
            vec![
                Message::User("pack for Tokyo".into()),
                Message::Assistant {
                    content: "Checking.".into(),
                    tool_calls: vec![call("c1", "weather"), call("mcp_2", "clock")],
                },
                result("c1", "sunny", false),
                result("mcp_2", "clock broke", true),
                Message::Assistant {
                    content: String::new(),
                    tool_calls: vec![
                        call("call_a", "packing_list"),
                        call("call_b", "packing_list")
                    ],
                },
                result("call_b", "shoes", false),
                result("call_a", "umbrella", false),
            ]
        );
    }

    #[test]
    fn a_call_answered_before_the_next_is_a_round_of_its_own() {
        let messages = replayed(vec![
            json!({"role": "user", "content": "x"}),
            json!({"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"}),
            json!({"type": "function_call_output", "call_id": "a", "output": "1"}),
            json!({"type": "function_call", "call_id": "b", "name": "f", "arguments": "{}"}),
            json!({"type": "function_call_output", "call_id": "b", "output": "2"}),
        ])
        .unwrap();
        assert_eq!(messages.len(), 5);
        assert!(
            matches!(&messages[3], Message::Assistant { tool_calls, .. } if tool_calls == &[call("b", "f")])
        );
    }

    #[test]
    fn an_id_a_round_used_before_starts_a_round_of_its_own() {
        let weather = json!({"type": "mcp_call", "id": "mcp_1", "call_id": "call_0",
                             "name": "weather", "arguments": "{}", "output": "sunny"});
        let mut again = weather.clone();
        again["id"] = json!("mcp_2");
        let messages = replayed(vec![
            json!({"role": "user", "content": "x"}),
            weather,
            again,
        ])
        .unwrap();
        let shapes: Vec<usize> = messages
            .iter()
            .map(|message| match message {
                Message::Assistant { tool_calls, .. } => tool_calls.len(),
                _ => 0,
            })
            .collect();
        assert_eq!(shapes, vec![0, 1, 0, 1, 0]);
    }

    #[test]
    fn stored_items_read_back_as_they_were() {
        let items = vec![
            Item::Message {
                role: Role::User,
                text: "hi".into(),
            },
            Item::McpCall {
                id: "mcp_1".into(),
                call_id: "c1".into(),
                name: "weather".into(),
                arguments: "{\"city\":\"Tokyo\"}".into(),
                outcome: Err("no sky".into()),
            },
            Item::FunctionCall {
                call_id: "call_1".into(),
                name: "f".into(),
                arguments: "{}".into(),
            },
            Item::FunctionCallOutput {
                call_id: "call_1".into(),
                output: "done".into(),
            },
            Item::Message {
                role: Role::Assistant,
                text: "ok".into(),
            },
        ];
        for item in items {
            assert_eq!(read(item.to_json(), "x").unwrap(), Some(item));
        }
    }

    #[test]
    fn a_malformed_item_is_a_400_naming_its_field() {
        let user = json!({"role": "user", "content": "x"});
        let fails = |values: Vec<Value>| replayed(values).unwrap_err();
        assert_eq!(
            fails(vec![json!({"type": "web_search_call", "id": "ws_1"})]),
            "input[0].type: expected message, function_call, function_call_output, mcp_call, \
             reasoning or item_reference, got \"web_search_call\""
        );
        assert_eq!(
            fails(vec![
                json!({"role": "user", "content": [{"type": "input_image", "image_url": "x"}]})
            ]),
            "input[0].content[0].type: only text parts are supported, got \"input_image\""
        );
        assert_eq!(
            fails(vec![
                json!({"role": "user", "content": [{"type": "input_text"}]})
            ]),
            "input[0].content[0].text: missing"
        );
        assert_eq!(
            fails(vec![json!({"role": "tool", "content": "x"})]),
            "input[0].role: expected user, system, developer or assistant, got \"tool\""
        );
        assert_eq!(
            fails(vec![json!({"content": "x"})]),
            "input[0].role: missing"
        );
        assert_eq!(
            fails(vec![json!({"role": "user", "content": 3})]),
            "input[0].content: expected a string or an array of content parts"
        );
        assert_eq!(
            fails(vec![json!("hi")]),
            "input[0]: expected an item object, got a string"
        );
        assert_eq!(
            fails(vec![
                user.clone(),
                json!({"type": "function_call", "name": "f"})
            ]),
            "input[1].call_id: missing"
        );
        assert_eq!(
            fails(vec![
                user.clone(),
                json!({"type": "function_call_output", "call_id": "c9", "output": "r"})
            ]),
            "input[1].call_id: \"c9\" answers no function_call before it"
        );
        assert_eq!(
            fails(vec![
                user.clone(),
                json!({"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}),
                user.clone(),
            ]),
            "input[1]: the function call \"c1\" has no function_call_output answering it"
        );
        assert_eq!(
            fails(vec![
                user,
                json!({"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}),
                json!({"type": "function_call", "call_id": "c2", "name": "f", "arguments": "{}"}),
                json!({"type": "function_call_output", "call_id": "c1", "output": "r"}),
            ]),
            "input[2]: the function call \"c2\" has no function_call_output answering it"
        );
    }
}
