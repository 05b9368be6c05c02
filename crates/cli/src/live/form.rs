//! A tool's question as a form to fill in on a terminal: its fields from the
//! question's JSON Schema, and how a typed line reads as each one's value.
//!
//! The rules, as a person meets them:
//! - each field is asked by its description (its name when it has none),
//!   with its choices (`enum`) and its default shown: `unit (celsius,
//!   fahrenheit) [celsius]: `; an empty line takes the default;
//! - an empty line for a required field without a default declines the
//!   question; an optional one is left out;
//! - a question that is only a yes/no (no fields, or one field described as
//!   "yes or no", "yes/no" or "y/n") is declined by `n`, `no` or an empty
//!   line, so a tool that checks `answer.accepted` never goes on after a no;
//! - `boolean` fields read `y`/`yes`/`true`, `n`/`no`/`false`; `integer` and
//!   `number` fields read numbers; a value that does not read is asked again.

use riverse_tool::Question;
use serde_json::Value;

use super::lines::printable;

/// One field to fill in.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    /// What the person reads: the description, or the name.
    pub label: String,
    kind: Kind,
    default: Option<Value>,
    required: bool,
}

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    Text,
    Integer,
    Number,
    Boolean,
    Choice(Vec<Value>),
}

/// What a typed line does to the form.
#[derive(Debug, Clone, PartialEq)]
pub enum Reading {
    /// The field's value; `None` leaves an optional field out.
    Value(Option<Value>),
    /// The line does not read as the field's value: why, and ask again.
    Again(String),
    /// The person declined the question.
    Decline,
}

/// The fields of `question`, in the schema's order.
pub fn fields(question: &Question) -> Vec<Field> {
    let required: Vec<&str> = question
        .schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(Value::Object(properties)) = question.schema.get("properties") else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, property)| field(name, property, required.contains(&name.as_str())))
        .collect()
}

fn field(name: &str, property: &Value, required: bool) -> Field {
    let label = ["description", "title"]
        .iter()
        .find_map(|key| property.get(key).and_then(Value::as_str))
        .filter(|label| !label.trim().is_empty())
        .unwrap_or(name);
    let kind = match (
        property.get("enum"),
        property.get("type").and_then(Value::as_str),
    ) {
        (Some(Value::Array(choices)), _) if !choices.is_empty() => Kind::Choice(choices.clone()),
        (_, Some("integer")) => Kind::Integer,
        (_, Some("number")) => Kind::Number,
        (_, Some("boolean")) => Kind::Boolean,
        _ => Kind::Text,
    };
    Field {
        name: name.to_owned(),
        label: label.to_owned(),
        kind,
        default: property.get("default").cloned(),
        required,
    }
}

/// Whether the question only asks yes or no: no fields, or one text field
/// whose description says so.
pub fn is_yes_or_no(fields: &[Field]) -> bool {
    match fields {
        [] => true,
        [field] => field.kind == Kind::Text && reads_as_yes_or_no(&field.label),
        _ => false,
    }
}

fn reads_as_yes_or_no(label: &str) -> bool {
    let label = label.to_lowercase();
    ["yes or no", "yes/no", "y/n"]
        .iter()
        .any(|phrase| label.contains(phrase))
}

impl Field {
    /// The prompt for this field: `    unit (celsius, fahrenheit) [celsius]: `.
    pub fn prompt(&self) -> String {
        let mut prompt = format!("    {}", self.label);
        match &self.kind {
            Kind::Choice(choices) => {
                let choices: Vec<String> = choices.iter().map(shown).collect();
                prompt.push_str(&format!(" ({})", choices.join(", ")));
            }
            Kind::Boolean => prompt.push_str(" (y/n)"),
            Kind::Text | Kind::Integer | Kind::Number => {}
        }
        if let Some(default) = &self.default {
            prompt.push_str(&format!(" [{}]", shown(default)));
        }
        prompt.push_str(": ");
        // Label, choices and default are the tool's (or an MCP server's).
        printable(&prompt)
    }

    /// How `typed` reads for this field; `yes_or_no` when it is the only
    /// field of a yes/no question.
    pub fn read(&self, typed: &str, yes_or_no: bool) -> Reading {
        let typed = typed.trim();
        if typed.is_empty() {
            return match &self.default {
                Some(default) => Reading::Value(Some(default.clone())),
                None if self.required || yes_or_no => Reading::Decline,
                None => Reading::Value(None),
            };
        }
        if yes_or_no {
            return match yes_no(typed) {
                Some(true) => Reading::Value(Some(Value::String(typed.to_owned()))),
                Some(false) => Reading::Decline,
                None => Reading::Again("answer yes or no".into()),
            };
        }
        match &self.kind {
            Kind::Text => Reading::Value(Some(Value::String(typed.to_owned()))),
            Kind::Integer => match typed.parse::<i64>() {
                Ok(number) => Reading::Value(Some(Value::from(number))),
                Err(_) => Reading::Again("a whole number, please".into()),
            },
            Kind::Number => match typed
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
            {
                Some(number) => Reading::Value(Some(Value::Number(number))),
                None => Reading::Again("a number, please".into()),
            },
            Kind::Boolean => match yes_no(typed) {
                Some(answer) => Reading::Value(Some(Value::Bool(answer))),
                None => Reading::Again("answer yes or no".into()),
            },
            Kind::Choice(choices) => choices
                .iter()
                .find(|choice| shown(choice).eq_ignore_ascii_case(typed))
                .map(|choice| Reading::Value(Some(choice.clone())))
                .unwrap_or_else(|| {
                    let choices: Vec<String> = choices.iter().map(shown).collect();
                    Reading::Again(printable(&format!("one of {}, please", choices.join(", "))))
                }),
        }
    }
}

