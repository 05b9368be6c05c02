//! Parameter coercion by `parameter_types`, before a tool runs.
//!
//! Values arrive as strings from the command line and as any JSON from an LLM.
//! Each declared parameter is brought to its declared type, or the call fails
//! with a message naming the parameter and the value. A parameter's type is
//! its `parameter_types` entry, else the one its manifest's `input_schema`
//! gives the property (one type name), else a string. Parameters declared as
//! a union or with a type name Riverse doesn't know pass through untouched,
//! and so do those the manifest does not declare, except text given for a
//! property its `input_schema` types as a number, boolean, array or object:
//! the command line gives only text, and it is read as that type when it can
//! be (what it can't be read as is left for the schema to judge).

use serde_json::{Map, Number, Value};

use crate::manifest::ToolManifest;
use crate::text::shorten;
use crate::types::Kind;

/// A call's parameters: a JSON object.
pub type Params = Map<String, Value>;

/// Coerces every declared parameter present in `params` to its declared type.
pub fn coerce_params(manifest: &ToolManifest, params: Params) -> Result<Params, String> {
    params
        .into_iter()
        .map(|(key, value)| {
            let declared = manifest.parameters.contains_key(&key);
            let wanted = match manifest.parameter_types.get(&key) {
                Some(declared) => match declared.conversion() {
                    Some(kind) => kind,
                    None => return Ok((key, value)),
                },
                None => match schema_kind(manifest, &key) {
                    Some(kind) if declared => kind,
                    Some(kind) => return Ok((key, read_from_text(value, kind))),
                    None if declared => Kind::String,
                    None => return Ok((key, value)),
                },
            };
            match coerce(value, wanted) {
                Ok(value) => Ok((key, value)),
                Err(value) => Err(format!(
                    "parameter \"{key}\": expected {}, got {}",
                    describe(wanted),
                    shorten(&value.to_string(), MAX_QUOTED_CHARS)
                )),
            }
        })
        .collect()
}

/// The kind the input schema gives property `key`, when it names one type.
fn schema_kind(manifest: &ToolManifest, key: &str) -> Option<Kind> {
    let schema = manifest.input_schema.as_ref()?;
    let name = schema.get("properties")?.get(key)?.get("type")?.as_str()?;
    Kind::from_name(name)
}

/// Text read as `kind` when it is not a string and the text reads as one;
/// any other value as it is.
fn read_from_text(value: Value, kind: Kind) -> Value {
    if kind == Kind::String || !value.is_string() {
        return value;
    }
    coerce(value, kind).unwrap_or_else(|text| text)
}

fn describe(wanted: Kind) -> &'static str {
    match wanted {
        Kind::String => "a string",
        Kind::Int => "an integer",
        Kind::Float => "a number",
        Kind::Bool => "true or false",
        Kind::List => "a list",
        Kind::Object => "an object",
    }
}

/// How much of a rejected value a message quotes.
const MAX_QUOTED_CHARS: usize = 80;

/// Returns the coerced value, or the original one when it cannot be coerced.
fn coerce(value: Value, wanted: Kind) -> Result<Value, Value> {
    match (wanted, value) {
        (Kind::String, Value::String(s)) => Ok(Value::String(s)),
        (Kind::String, Value::Null) => Ok(Value::String(String::new())),
        (Kind::String, value @ (Value::Number(_) | Value::Bool(_))) => {
            Ok(Value::String(value.to_string()))
        }
        // A structured value for a string parameter is handed over as JSON text.
        (Kind::String, value) => Ok(Value::String(value.to_string())),

        (Kind::Int, Value::Number(n)) => int_from_number(&n).ok_or(Value::Number(n)),
        (Kind::Int, Value::String(s)) => match int_from_text(s.trim()) {
            Some(v) => Ok(v),
            None => Err(Value::String(s)),
        },

        (Kind::Float, Value::Number(n)) => Ok(Value::Number(n)),
        (Kind::Float, Value::String(s)) => match s.trim().parse::<f64>() {
            Ok(f) if f.is_finite() => Number::from_f64(f)
                .map(Value::Number)
                .ok_or(Value::String(s)),
            _ => Err(Value::String(s)),
        },

        (Kind::Bool, Value::Bool(b)) => Ok(Value::Bool(b)),
        (Kind::Bool, Value::String(s)) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" | "1" => Ok(Value::Bool(true)),
            "false" | "no" | "off" | "0" => Ok(Value::Bool(false)),
            _ => Err(Value::String(s)),
        },
        (Kind::Bool, Value::Number(n)) => match n.as_i64() {
            Some(0) => Ok(Value::Bool(false)),
            Some(1) => Ok(Value::Bool(true)),
            _ => Err(Value::Number(n)),
        },

        (Kind::List, value @ Value::Array(_)) => Ok(value),
        (Kind::Object, value @ Value::Object(_)) => Ok(value),
        // From the command line a list or object arrives as its JSON text.
        (Kind::List | Kind::Object, Value::String(s)) => match serde_json::from_str(&s) {
            Ok(parsed @ Value::Array(_)) if wanted == Kind::List => Ok(parsed),
            Ok(parsed @ Value::Object(_)) if wanted == Kind::Object => Ok(parsed),
            _ => Err(Value::String(s)),
        },

        (_, value) => Err(value),
    }
}

