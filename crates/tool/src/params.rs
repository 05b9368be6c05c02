//! Parameter coercion by `parameter_types`, before a tool runs.
//!
//! Values arrive as strings from the command line and as any JSON from an LLM.
//! Each declared parameter is brought to its declared type, or the call fails
//! with a message naming the parameter and the value. Parameters the manifest
//! does not declare pass through untouched.

use serde_json::{Map, Number, Value};

use crate::manifest::{ParamType, ToolManifest};

/// A call's parameters: a JSON object.
pub type Params = Map<String, Value>;

/// Coerces every declared parameter present in `params` to its declared type.
pub fn coerce_params(manifest: &ToolManifest, params: Params) -> Result<Params, String> {
    params
        .into_iter()
        .map(|(key, value)| {
            if !manifest.parameters.contains_key(&key)
                && !manifest.parameter_types.contains_key(&key)
            {
                return Ok((key, value));
            }
            let wanted = manifest.param_type(&key);
            match coerce(value, wanted) {
                Ok(value) => Ok((key, value)),
                Err(value) => Err(format!(
                    "parameter \"{key}\": expected {}, got {}",
                    describe(wanted),
                    shorten(&value.to_string())
                )),
            }
        })
        .collect()
}

fn describe(wanted: ParamType) -> &'static str {
    match wanted {
        ParamType::String => "a string",
        ParamType::Int => "an integer",
        ParamType::Float => "a number",
        ParamType::Bool => "true or false",
    }
}

fn shorten(text: &str) -> String {
    const MAX: usize = 80;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// Returns the coerced value, or the original one when it cannot be coerced.
fn coerce(value: Value, wanted: ParamType) -> Result<Value, Value> {
    match (wanted, value) {
        (ParamType::String, Value::String(s)) => Ok(Value::String(s)),
        (ParamType::String, Value::Null) => Ok(Value::String(String::new())),
        (ParamType::String, value @ (Value::Number(_) | Value::Bool(_))) => {
            Ok(Value::String(value.to_string()))
        }
        // A structured value for a string parameter is handed over as JSON text.
        (ParamType::String, value) => Ok(Value::String(value.to_string())),

        (ParamType::Int, Value::Number(n)) => int_from_number(&n).ok_or(Value::Number(n)),
        (ParamType::Int, Value::String(s)) => match int_from_text(s.trim()) {
            Some(v) => Ok(v),
            None => Err(Value::String(s)),
        },

        (ParamType::Float, Value::Number(n)) => Ok(Value::Number(n)),
        (ParamType::Float, Value::String(s)) => match s.trim().parse::<f64>() {
            Ok(f) if f.is_finite() => Number::from_f64(f)
                .map(Value::Number)
                .ok_or(Value::String(s)),
            _ => Err(Value::String(s)),
        },

        (ParamType::Bool, Value::Bool(b)) => Ok(Value::Bool(b)),
        (ParamType::Bool, Value::String(s)) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" | "1" => Ok(Value::Bool(true)),
            "false" | "no" | "off" | "0" => Ok(Value::Bool(false)),
            _ => Err(Value::String(s)),
        },
        (ParamType::Bool, Value::Number(n)) => match n.as_i64() {
            Some(0) => Ok(Value::Bool(false)),
            Some(1) => Ok(Value::Bool(true)),
            _ => Err(Value::Number(n)),
        },

        (_, value) => Err(value),
    }
}

fn int_from_number(n: &Number) -> Option<Value> {
    if n.is_i64() || n.is_u64() {
        return Some(Value::Number(n.clone()));
    }
    let f = n.as_f64()?;
    (f.fract() == 0.0 && f.abs() < 9.0e15).then(|| Value::from(f as i64))
}

fn int_from_text(text: &str) -> Option<Value> {
    if let Ok(i) = text.parse::<i64>() {
        return Some(Value::from(i));
    }
    let f: f64 = text.parse().ok()?;
    int_from_number(&Number::from_f64(f)?)
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
            "parameters": {"n": "count", "x": "ratio", "flag": "switch", "s": "text"},
            "parameter_types": {"n": "int", "x": "float", "flag": "bool"}
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
