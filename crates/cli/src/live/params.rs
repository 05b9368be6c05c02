//! A call's parameters on its ended line: each value cut, the whole cut to
//! what the terminal's width leaves.

use console::{measure_text_width, truncate_str};
use riverse_tool::shorten;
use serde_json::Value;

use super::lines::printable;

/// The most characters of one string value of the parameters shown.
const MAX_VALUE_CHARS: usize = 40;
/// Less room than this shows no parameters at all: a `{"…` says nothing.
const MIN_PARAMS_WIDTH: usize = 8;

/// `params` as compact JSON, each string cut at [`MAX_VALUE_CHARS`], the
/// whole at `width` columns; `None` when less than [`MIN_PARAMS_WIDTH`] is left.
pub fn within(params: &Value, width: usize) -> Option<String> {
    if width < MIN_PARAMS_WIDTH {
        return None;
    }
    let shown = printable(&cut_values(params).to_string());
    Some(truncate_str(&shown, width, "…").into_owned())
}

/// Columns `text` takes on a terminal.
pub fn columns(text: &str) -> usize {
    measure_text_width(text)
}

fn cut_values(value: &Value) -> Value {
    match value {
        Value::String(text) => Value::String(shorten(text, MAX_VALUE_CHARS)),
        Value::Array(items) => Value::Array(items.iter().map(cut_values).collect()),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(name, value)| (name.clone(), cut_values(value)))
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

    #[test]
    fn each_long_value_is_cut_and_the_whole_fits_its_width() {
        let params = json!({"city": "Oslo", "text": "x".repeat(100), "n": 3});
        let cut = format!(r#"{{"city":"Oslo","text":"{}…","n":3}}"#, "x".repeat(40));
        assert_eq!(within(&params, 200).unwrap(), cut);
        let narrow = within(&params, 20).unwrap();
        assert_eq!(narrow, r#"{"city":"Oslo","tex…"#);
        assert_eq!(columns(&narrow), 20);
        assert_eq!(within(&params, 5), None);
    }

    #[test]
    fn wide_characters_count_as_two_columns() {
        let shown = within(&json!({"q": "東京の天気"}), 12).unwrap();
        assert!(columns(&shown) <= 12, "{shown}");
    }
}