fn int_from_number(n: &Number) -> Option<Value> {
    // Past 64 bits an integer is still exact: serde_json keeps its digits
    // (`arbitrary_precision`), and Python reads them as an int.
    if n.is_i64() || n.is_u64() || is_integer_literal(&n.to_string()) {
        return Some(Value::Number(n.clone()));
    }
    let f = n.as_f64()?;
    (f.fract() == 0.0 && f.abs() < 9.0e15).then(|| Value::from(f as i64))
}

fn int_from_text(text: &str) -> Option<Value> {
    if let Ok(i) = text.parse::<i64>() {
        return Some(Value::from(i));
    }
    if is_integer_literal(text)
        && let Ok(n) = serde_json::from_str::<Number>(text)
    {
        return Some(Value::Number(n));
    }
    let f: f64 = text.parse().ok()?;
    int_from_number(&Number::from_f64(f)?)
}

/// `-12`, `340282366920938463463374607431768211456`: digits, perhaps a minus.
fn is_integer_literal(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|byte| byte.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn manifest() -> ToolManifest {
        serde_json::from_value(json!({
            "name": "t",
            "description": "d",
            "parameters": {"n": "count", "x": "ratio", "flag": "switch", "s": "text",
                           "items": "list", "opts": "options", "any": "anything", "when": "time"},
            "parameter_types": {"n": "int", "x": "float", "flag": "bool", "items": "list",
                                "opts": "dict", "any": "bool|int|float|string", "when": "datetime"}
        }))
        .unwrap()
    }

    fn coerced(params: Value) -> Result<Value, String> {
        let Value::Object(params) = params else {
            panic!()
        };
        coerce_params(&manifest(), params).map(Value::Object)
    }

    #[test]
    fn strings_become_their_declared_types() {
        assert_eq!(
            coerced(json!({"n": "3", "x": "2.5", "flag": "true", "s": "hi"})),
            Ok(json!({"n": 3, "x": 2.5, "flag": true, "s": "hi"}))
        );
        assert_eq!(
            coerced(json!({"n": " 4.0 ", "flag": "False"})),
            Ok(json!({"n": 4, "flag": false}))
        );
    }

    #[test]
    fn json_values_are_kept_or_converted() {
        assert_eq!(
            coerced(json!({"n": 7, "x": 1, "flag": false, "s": 42, "extra": [1]})),
            Ok(json!({"n": 7, "x": 1, "flag": false, "s": "42", "extra": [1]}))
        );
    }

    /// Issue 13: integers past 64 bits stay exact, as JSON or as text.
    #[test]
    fn integers_past_64_bits_stay_exact() {
        let big = "123456789012345678901234567890";
        let value: Value = serde_json::from_str(&format!(r#"{{"n": {big}, "s": {big}}}"#)).unwrap();
        let coerced = coerced(value).unwrap();
        assert_eq!(coerced.to_string(), format!(r#"{{"n":{big},"s":"{big}"}}"#));
        let from_text = self::coerced(json!({"n": format!("-{big}")})).unwrap();
        assert_eq!(from_text.to_string(), format!(r#"{{"n":-{big}}}"#));
    }

    #[test]
    fn lists_and_objects_are_taken_as_json_or_as_their_json_text() {
        assert_eq!(
            coerced(json!({"items": "[1, 2]", "opts": {"a": 1}})),
            Ok(json!({"items": [1, 2], "opts": {"a": 1}}))
        );
        assert_eq!(
            coerced(json!({"items": "a, b"})),
            Err("parameter \"items\": expected a list, got \"a, b\"".to_owned())
        );
        assert_eq!(
            coerced(json!({"opts": "[1]"})),
            Err("parameter \"opts\": expected an object, got \"[1]\"".to_owned())
        );
    }

    #[test]
    fn unions_and_unknown_types_pass_through_unconverted() {
        assert_eq!(
            coerced(json!({"any": "3", "when": {"h": 1}})),
            Ok(json!({"any": "3", "when": {"h": 1}}))
        );
        assert_eq!(coerced(json!({"any": 3})), Ok(json!({"any": 3})));
    }

    #[test]
    fn text_for_a_property_the_input_schema_types_is_read_as_that_type() {
        let manifest: ToolManifest = serde_json::from_value(json!({
            "name": "t", "description": "d",
            "input_schema": {"type": "object", "properties": {
                "days": {"type": "integer"}, "loud": {"type": "boolean"},
                "tags": {"type": "array"}, "city": {"type": "string"},
                "when": {"$ref": "#/$defs/when"}
            }}
        }))
        .unwrap();
        let given = json!({"days": "3", "loud": "yes", "tags": "[\"a\"]", "city": "7",
                           "when": "noon", "other": "1"});
        let Value::Object(given) = given else {
            panic!()
        };
        assert_eq!(
            coerce_params(&manifest, given).map(Value::Object),
            Ok(json!({"days": 3, "loud": true, "tags": ["a"], "city": "7",
                      "when": "noon", "other": "1"}))
        );
        // What is not text, or can't be read, is left for the schema to judge.
        let given = json!({"days": 2.5, "loud": "maybe"});
        let Value::Object(given) = given else {
            panic!()
        };
        assert_eq!(
            coerce_params(&manifest, given).map(Value::Object),
            Ok(json!({"days": 2.5, "loud": "maybe"}))
        );
    }

    #[test]
    fn a_described_parameter_takes_its_type_from_the_input_schema() {
        let manifest: ToolManifest = serde_json::from_value(json!({
            "name": "t", "description": "d",
            "parameters": {"quantity": "how many", "note": "a note", "tags": "labels"},
            "input_schema": {"type": "object", "properties": {
                "quantity": {"type": "integer"}, "tags": {"type": "array"}
            }}
        }))
        .unwrap();
        let given = json!({"quantity": 2, "note": 7, "tags": ["a"]});
        let Value::Object(given) = given else {
            panic!()
        };
        assert_eq!(
            coerce_params(&manifest, given).map(Value::Object),
            Ok(json!({"quantity": 2, "note": "7", "tags": ["a"]}))
        );
        let given = json!({"quantity": "many"});
        let Value::Object(given) = given else {
            panic!()
        };
        assert_eq!(
            coerce_params(&manifest, given),
            Err("parameter \"quantity\": expected an integer, got \"many\"".to_owned())
        );
    }

    #[test]
    fn a_value_that_cannot_be_coerced_names_the_parameter() {
        assert_eq!(
            coerced(json!({"n": "three"})),
            Err("parameter \"n\": expected an integer, got \"three\"".to_owned())
        );
        assert_eq!(
            coerced(json!({"n": 2.5})),
            Err("parameter \"n\": expected an integer, got 2.5".to_owned())
        );
        assert_eq!(
            coerced(json!({"flag": "maybe"})),
            Err("parameter \"flag\": expected true or false, got \"maybe\"".to_owned())
        );
        assert_eq!(
            coerced(json!({"x": "NaN"})),
            Err("parameter \"x\": expected a number, got \"NaN\"".to_owned())
        );
    }
}
