//! A `/v1/responses` body, checked: its input items, the client's function
//! tools (the others set aside) and choice of tools, and what the response
//! echoes back.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::items::{self, Item, Placed, Role};
use crate::body::kind_of;
use crate::client_tools::{Choice, ClientFunction};
use crate::completions::MODEL;
use crate::error::AppError;

/// What a client sends. OpenAI's other fields (`temperature`, `top_p`,
/// `reasoning`, `text`, `include`, `max_output_tokens`, `truncation`,
/// `user`, ...) are accepted and ignored.
#[derive(Debug, Deserialize)]
pub struct ResponseBody {
    /// `riverse` when absent or empty.
    model: Option<String>,
    input: Option<Input>,
    instructions: Option<String>,
    tools: Option<Vec<Value>>,
    tool_choice: Option<Value>,
    parallel_tool_calls: Option<bool>,
    previous_response_id: Option<String>,
    store: Option<bool>,
    stream: Option<bool>,
    metadata: Option<Value>,
}

/// A string (one user message) or an array of items.
#[derive(Debug, Deserialize)]
#[serde(untagged, expecting = "expected a string or an array of input items")]
enum Input {
    Text(String),
    Items(Vec<Value>),
}

#[derive(Debug, Deserialize)]
struct FunctionTool {
    name: String,
    description: Option<String>,
    parameters: Option<Map<String, Value>>,
}

/// A request, checked.
#[derive(Debug)]
pub struct ResponseRequest {
    pub model: String,
    /// The system message the conversation opens with; not carried on to
    /// the responses that go on from this one.
    pub instructions: Option<String>,
    /// This request's items; the last is the user's message or the output
    /// of one of the client's calls.
    pub input: Vec<Placed>,
    pub previous_response_id: Option<String>,
    pub functions: Vec<ClientFunction>,
    pub choice: Option<Choice>,
    pub parallel_tool_calls: Option<bool>,
    /// The types of the tools not offered to the model (`web_search`, ...),
    /// in the request's order.
    pub ignored_tools: Vec<String>,
    pub stream: bool,
    pub store: bool,
    /// `tools`, `tool_choice` and `metadata` as the request wrote them.
    pub tools: Value,
    pub tool_choice: Value,
    pub metadata: Value,
}

impl ResponseBody {
    pub fn check(self) -> Result<ResponseRequest, AppError> {
        let Some(input) = self.input else {
            return Err(AppError::invalid("input", "missing"));
        };
        let input = input_items(input)?;
        let mut functions = Vec::new();
        let mut ignored_tools = Vec::new();
        let tools = self.tools.unwrap_or_default();
        for (index, tool) in tools.iter().enumerate() {
            let at = format!("tools[{index}]");
            match tool_type(tool, &at)? {
                "function" => {
                    let function: FunctionTool = items::parse_at(tool.clone(), &at)?;
                    functions.push(ClientFunction {
                        field: at,
                        name: function.name,
                        description: function.description,
                        parameters: function.parameters,
                    });
                }
                other => {
                    tracing::debug!("{at}: {other:?} tools are not offered to the model; ignored");
                    ignored_tools.push(other.to_owned());
                }
            }
        }
        let choice = self.tool_choice.as_ref().map(choice).transpose()?;
        Ok(ResponseRequest {
            model: self
                .model
                .filter(|model| !model.is_empty())
                .unwrap_or_else(|| MODEL.to_owned()),
            instructions: self.instructions,
            input,
            previous_response_id: self.previous_response_id,
            functions,
            choice,
            parallel_tool_calls: self.parallel_tool_calls,
            ignored_tools,
            stream: self.stream.unwrap_or(false),
            store: self.store.unwrap_or(true),
            tools: Value::Array(tools),
            tool_choice: self.tool_choice.unwrap_or_else(|| json!("auto")),
            metadata: self.metadata.unwrap_or_else(|| json!({})),
        })
    }
}

/// The request's items, read; a request must end with the user's message
/// or the output of one of the client's calls.
fn input_items(input: Input) -> Result<Vec<Placed>, AppError> {
    let values = match input {
        Input::Text(text) => {
            return Ok(vec![Placed {
                at: "input".to_owned(),
                item: Item::Message {
                    role: Role::User,
                    text,
                },
            }]);
        }
        Input::Items(values) => values,
    };
    let mut placed = Vec::with_capacity(values.len());
    for (index, value) in values.into_iter().enumerate() {
        let at = format!("input[{index}]");
        if let Some(item) = items::read(value, &at)? {
            placed.push(Placed { at, item });
        }
    }
    match placed.last() {
        None => Err(AppError::invalid("input", "must not be empty")),
        Some(Placed {
            item:
                Item::Message {
                    role: Role::User, ..
                }
                | Item::FunctionCallOutput { .. },
            ..
        }) => Ok(placed),
        Some(last) => Err(AppError::invalid(
            &last.at,
            "the last item must be a user message or a function_call_output",
        )),
    }
}

fn tool_type<'a>(tool: &'a Value, at: &str) -> Result<&'a str, AppError> {
    let Value::Object(fields) = tool else {
        return Err(AppError::invalid(
            at,
            format!("expected a tool object, got {}", kind_of(tool)),
        ));
    };
    match fields.get("type") {
        Some(Value::String(kind)) => Ok(kind),
        None => Err(AppError::invalid(&format!("{at}.type"), "missing")),
        Some(other) => Err(AppError::invalid(
            &format!("{at}.type"),
            format!("expected a string, got {}", kind_of(other)),
        )),
    }
}