/// The prompt of a question without fields: a confirmation, declined unless
/// the person says yes.
pub const CONFIRM_PROMPT: &str = "    (y/N): ";

/// How a typed line answers a question without fields: accepted by a yes,
/// declined by anything else but nonsense.
pub fn read_confirmation(typed: &str) -> Reading {
    match typed.trim() {
        "" => Reading::Decline,
        typed => match yes_no(typed) {
            Some(true) => Reading::Value(None),
            Some(false) => Reading::Decline,
            None => Reading::Again("answer yes or no".into()),
        },
    }
}

fn yes_no(typed: &str) -> Option<bool> {
    match typed.to_lowercase().as_str() {
        "y" | "yes" | "true" => Some(true),
        "n" | "no" | "false" => Some(false),
        _ => None,
    }
}

/// A value as a person reads it: a string without its quotes.
fn shown(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::{Map, json};

    fn question(schema: Value) -> Question {
        Question {
            message: "?".into(),
            schema,
            approval: None,
        }
    }

    /// What `self.ask(message, {"city": "the city to look up"})` sends.
    fn from_fields(fields: &[(&str, &str)]) -> Vec<Field> {
        let properties: Map<String, Value> = fields
            .iter()
            .map(|(name, text)| {
                (
                    (*name).to_owned(),
                    json!({"type": "string", "description": text}),
                )
            })
            .collect();
        let required: Vec<&str> = fields.iter().map(|(name, _)| *name).collect();
        super::fields(&question(
            json!({"type": "object", "properties": properties, "required": required}),
        ))
    }

    #[test]
    fn a_field_is_asked_by_its_description_with_choices_and_default() {
        let fields = fields(&question(json!({
            "type": "object",
            "properties": {
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius",
                         "description": "unit"},
                "days": {"type": "integer", "title": "how many days"},
                "alerts": {"type": "boolean"}
            }
        })));
        let prompts: Vec<String> = fields.iter().map(Field::prompt).collect();
        assert_eq!(
            prompts,
            [
                "    unit (celsius, fahrenheit) [celsius]: ",
                "    how many days: ",
                "    alerts (y/n): "
            ]
        );
        assert_eq!(
            fields[0].read("", false),
            Reading::Value(Some(json!("celsius")))
        );
        assert_eq!(
            fields[0].read("Fahrenheit", false),
            Reading::Value(Some(json!("fahrenheit")))
        );
        assert_eq!(
            fields[0].read("kelvin", false),
            Reading::Again("one of celsius, fahrenheit, please".into())
        );
        assert_eq!(fields[1].read("3", false), Reading::Value(Some(json!(3))));
        assert_eq!(
            fields[1].read("three", false),
            Reading::Again("a whole number, please".into())
        );
        assert_eq!(
            fields[1].read("", false),
            Reading::Value(None),
            "optional: left out"
        );
        assert_eq!(
            fields[2].read("no", false),
            Reading::Value(Some(json!(false)))
        );
    }

    #[test]
    fn an_empty_required_field_declines() {
        let fields = from_fields(&[("city", "the city to look up")]);
        assert!(!is_yes_or_no(&fields));
        assert_eq!(fields[0].prompt(), "    the city to look up: ");
        assert_eq!(
            fields[0].read("  Paris ", false),
            Reading::Value(Some(json!("Paris")))
        );
        assert_eq!(fields[0].read("", false), Reading::Decline);
    }

    #[test]
    fn no_to_a_yes_or_no_question_declines() {
        let fields = from_fields(&[("overwrite", "yes or no")]);
        assert!(is_yes_or_no(&fields));
        assert_eq!(fields[0].read("no", true), Reading::Decline);
        assert_eq!(fields[0].read("", true), Reading::Decline);
        assert_eq!(
            fields[0].read("yes", true),
            Reading::Value(Some(json!("yes")))
        );
        assert_eq!(
            fields[0].read("maybe", true),
            Reading::Again("answer yes or no".into())
        );
        assert!(!is_yes_or_no(&from_fields(&[
            ("a", "yes or no"),
            ("b", "why")
        ])));
    }

    #[test]
    fn a_question_without_fields_is_a_confirmation() {
        assert!(is_yes_or_no(&[]));
        assert_eq!(read_confirmation("y"), Reading::Value(None));
        assert_eq!(read_confirmation(""), Reading::Decline);
        assert_eq!(read_confirmation("n"), Reading::Decline);
    }
}
