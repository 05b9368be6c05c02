//! Parameters that come in pairs, filled as the pair the message writes:
//! a range's two ends ("born between 1850 and 1880": `born_after` 1850,
//! `born_before` 1880), a span of clock times ("6pm to 11pm": a start at
//! 18:00 and 5 hours, or a start and an end), a span of days
//! (2027年4月1日から4月3日まで: `check_in` and `check_out`) and a name's two
//! parts (李秀英, written family name
//! first: `last_name` 李, `first_name` 秀英). Each value alone may be read
//! well and still land on the wrong side of its pair.

use chrono::NaiveDate;
use riverse_route::{
    MessageSpans, clock_minutes, clock_span_in, clock_times_in, in_described_scale, name_words,
    script::is_cjk, wants_clock_time, written_in_unit_of,
};
use riverse_tool::{ParamType, ToolManifest};
use serde_json::Value;

use crate::route::date_spans::{date_span, marked_ends};
use crate::route::dates::wants_iso_date;

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

/// `values` with a span of clock times the message writes ("6pm to
/// 11pm", "9am-1pm") given to the tool's start and end times, or to its
/// one time and a length of time ("hours": 5). Each end alone would be
/// read as the one time the tool takes.
pub(crate) fn with_clock_span(tool: &ToolManifest, message: &str, values: &mut [Option<Value>]) {
    let Some((start, end)) = clock_span_in(message) else {
        return;
    };
    let params: Vec<(&String, &String)> = tool.parameters.iter().collect();
    let clocks: Vec<usize> = (0..params.len())
        .filter(|&index| wants_clock_time(params[index].1))
        .collect();
    let named_end = |index: usize, ends: &[&str]| {
        name_words(params[index].0)
            .iter()
            .any(|word| ends.contains(&word.as_str()))
    };
    if let [first, second] = clocks[..] {
        let (lower, upper) = match named_end(second, &LOWER_ENDS) || named_end(first, &UPPER_ENDS) {
            true => (second, first),
            false => (first, second),
        };
        values[lower] = Some(Value::from(start));
        values[upper] = Some(Value::from(end));
        return;
    }
    let [clock] = clocks[..] else {
        return;
    };
    values[clock] = Some(Value::from(start.clone()));
    let length = (0..params.len()).find(|&index| {
        let (name, description) = params[index];
        index != clock && written_in_unit_of(" min", name, description)
    });
    let Some(length) = length else {
        return;
    };
    let (Some(from), Some(to)) = (clock_minutes(&start), clock_minutes(&end)) else {
        return;
    };
    let minutes = f64::from(to - from);
    let (name, description) = params[length];
    // None: the length is asked in minutes, as written.
    let span = in_described_scale(minutes, " min", name, description).unwrap_or(minutes);
    let span = match tool.param_type(name) {
        ParamType::Int if span.fract() == 0.0 => Value::from(span as i64),
        ParamType::Int => return,
        ParamType::Float => match serde_json::Number::from_f64(span) {
            Some(number) => Value::Number(number),
            None => return,
        },
        // A length declared as text ("5"), or not declared at all.
        _ => Value::from(span.to_string()),
    };
    values[length] = Some(span);
}

/// `values` with a span of days the message writes given to the tool's
/// two date parameters of one span, the start to the lower end
/// (`from_date`, `check_in`, `start_date`) and the end to the upper.
pub(crate) fn with_date_span(
    tool: &ToolManifest,
    message: &str,
    today: NaiveDate,
    values: &mut [Option<Value>],
) {
    let dates: Vec<(usize, Vec<String>)> = tool
        .parameters
        .iter()
        .enumerate()
        .filter(|(_, (_, description))| wants_iso_date(description))
        .map(|(index, (name, _))| (index, name_words(name)))
        .collect();
    let lower_ends: Vec<&str> = LOWER_ENDS.iter().copied().chain(["in"]).collect();
    let upper_ends: Vec<&str> = UPPER_ENDS.iter().copied().chain(["out"]).collect();
    let Some((lower, upper)) = paired(&dates, &lower_ends, &upper_ends) else {
        return;
    };
    if let Some((start, end)) = date_span(message, today) {
        values[lower] = Some(Value::from(start));
        values[upper] = Some(Value::from(end));
        return;
    }
    let (start, end) = marked_ends(message, today);
    let marked: Vec<&str> = [&start, &end]
        .into_iter()
        .flatten()
        .map(|day| &message[day.bytes.clone()])
        .collect();
    // An end the message leaves unmarked keeps its value unless that is
    // the day marked as the other end.
    let is_marked = |value: &Option<Value>| {
        value.as_ref().and_then(Value::as_str).is_some_and(|value| {
            let value = value.trim().to_lowercase();
            !value.is_empty() && marked.iter().any(|day| day.to_lowercase().contains(&value))
        })
    };
    for (index, day) in [(lower, start), (upper, end)] {
        match day {
            Some(day) => values[index] = Some(Value::from(day.date.to_string())),
            None if is_marked(&values[index]) => values[index] = None,
            None => {}
        }
    }
}

