//! `self.ask` as MCP's elicitation (`elicitation/create`), both ways: a
//! [`Question`] as the request a client answers, and a server's request as
//! the question a Riverse front end answers.

use riverse_tool::{Answer, AnswerAction, Question};
use rmcp::model::{
    ElicitRequestParams, ElicitResult, ElicitationAction, PrimitiveSchemaDefinition,
};
use serde_json::{Map, Value, json};

/// The `elicitation/create` params that ask `question`, or why its schema is
/// not one MCP lets a client be asked (an object of flat properties:
/// strings, numbers, booleans, enums).
pub(crate) fn elicitation(question: Question) -> Result<ElicitRequestParams, String> {
    if let Some(fault) = fault_in(&question.schema) {
        return Err(format!(
            "its schema is not one MCP elicitation can ask: {fault}"
        ));
    }
    let params = json!({
        "mode": "form",
        "message": question.message,
        "requestedSchema": question.schema,
    });
    serde_json::from_value(params)
        .map_err(|err| format!("its schema is not one MCP elicitation can ask: {err}"))
}

/// What in `schema` MCP's elicitation can't take, named: serde's own error
/// for the whole schema names no field.
fn fault_in(schema: &Value) -> Option<String> {
    if schema.get("type") != Some(&json!("object")) {
        return Some("its type is not \"object\"".into());
    }
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return Some("it has no \"properties\" object".into());
    };
    properties.iter().find_map(|(name, property)| {
        let flat = serde_json::from_value::<PrimitiveSchemaDefinition>(property.clone()).is_ok();
        (!flat).then(|| {
            format!(
                "field \"{name}\" is not a string, number, integer, boolean or enum: {property}"
            )
        })
    })
}

/// What the client answered, as the tool reads it. Content that is not an
/// object is no answer at all.
pub(crate) fn answer(result: ElicitResult) -> Answer {
    match result.action {
        ElicitationAction::Accept => match result.content {
            Some(Value::Object(content)) => Answer::accept(content),
            None => Answer::accept(Map::new()),
            Some(_) => Answer::cancel(),
        },
        ElicitationAction::Decline => Answer::decline(),
        _ => Answer::cancel(),
    }
}

/// A server's `elicitation/create` as a question; `None` for URL mode, which
/// Riverse does not declare.
pub(crate) fn question(params: ElicitRequestParams) -> Option<Question> {
    match params {
        ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } => Some(Question {
            message,
            schema: json!(requested_schema),
            approval: None,
        }),
        _ => None,
    }
}

/// An answer as the reply to `elicitation/create`.
pub(crate) fn elicit_result(answer: Answer) -> ElicitResult {
    match answer.action {
        AnswerAction::Accept => {
            ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(answer.content))
        }
        AnswerAction::Decline => ElicitResult::new(ElicitationAction::Decline),
        AnswerAction::Cancel => ElicitResult::new(ElicitationAction::Cancel),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn asked(schema: Value) -> Value {
        let params = elicitation(Question {
            message: "Who are you?".into(),
            schema,
            approval: None,
        })
        .unwrap();
        json!(params)["requestedSchema"].clone()
    }

    /// The schemas of the conformance suite's elicitation scenarios reach the
    /// client as the tool wrote them: defaults, enums of every kind, order.
    #[test]
    fn a_schema_of_every_kind_of_field_is_sent_as_it_is() {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "score": {"type": "number", "default": 95.5},
                "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
                "verified": {"type": "boolean", "default": true},
                "titledSingle": {"type": "string", "oneOf": [{"const": "value1", "title": "First Option"}]},
                "legacyEnum": {"type": "string", "enum": ["opt1"], "enumNames": ["Option One"]},
                "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1"]}},
                "titledMulti": {"type": "array", "items": {"anyOf": [{"const": "value1", "title": "First Choice"}]}}
            },
            "required": ["name"]
        });
        assert_eq!(asked(schema.clone()), schema);
    }

    #[test]
    fn a_schema_mcp_cannot_ask_says_why() {
        let nested = json!({
            "type": "object",
            "properties": {"address": {"type": "object", "properties": {}}}
        });
        let err = elicitation(Question {
            message: "Where?".into(),
            schema: nested,
            approval: None,
        })
        .unwrap_err();
        assert_eq!(
            err,
            r#"its schema is not one MCP elicitation can ask: field "address" is not a string, number, integer, boolean or enum: {"type":"object","properties":{}}"#
        );
    }

    #[test]
    fn answers_read_back_as_they_were() {
        let content = json!({"name": "Ada"}).as_object().unwrap().clone();
        for answer in [Answer::accept(content), Answer::decline(), Answer::cancel()] {
            assert_eq!(super::answer(elicit_result(answer.clone())), answer);
        }
    }
}
