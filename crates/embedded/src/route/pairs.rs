//! Parameters that come in pairs, filled as the pair the message writes:
//! a range's two ends ("born between 1850 and 1880": `born_after` 1850,
//! `born_before` 1880) and a name's two parts (李秀英, written family name
//! first: `last_name` 李, `first_name` 秀英). Each value alone may be read
//! well and still land on the wrong side of its pair.

use riverse_route::{MessageSpans, script::is_cjk};
use riverse_tool::{ParamType, ToolManifest};
use serde_json::Value;

/// Words of a parameter's name that make it the lower end of a range.
const LOWER_ENDS: [&str; 10] = [
    "min", "minimum", "from", "after", "start", "low", "lowest", "earliest", "since", "above",
];

/// Words of a parameter's name that make it the upper end of a range.
const UPPER_ENDS: [&str; 10] = [
    "max", "maximum", "to", "before", "end", "high", "highest", "latest", "until", "below",
];

/// `values` with a range the message writes ("between 1850 and 1880",
/// "from 20 to 35", "20-35") given to the tool's two number parameters of
/// one range, the smaller number to the lower end.
pub(crate) fn with_written_range(
    tool: &ToolManifest,
    spans: &MessageSpans<'_>,
    values: &mut [Option<Value>],
) {
    let Some((lower, upper)) = range_params(tool) else {
        return;
    };
    let message = spans.text;
    let written = spans.numbers.windows(2).find_map(|pair| {
        let between = message[pair[0].bytes.end..pair[1].bytes.start].trim();
        let before = message[..pair[0].bytes.start].trim_end().to_lowercase();
        let joined = match between.to_lowercase().as_str() {
            "and" => before.ends_with("between"),
            "to" | "-" | "–" | "~" | "〜" | "～" | "至" | "到" => true,
            _ => false,
        };
        let (low, high) = (
            pair[0].text.parse::<f64>().ok()?,
            pair[1].text.parse::<f64>().ok()?,
        );
        (joined && low < high).then_some((low, high))
    });
    let Some((low, high)) = written else {
        return;
    };
    for (index, number) in [(lower, low), (upper, high)] {
        let name = tool.parameters.keys().nth(index).map_or("", String::as_str);
        values[index] = match tool.param_type(name) {
            ParamType::Int if number.fract() == 0.0 => Some(Value::from(number as i64)),
            ParamType::Float => serde_json::Number::from_f64(number).map(Value::Number),
            _ => continue,
        };
    }
}

/// The indices of the tool's two number parameters that are one range's
/// ends: their names differ only in a word of each end (`born_after`,
/// `born_before`; `min_price`, `max_price`).
fn range_params(tool: &ToolManifest) -> Option<(usize, usize)> {
    let numeric: Vec<(usize, Vec<String>)> = tool
        .parameters
        .keys()
        .enumerate()
        .filter(|(_, name)| matches!(tool.param_type(name), ParamType::Int | ParamType::Float))
        .map(|(index, name)| (index, name_words(name)))
        .collect();
    fn end_of(words: &[String], ends: &[&str]) -> Option<Vec<String>> {
        let rest: Vec<String> = words
            .iter()
            .filter(|word| !ends.contains(&word.as_str()))
            .cloned()
            .collect();
        (rest.len() + 1 == words.len()).then_some(rest)
    }
    numeric.iter().find_map(|(lower, lower_words)| {
        let lower_rest = end_of(lower_words, &LOWER_ENDS)?;
        numeric.iter().find_map(|(upper, upper_words)| {
            let upper_rest = end_of(upper_words, &UPPER_ENDS)?;
            (upper != lower && upper_rest == lower_rest).then_some((*lower, *upper))
        })
    })
}

/// The words of a parameter's name, lowercase.
fn name_words(name: &str) -> Vec<String> {
    name.split(['_', '-', ' '])
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// `values` with a Chinese or Japanese name's two parts in the order it
/// is written: family name first. Where the tool's given-name value comes
/// right before its family-name value in the message (李 then 秀英), the
/// two are swapped.
pub(crate) fn in_written_name_order(
    tool: &ToolManifest,
    message: &str,
    values: &mut [Option<Value>],
) {
    let part = |words: &[&str]| {
        tool.parameters.keys().position(|name| {
            let named = name_words(name);
            named.iter().any(|word| words.contains(&word.as_str()))
                && (named.len() == 1 || named.iter().any(|word| word == "name"))
        })
    };
    let (Some(given), Some(family)) = (
        part(&["first", "given", "forename"]),
        part(&["last", "family", "surname"]),
    ) else {
        return;
    };
    let (Some(Value::String(first)), Some(Value::String(last))) = (&values[given], &values[family])
    else {
        return;
    };
    let cjk = |text: &str| text.chars().all(is_cjk);
    let written_first = [
        format!("{first}{last}"),
        format!("{first} {last}"),
        format!("{first}・{last}"),
    ]
    .iter()
    .any(|whole| message.contains(whole.as_str()));
    if cjk(first) && cjk(last) && written_first {
        values.swap(given, family);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_tools::tool_with_types;
    use serde_json::json;

    #[test]
    fn a_written_range_fills_both_ends() {
        let search = tool_with_types(
            "search_people",
            &[
                ("name", "name", "string"),
                ("born_after", "optional; earliest birth year", "integer"),
                ("born_before", "optional; latest birth year", "integer"),
            ],
        );
        for message in [
            "anyone named Hale born between 1850 and 1880?",
            "Hale, born 1850-1880",
            "Hale born from 1850 to 1880",
        ] {
            let spans = MessageSpans::new(message, &search);
            let mut values = vec![None, Some(json!(1880)), None];
            with_written_range(&search, &spans, &mut values);
            assert_eq!(
                values,
                [None, Some(json!(1850)), Some(json!(1880))],
                "{message}"
            );
        }
        let spans = MessageSpans::new("born in 1850 and died 1880", &search);
        let mut values = vec![None, Some(json!(1850)), None];
        with_written_range(&search, &spans, &mut values);
        assert_eq!(values[2], None, "no range written");
    }

    #[test]
    fn a_chinese_name_is_written_family_name_first() {
        let add = tool_with_types(
            "add_person",
            &[
                ("first_name", "given name(s)", "string"),
                ("last_name", "family name", "string"),
            ],
        );
        let mut values = vec![Some(json!("李")), Some(json!("秀英"))];
        in_written_name_order(&add, "添加一个人：李秀英，女", &mut values);
        assert_eq!(values, [Some(json!("秀英")), Some(json!("李"))]);
        let mut values = vec![Some(json!("Ada")), Some(json!("Lovelace"))];
        in_written_name_order(&add, "add Ada Lovelace", &mut values);
        assert_eq!(values, [Some(json!("Ada")), Some(json!("Lovelace"))]);
    }
}
