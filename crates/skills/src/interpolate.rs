//! `{var}` in a step's params and prompt, from `variables` and earlier
//! steps' `save_as`.
//!
//! As in Riverse, a placeholder whose variable is not defined stays as it
//! is written (so JSON in a prompt, `{"a": 1}`, is left alone); the names of
//! such variables are returned so that a typo can be reported.

use serde_json::{Map, Value};

use crate::raw::is_variable_name;

/// `template` with each `{name}` of a defined variable replaced: text as it
/// is, any other value as JSON. Returns the text and the undefined names.
pub fn interpolate_text(template: &str, variables: &Map<String, Value>) -> (String, Vec<String>) {
    let mut out = String::with_capacity(template.len());
    let mut missing = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let name = after.find('}').map(|close| &after[..close]);
        match name {
            Some(name) if is_variable_name(name) => {
                match variables.get(name) {
                    Some(value) => out.push_str(&as_text(value)),
                    None => {
                        if !missing.iter().any(|known| known == name) {
                            missing.push(name.to_owned());
                        }
                        out.push('{');
                        out.push_str(name);
                        out.push('}');
                    }
                }
                rest = &after[name.len() + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    (out, missing)
}

/// `value` with every text in it interpolated. A text that is exactly one
/// placeholder takes the variable's value whole, so a number stays a number
/// and an object an object.
pub fn interpolate_value(value: &Value, variables: &Map<String, Value>) -> (Value, Vec<String>) {
    let mut missing = Vec::new();
    let value = walk(value, variables, &mut missing);
    (value, missing)
}

fn walk(value: &Value, variables: &Map<String, Value>, missing: &mut Vec<String>) -> Value {
    match value {
        Value::String(text) => {
            if let Some(whole) = sole_placeholder(text).and_then(|name| variables.get(name)) {
                return whole.clone();
            }
            let (text, absent) = interpolate_text(text, variables);
            for name in absent {
                if !missing.contains(&name) {
                    missing.push(name);
                }
            }
            Value::String(text)
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| walk(item, variables, missing))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, item)| (key.clone(), walk(item, variables, missing)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `name` when `text` is `{name}` and nothing else.
fn sole_placeholder(text: &str) -> Option<&str> {
    let name = text.strip_prefix('{')?.strip_suffix('}')?;
    is_variable_name(name).then_some(name)
}

fn as_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    fn vars(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn text_takes_values_and_keeps_what_it_does_not_know() {
        let variables =
            vars(json!({"city": "東京", "days": 3, "where": {"lat": 35.6, "lon": 139.7}}));
        let (text, missing) = interpolate_text(
            "Weather in {city} for {days} days at {where}; {unknown} stays, {\"a\": 1} too, {} and { city } also",
            &variables,
        );
        assert_eq!(
            text,
            "Weather in 東京 for 3 days at {\"lat\":35.6,\"lon\":139.7}; {unknown} stays, {\"a\": 1} too, {} and { city } also"
        );
        assert_eq!(missing, ["unknown"]);
    }

    #[test]
    fn a_lone_placeholder_keeps_the_value_whole() {
        let variables = vars(json!({"days": 3, "where": {"lat": 35.6}, "city": "Oslo"}));
        let params = json!({"days": "{days}", "where": "{where}", "label": "{city} in {days}d",
                            "list": ["{city}", "{nope}"], "flag": true});
        let (value, missing) = interpolate_value(&params, &variables);
        assert_eq!(
            value,
            json!({"days": 3, "where": {"lat": 35.6}, "label": "Oslo in 3d",
                   "list": ["Oslo", "{nope}"], "flag": true})
        );
        assert_eq!(missing, ["nope"]);
    }

    #[test]
    fn an_unclosed_brace_is_text() {
        let (text, missing) = interpolate_text("a {b", &Map::new());
        assert_eq!(text, "a {b");
        assert!(missing.is_empty());
    }
}
