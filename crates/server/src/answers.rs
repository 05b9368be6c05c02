//! `POST /v1/riverse/questions/{id}`: the person's answer to a question a
//! running tool asked (see the `questions` module), as
//! `{"action": "accept" | "decline" | "cancel", "content": {...}}`.
//!
//! An accepted answer's `content` must fit the question's schema: every
//! field it names is one the question asks for, of its type (and one of its
//! `enum`), and none it requires is missing; a 400 names the field that
//! doesn't fit, and the question stays open.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use riverse_tool::{Answer, AnswerAction, Question};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::AppState;
use crate::body::{Body, kind_of};
use crate::error::AppError;

#[derive(Debug, Deserialize)]
pub struct AnswerBody {
    action: AnswerAction,
    /// The fields, for `accept`.
    content: Option<Map<String, Value>>,
}

pub async fn answer(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Body(body): Body<AnswerBody>,
) -> Result<Response, AppError> {
    let action = state
        .questions
        .answer(&id, |question| body.into_answer(question))?;
    Ok(Json(json!({"id": id, "object": "question.answer", "action": action})).into_response())
}

impl AnswerBody {
    fn into_answer(self, question: &Question) -> Result<Answer, AppError> {
        match self.action {
            AnswerAction::Accept => {
                let content = self.content.unwrap_or_default();
                check_content(&question.schema, &content)?;
                Ok(Answer::accept(content))
            }
            AnswerAction::Decline => Ok(Answer::decline()),
            AnswerAction::Cancel => Ok(Answer::cancel()),
        }
    }
}

/// Whether `content` fits `schema` (an object of flat properties); the
/// error names the field `content.NAME` that does not.
fn check_content(schema: &Value, content: &Map<String, Value>) -> Result<(), AppError> {
    let field = |name: &str| format!("content.{name}");
    let properties = schema.get("properties").and_then(Value::as_object);
    for (name, value) in content {
        let Some(property) = properties.and_then(|properties| properties.get(name)) else {
            return Err(AppError::invalid(
                &field(name),
                "the question asks for no such field",
            ));
        };
        check_value(property, value).map_err(|why| AppError::invalid(&field(name), why))?;
    }
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str);
    for name in required {
        if !content.contains_key(name) {
            return Err(AppError::invalid(&field(name), "missing"));
        }
    }
    Ok(())
}

/// Whether `value` is of `property`'s type and among its `enum`.
fn check_value(property: &Value, value: &Value) -> Result<(), String> {
    if let Some(choices) = property.get("enum").and_then(Value::as_array)
        && !choices.contains(value)
    {
        let listed: Vec<String> = choices.iter().map(Value::to_string).collect();
        return Err(format!(
            "expected one of {}, got {value}",
            listed.join(", ")
        ));
    }
    let (fits, expected) = match property.get("type").and_then(Value::as_str) {
        Some("string") => (value.is_string(), "a string"),
        Some("boolean") => (value.is_boolean(), "a boolean"),
        Some("number") => (value.is_number(), "a number"),
        Some("integer") => (
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|n| n.fract() == 0.0),
            "an integer",
        ),
        // Flat schemas have no others; anything else is the tool's to read.
        _ => return Ok(()),
    };
    if fits {
        Ok(())
    } else {
        Err(format!("expected {expected}, got {}", kind_of(value)))
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn checked(content: Value) -> Result<(), String> {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "format": {"type": "string", "enum": ["pdf", "html"]},
                "pages": {"type": "integer"},
                "scale": {"type": "number"},
                "overwrite": {"type": "boolean"},
            },
            "required": ["name"],
        });
        let Value::Object(content) = content else {
            panic!("an object");
        };
        check_content(&schema, &content).map_err(|err| err.message)
    }

    #[test]
    fn content_that_fits_the_schema_is_accepted() {
        assert_eq!(checked(json!({"name": "q3"})), Ok(()));
        assert_eq!(
            checked(
                json!({"name": "q3", "format": "pdf", "pages": 3, "scale": 1.5, "overwrite": false})
            ),
            Ok(())
        );
        assert_eq!(checked(json!({"name": "q3", "pages": 3.0})), Ok(()));
    }

    #[test]
    fn content_that_does_not_fit_names_the_field() {
        assert_eq!(checked(json!({})).unwrap_err(), "content.name: missing");
        assert_eq!(
            checked(json!({"name": 3})).unwrap_err(),
            "content.name: expected a string, got a number"
        );
        assert_eq!(
            checked(json!({"name": "q3", "format": "doc"})).unwrap_err(),
            "content.format: expected one of \"pdf\", \"html\", got \"doc\""
        );
        assert_eq!(
            checked(json!({"name": "q3", "pages": 2.5})).unwrap_err(),
            "content.pages: expected an integer, got a number"
        );
        assert_eq!(
            checked(json!({"name": "q3", "overwrite": "yes"})).unwrap_err(),
            "content.overwrite: expected a boolean, got a string"
        );
        assert_eq!(
            checked(json!({"name": "q3", "colour": "red"})).unwrap_err(),
            "content.colour: the question asks for no such field"
        );
    }
}
