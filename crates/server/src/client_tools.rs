//! A request's own tools, for `/v1/chat/completions` and `/v1/responses`:
//! each function tool becomes a manifest the model is shown beside the
//! agent's tools (its JSON Schema kept whole for the model, its properties
//! read for the embedded model's routing), and `tool_choice` is read as
//! OpenAI defines it.

use riverse_agent::ToolUse;
use riverse_llm::ToolChoice;
use riverse_tool::{Registry, ToolManifest, is_valid_name};
use serde_json::{Map, Value};

use crate::error::AppError;

/// One function a client offers, wherever its request put it.
#[derive(Debug)]
pub struct ClientFunction {
    /// Where it was, for errors: `tools[2].function`.
    pub field: String,
    pub name: String,
    pub description: Option<String>,
    /// The JSON Schema of its parameters; none takes no parameters.
    pub parameters: Option<Map<String, Value>>,
}

/// The model's choice of tools, as a request wrote it, before it is checked
/// against the tools there are.
#[derive(Debug, Clone, PartialEq)]
pub enum Choice {
    Mode(ToolChoice),
    /// A function named by the request; `field` names where, for errors.
    Named {
        field: String,
        name: String,
    },
}

impl Choice {
    /// `"none"`, `"auto"`, `"required"` (OpenAI's strings; `field` names the
    /// setting at fault otherwise).
    pub fn mode(field: &str, mode: &str) -> Result<Choice, AppError> {
        let choice = match mode {
            "auto" => ToolChoice::Auto,
            "none" => ToolChoice::None,
            "required" => ToolChoice::Required,
            other => {
                return Err(AppError::invalid(
                    field,
                    format!(
                        "expected \"none\", \"auto\", \"required\" or a function, got {other:?}"
                    ),
                ));
            }
        };
        Ok(Choice::Mode(choice))
    }
}

/// The request's tools and choice as a turn takes them. A function named
/// like one of the agent's tools, or like another of the client's, is a 400
/// naming it; so is a choice that names a tool nobody offers.
pub fn tool_use(
    functions: Vec<ClientFunction>,
    choice: Option<Choice>,
    parallel: Option<bool>,
    agent_tools: &Registry,
) -> Result<ToolUse, AppError> {
    let mut client_tools: Vec<ToolManifest> = Vec::with_capacity(functions.len());
    for function in functions {
        let name_field = format!("{}.name", function.field);
        if !is_valid_name(&function.name) {
            return Err(AppError::invalid(
                &name_field,
                format!(
                    "{:?} is not a function name: letters, digits, _ and - only, at most 64",
                    function.name
                ),
            ));
        }
        if agent_tools.get(&function.name).is_some() {
            return Err(AppError::invalid(
                &name_field,
                format!(
                    "{:?} is the name of one of Riverse's own tools (see GET /v1/tools); \
                     give the client's tool another name",
                    function.name
                ),
            ));
        }
        if client_tools.iter().any(|tool| tool.name == function.name) {
            return Err(AppError::invalid(
                &name_field,
                format!("{:?} is offered twice", function.name),
            ));
        }
        client_tools.push(manifest(function));
    }
    let choice = match choice {
        None => ToolChoice::Auto,
        Some(Choice::Mode(mode)) => mode,
        Some(Choice::Named { field, name }) => {
            let offered = agent_tools.get(&name).is_some()
                || client_tools.iter().any(|tool| tool.name == name);
            if !offered {
                return Err(AppError::invalid(
                    &field,
                    format!("{name:?} is neither one of the request's tools nor Riverse's"),
                ));
            }
            ToolChoice::Function(name)
        }
    };
    Ok(ToolUse {
        client_tools,
        choice,
        parallel: parallel.unwrap_or(true),
    })
}

/// The function as a manifest: the schema's properties read as parameters
/// (for routing by the embedded model), the schema itself kept for models
/// that read schemas.
fn manifest(function: ClientFunction) -> ToolManifest {
    let schema = function
        .parameters
        .unwrap_or_else(|| Map::from_iter([("type".to_owned(), Value::from("object"))]));
    let description = function.description.unwrap_or_default();
    ToolManifest {
        input_schema: Some(Value::Object(schema.clone())),
        ..riverse_mcp::manifest_from_schema(&function.name, &description, &schema)
    }
}

/// A function call's arguments as the model's JSON text: clients send
/// OpenAI's string, some an object.
pub fn arguments_text(arguments: Option<Value>) -> String {
    match arguments {
        None | Some(Value::Null) => "{}".to_owned(),
        Some(Value::String(text)) => text,
        Some(other) => other.to_string(),
    }
}