/// `tool_choice`: `"none"`, `"auto"`, `"required"`, or
/// `{"type": "function", "name"}`.
fn choice(value: &Value) -> Result<Choice, AppError> {
    match value {
        Value::String(mode) => Choice::mode("tool_choice", mode),
        Value::Object(fields) => match fields.get("type").and_then(Value::as_str) {
            Some("function") => match fields.get("name") {
                Some(Value::String(name)) => Ok(Choice::Named {
                    field: "tool_choice.name".to_owned(),
                    name: name.clone(),
                }),
                _ => Err(AppError::invalid("tool_choice.name", "missing")),
            },
            other => Err(AppError::invalid(
                "tool_choice.type",
                format!(
                    "only a function may be named, got {}",
                    other.map_or_else(|| "none".to_owned(), |kind| format!("{kind:?}"))
                ),
            )),
        },
        other => Err(AppError::invalid(
            "tool_choice",
            format!(
                "expected \"none\", \"auto\", \"required\" or {{\"type\": \"function\", \"name\": ...}}, got {}",
                kind_of(other)
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn parsed(body: Value) -> Result<ResponseRequest, String> {
        crate::body::parse(body)
            .and_then(ResponseBody::check)
            .map_err(|err| err.message)
    }

    #[test]
    fn a_string_input_is_one_user_message_and_defaults_fill_the_rest() {
        let request =
            parsed(json!({"input": "hi", "temperature": 0.2, "reasoning": {"effort": "low"}}))
                .unwrap();
        assert_eq!(request.model, "riverse");
        assert_eq!(
            request.input,
            vec![Placed {
                at: "input".into(),
                item: Item::Message {
                    role: Role::User,
                    text: "hi".into()
                }
            }]
        );
        assert!(request.store && !request.stream);
        assert_eq!(
            (request.tools, request.tool_choice, request.metadata),
            (json!([]), json!("auto"), json!({}))
        );
    }

    #[test]
    fn function_tools_are_the_clients_and_other_kinds_are_set_aside() {
        let request = parsed(json!({
            "model": "gpt-4.1",
            "input": "pack for Tokyo",
            "tools": [
                {"type": "web_search"},
                {"type": "function", "name": "packing_list", "description": "What to pack",
                 "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}, "strict": true},
                {"type": "local_shell"}
            ],
            "tool_choice": {"type": "function", "name": "packing_list"},
            "parallel_tool_calls": false,
            "store": false,
            "stream": true,
            "metadata": {"trip": "tokyo"}
        }))
        .unwrap();
        assert_eq!(request.functions.len(), 1);
        assert_eq!(request.functions[0].field, "tools[1]");
        assert_eq!(request.functions[0].name, "packing_list");
        assert_eq!(request.ignored_tools, vec!["web_search", "local_shell"]);
        assert_eq!(
            request.choice,
            Some(Choice::Named {
                field: "tool_choice.name".into(),
                name: "packing_list".into()
            })
        );
        assert_eq!(request.parallel_tool_calls, Some(false));
        assert!(!request.store && request.stream);
        assert_eq!(request.metadata, json!({"trip": "tokyo"}));
        assert_eq!(request.tools.as_array().unwrap().len(), 3);
    }

    #[test]
    fn a_malformed_request_names_the_field() {
        assert_eq!(parsed(json!({})).unwrap_err(), "input: missing");
        assert_eq!(
            parsed(json!({"input": 3})).unwrap_err(),
            "input: expected a string or an array of input items"
        );
        assert_eq!(
            parsed(json!({"input": []})).unwrap_err(),
            "input: must not be empty"
        );
        assert_eq!(
            parsed(json!({"input": [{"role": "user", "content": "x"},
                                    {"role": "assistant", "content": "y"}]}))
            .unwrap_err(),
            "input[1]: the last item must be a user message or a function_call_output"
        );
        assert_eq!(
            parsed(json!({"input": "x", "tools": [{"type": "function", "description": "d"}]}))
                .unwrap_err(),
            "tools[0].name: missing"
        );
        assert_eq!(
            parsed(json!({"input": "x", "tools": [{"name": "f"}]})).unwrap_err(),
            "tools[0].type: missing"
        );
        assert_eq!(
            parsed(json!({"input": "x", "tools": ["f"]})).unwrap_err(),
            "tools[0]: expected a tool object, got a string"
        );
        assert_eq!(
            parsed(json!({"input": "x", "tool_choice": "always"})).unwrap_err(),
            "tool_choice: expected \"none\", \"auto\", \"required\" or a function, got \"always\""
        );
        assert_eq!(
            parsed(json!({"input": "x", "tool_choice": {"type": "file_search"}})).unwrap_err(),
            "tool_choice.type: only a function may be named, got \"file_search\""
        );
        assert_eq!(
            parsed(json!({"input": "x", "tool_choice": {"type": "function"}})).unwrap_err(),
            "tool_choice.name: missing"
        );
        assert_eq!(
            parsed(json!({"input": "x", "stream": "yes"})).unwrap_err(),
            "stream: invalid type: string \"yes\", expected a boolean"
        );
    }
}
