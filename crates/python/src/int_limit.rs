//! CPython's limit on the digits of an integer it reads from text.
//!
//! serde_json keeps an integer's digits whatever their number
//! (`arbitrary_precision`), but a worker's JSON decoder refuses an integer of
//! more than 4300 digits (`sys.get_int_max_str_digits()`). Such an argument is
//! refused here, naming its parameter, before it reaches a worker (issue 41,
//! finding 6); a worker that still can't read a request answers it with an
//! error and serves on.

use riverse_tool::Params;
use serde_json::Value;

/// The most digits CPython reads as an integer by default
/// (`sys.int_info.default_max_str_digits`).
pub(crate) const MAX_INT_DIGITS: usize = 4300;

/// Why `arguments` can't reach a worker: the first parameter holding, at any
/// depth, an integer longer than [`MAX_INT_DIGITS`].
pub(crate) fn unreadable_integer(arguments: &Params) -> Option<String> {
    arguments.iter().find_map(|(name, value)| {
        longest_integer(value)
            .filter(|digits| *digits > MAX_INT_DIGITS)
            .map(|digits| {
                format!(
                    "parameter \"{name}\": an integer of {digits} digits, more than the {MAX_INT_DIGITS} Python reads"
                )
            })
    })
}

/// The digits of the longest integer literal in `value`.
fn longest_integer(value: &Value) -> Option<usize> {
    match value {
        Value::Number(number) => {
            let text = number.as_str();
            let digits = text.strip_prefix('-').unwrap_or(text);
            digits
                .bytes()
                .all(|byte| byte.is_ascii_digit())
                .then_some(digits.len())
        }
        Value::Array(items) => items.iter().filter_map(longest_integer).max(),
        Value::Object(members) => members.values().filter_map(longest_integer).max(),
        Value::Null | Value::Bool(_) | Value::String(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn params(text: &str) -> Params {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn an_integer_past_the_limit_is_named_by_its_parameter() {
        let long = "7".repeat(MAX_INT_DIGITS + 1);
        let nested = params(&format!(r#"{{"ok": 1, "deep": {{"list": [2, -{long}]}}}}"#));
        assert_eq!(
            unreadable_integer(&nested).as_deref(),
            Some("parameter \"deep\": an integer of 4301 digits, more than the 4300 Python reads")
        );
    }

    #[test]
    fn integers_up_to_the_limit_and_long_floats_pass() {
        let at_limit = "9".repeat(MAX_INT_DIGITS);
        let float = format!("1.{}", "5".repeat(MAX_INT_DIGITS * 2));
        let arguments = params(&format!(
            r#"{{"n": -{at_limit}, "x": {float}, "e": 1e999}}"#
        ));
        assert_eq!(unreadable_integer(&arguments), None);
        let plain: Params = json!({"s": "1".repeat(10_000)})
            .as_object()
            .unwrap()
            .clone();
        assert_eq!(unreadable_integer(&plain), None);
    }
}
