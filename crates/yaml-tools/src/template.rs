//! `{param}` placeholders, filled in one pass.
//!
//! As in Riverse, a placeholder for a parameter the call did not give is
//! removed. Unlike a chain of string replacements, one pass never reads a
//! value's own text as a placeholder.

use std::borrow::Cow;

use riverse_tool::Params;
use serde_json::Value;

/// A parameter's value as text: a string as it is, anything else as JSON.
pub(crate) fn value_text(value: &Value) -> Cow<'_, str> {
    match value {
        Value::String(text) => Cow::Borrowed(text),
        Value::Null => Cow::Borrowed(""),
        other => Cow::Owned(other.to_string()),
    }
}

/// A template cut at its placeholders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece<'a> {
    Literal(&'a str),
    /// The parameter's name.
    Placeholder(&'a str),
}

/// Cuts `template` into literal text and `{name}` placeholders (a letter or
/// `_`, then letters, digits or `_`); a brace that opens no placeholder is
/// literal text.
pub(crate) fn pieces(template: &str) -> Vec<Piece<'_>> {
    let mut pieces = Vec::new();
    let mut literal_start = 0;
    let mut at = 0;
    while let Some(open) = template[at..].find('{').map(|open| at + open) {
        let after = &template[open + 1..];
        match after.find('}').map(|close| &after[..close]) {
            Some(name) if is_placeholder(name) => {
                if literal_start < open {
                    pieces.push(Piece::Literal(&template[literal_start..open]));
                }
                pieces.push(Piece::Placeholder(name));
                at = open + name.len() + 2;
                literal_start = at;
            }
            _ => at = open + 1,
        }
    }
    if literal_start < template.len() {
        pieces.push(Piece::Literal(&template[literal_start..]));
    }
    pieces
}

/// Replaces every placeholder with `encode` of the parameter's text, or with
/// nothing.
pub(crate) fn fill<E>(template: &str, params: &Params, encode: E) -> Result<String, String>
where
    E: Fn(&str) -> Result<String, String>,
{
    let mut filled = String::with_capacity(template.len());
    for piece in pieces(template) {
        match piece {
            Piece::Literal(text) => filled.push_str(text),
            Piece::Placeholder(name) => {
                if let Some(value) = params.get(name) {
                    filled.push_str(&encode(&value_text(value))?);
                }
            }
        }
    }
    Ok(filled)
}

/// Text as it is.
pub(crate) fn verbatim(text: &str) -> Result<String, String> {
    Ok(text.to_owned())
}

fn is_placeholder(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Fills every string inside a JSON template.
pub(crate) fn fill_json(template: &Value, params: &Params) -> Value {
    match template {
        Value::String(text) => {
            Value::String(fill(text, params, verbatim).unwrap_or_else(|_| text.clone()))
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|item| fill_json(item, params)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| (key.clone(), fill_json(value, params)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn params(value: Value) -> Params {
        let Value::Object(map) = value else { panic!() };
        map
    }

    #[test]
    fn placeholders_are_filled_once_and_missing_ones_removed() {
        let given = params(json!({"a": "{b}", "b": "B", "n": 3}));
        assert_eq!(
            fill(
                "x={a} y={b} n={n} z={missing} {not a placeholder} {}",
                &given,
                verbatim
            ),
            Ok("x={b} y=B n=3 z= {not a placeholder} {}".to_owned())
        );
    }

    #[test]
    fn json_templates_fill_nested_strings_and_keep_other_values() {
        let given = params(json!({"q": "rain \"today\""}));
        assert_eq!(
            fill_json(
                &json!({"query": "{q}", "inputs": {}, "n": 1, "list": ["{q}"]}),
                &given
            ),
            json!({"query": "rain \"today\"", "inputs": {}, "n": 1, "list": ["rain \"today\""]})
        );
    }
}
