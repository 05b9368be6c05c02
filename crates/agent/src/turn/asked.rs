//! A call the model asked for, its arguments read once: native routing reads
//! the text the model wrote, the dispatcher hands over the object it parsed
//! from its reply.

use riverse_llm::ToolCall;
use riverse_tool::Params;
use serde_json::Value;

use super::client::RoundCall;

/// A call the model asked for, not yet run.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AskedCall {
    /// The model's id for the call.
    pub id: String,
    pub tool: String,
    pub arguments: Arguments,
}

/// A call's arguments: an object, or the model's text when it was not one.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Arguments {
    Object(Params),
    /// Text that does not read as a JSON object, and why.
    Unreadable {
        text: String,
        reason: String,
    },
}

impl AskedCall {
    /// A native function call, its argument text read.
    pub(crate) fn read(call: &ToolCall) -> Self {
        AskedCall {
            id: call.id.clone(),
            tool: call.name.clone(),
            arguments: Arguments::read(&call.arguments),
        }
    }
}

impl RoundCall for AskedCall {
    fn tool(&self) -> &str {
        &self.tool
    }

    /// The call as a model's function call, its arguments written as text.
    fn into_tool_call(self) -> ToolCall {
        ToolCall {
            arguments: self.arguments.text(),
            id: self.id,
            name: self.tool,
        }
    }
}

impl Arguments {
    /// The model's argument text as an object. Empty text means no arguments.
    pub(crate) fn read(text: &str) -> Self {
        if text.trim().is_empty() {
            return Arguments::Object(Params::new());
        }
        let reason = match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(params)) => return Arguments::Object(params),
            Ok(Value::Null) => return Arguments::Object(Params::new()),
            Ok(other) => format!("the arguments must be a JSON object, got {other}"),
            Err(err) => format!("the arguments are not valid JSON ({err}): {text}"),
        };
        Arguments::Unreadable {
            text: text.to_owned(),
            reason,
        }
    }

    /// As records keep them: the object, or the model's text.
    pub(crate) fn recorded(&self) -> riverse_tool::Arguments {
        match self {
            Arguments::Object(params) => riverse_tool::Arguments::Object(params.clone()),
            Arguments::Unreadable { text, .. } => riverse_tool::Arguments::Text(text.clone()),
        }
    }

    /// As a model writes them: the object as JSON, or the model's own text.
    pub(crate) fn text(&self) -> String {
        match self {
            Arguments::Object(params) => Value::Object(params.clone()).to_string(),
            Arguments::Unreadable { text, .. } => text.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn read(text: &str) -> Result<Value, String> {
        match Arguments::read(text) {
            Arguments::Object(params) => Ok(Value::Object(params)),
            Arguments::Unreadable { reason, .. } => Err(reason),
        }
    }

    #[test]
    fn arguments_must_be_a_json_object() {
        assert_eq!(read("").unwrap(), json!({}));
        assert_eq!(read("null").unwrap(), json!({}));
        assert_eq!(read(r#"{"a": 1}"#).unwrap(), json!({"a": 1}));
        assert_eq!(
            read("[1]").unwrap_err(),
            "the arguments must be a JSON object, got [1]"
        );
        assert!(
            read("{city: Tokyo")
                .unwrap_err()
                .starts_with("the arguments are not valid JSON")
        );
    }

    #[test]
    fn unreadable_arguments_are_kept_as_the_model_wrote_them() {
        let arguments = Arguments::read("{city: Tokyo");
        assert_eq!(json!(arguments.recorded()), json!("{city: Tokyo"));
        assert_eq!(arguments.text(), "{city: Tokyo");
        let object = Arguments::read(r#"{"city": "Tokyo"}"#);
        assert_eq!(object.text(), r#"{"city":"Tokyo"}"#);
    }
}