/// The indices of two of `params` (index and name words) whose names
/// differ only in a word of each end: `lower_ends` in one, `upper_ends`
/// in the other.
fn paired(
    params: &[(usize, Vec<String>)],
    lower_ends: &[&str],
    upper_ends: &[&str],
) -> Option<(usize, usize)> {
    fn end_of(words: &[String], ends: &[&str]) -> Option<Vec<String>> {
        let rest: Vec<String> = words
            .iter()
            .filter(|word| !ends.contains(&word.as_str()))
            .cloned()
            .collect();
        (rest.len() + 1 == words.len()).then_some(rest)
    }
    params.iter().find_map(|(lower, lower_words)| {
        let lower_rest = end_of(lower_words, lower_ends)?;
        params.iter().find_map(|(upper, upper_words)| {
            let upper_rest = end_of(upper_words, upper_ends)?;
            (upper != lower && upper_rest == lower_rest).then_some((*lower, *upper))
        })
    })
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
    paired(&numeric, &LOWER_ENDS, &UPPER_ENDS)
}

/// The one clock time `message` gives ("at ten in the morning"), for the
/// one parameter of `tool` that asks for a time; `None` when either is
/// not one.
pub(super) fn only_clock_time(tool: &ToolManifest, message: &str) -> Option<String> {
    let asking = tool
        .parameters
        .values()
        .filter(|description| wants_clock_time(description))
        .count();
    match clock_times_in(message).as_slice() {
        [time] if asking == 1 => Some(time.clone()),
        _ => None,
    }
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
    fn a_span_of_clock_times_fills_a_start_and_a_length_or_both_ends() {
        let book = tool_with_types(
            "book_sitter",
            &[
                (
                    "start_time",
                    "start time, HH:MM in 24-hour format",
                    "string",
                ),
                ("hours", "length of the sitting in hours", "number"),
                ("children", "number of children", "integer"),
            ],
        );
        let mut values = vec![Some(json!("23:00")), Some(json!(2)), Some(json!(2))];
        with_clock_span(&book, "Saturday, 6pm to 11pm, two kids", &mut values);
        assert_eq!(
            values,
            [Some(json!("18:00")), Some(json!(5.0)), Some(json!(2))]
        );
        let mut values = vec![Some(json!("19:00")), Some(json!(4)), None];
        with_clock_span(&book, "from 7pm for 4 hours", &mut values);
        assert_eq!(
            values[..2],
            [Some(json!("19:00")), Some(json!(4))],
            "no span"
        );
        let untyped = tool_with_types(
            "book_sitter",
            &[
                (
                    "start_time",
                    "start time, HH:MM in 24-hour format",
                    "string",
                ),
                ("hours", "length of the sitting in hours", "string"),
            ],
        );
        let mut values = vec![Some(json!("23:00")), Some(json!("6pm"))];
        with_clock_span(&untyped, "Saturday, 6pm to 11pm", &mut values);
        assert_eq!(values, [Some(json!("18:00")), Some(json!("5"))]);

        let reserve = tool_with_types(
            "reserve_room",
            &[
                ("end", "end time, HH:MM", "string"),
                ("start", "start time, HH:MM", "string"),
                ("minutes", "optional; length in minutes", "integer"),
            ],
        );
        let mut values = vec![None, None, None];
        with_clock_span(&reserve, "room 4 from 9:30 to 11:00", &mut values);
        assert_eq!(values, [Some(json!("11:00")), Some(json!("09:30")), None]);
    }

    #[test]
    fn a_span_of_days_fills_both_ends() {
        let hotels = tool_with_types(
            "search_hotels",
            &[
                ("city", "city", "string"),
                ("check_in", "YYYY-MM-DD", "string"),
                ("check_out", "YYYY-MM-DD", "string"),
            ],
        );
        let today = NaiveDate::from_ymd_opt(2026, 12, 5).unwrap();
        let message = "京都のホテルを探してください。2027年4月1日から4月3日まで";
        let mut values = vec![Some(json!("京都")), Some(json!("2027-04-01")), None];
        with_date_span(&hotels, message, today, &mut values);
        assert_eq!(
            values[1..],
            [Some(json!("2027-04-01")), Some(json!("2027-04-03"))]
        );
        let mut values = vec![None, Some(json!("2027-04-01")), None];
        with_date_span(
            &hotels,
            "Kyoto on 2027-04-01 for two nights",
            today,
            &mut values,
        );
        assert_eq!(values[1..], [Some(json!("2027-04-01")), None], "no span");
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
