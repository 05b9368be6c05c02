//! A year or a month for a whole-number parameter named so: "this year"
//! or 去年 for `year`, "in November" or 11月 for `month`, as of today.

use chrono::{Datelike, NaiveDate};
use riverse_tool::{ParamType, ToolManifest};
use serde_json::Value;

use crate::route::days::named_month;

/// Words that name a year relative to today, and how many years on.
const RELATIVE_YEARS: [(&str, i32); 10] = [
    ("this year", 0),
    ("next year", 1),
    ("last year", -1),
    ("今年", 0),
    ("明年", 1),
    ("来年", 1),
    ("去年", -1),
    ("昨年", -1),
    ("前年", -2),
    ("本年", 0),
];

/// Fills each whole-number parameter named `year` or `month` (or ending
/// so: `birth_year`) that has no value with the year or month `message`
/// names as of `today`; a year parameter given a number no year could be
/// has it taken back.
pub(crate) fn with_calendar_numbers(
    tool: &ToolManifest,
    message: &str,
    today: NaiveDate,
    values: &mut [Option<Value>],
) {
    for (index, name) in tool.parameters.keys().enumerate() {
        if tool.param_type(name) != ParamType::Int {
            continue;
        }
        let lower = name.to_lowercase();
        let unit = lower.rsplit(['_', '-']).next();
        // A count ("5羽") is no year.
        let year_like = |value: &Value| value.as_i64().is_some_and(|year| year >= 1000);
        match (&values[index], unit) {
            (Some(value), Some("year")) if !year_like(value) => values[index] = None,
            (Some(_), _) => continue,
            _ => {}
        }
        let number = match unit {
            Some("year") => named_year(message, today),
            Some("month") => named_month(message, today).and_then(|month| month[5..].parse().ok()),
            _ => None,
        };
        values[index] = number.map(Value::from);
    }
}

/// The year `message` names relative to `today` ("next year", 去年).
fn named_year(message: &str, today: NaiveDate) -> Option<i32> {
    let lower = message.to_lowercase();
    RELATIVE_YEARS
        .iter()
        .find(|(words, _)| lower.contains(words))
        .map(|(_, shift)| today.year() + shift)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_tools::tool_with_types;

    #[test]
    fn a_year_or_month_named_relative_to_today_fills_its_parameter() {
        let totals = tool_with_types(
            "volunteer_totals",
            &[
                ("year", "Year", "integer"),
                ("month", "Month, 1-12", "integer"),
            ],
        );
        let today = NaiveDate::from_ymd_opt(2026, 12, 6).expect("a day");
        let filled = |message: &str| {
            let mut values = vec![None; 2];
            with_calendar_numbers(&totals, message, today, &mut values);
            values
        };
        assert_eq!(
            filled("What's ready to drink next year?")[0],
            Some(Value::from(2027))
        );
        assert_eq!(filled("今年の合計")[0], Some(Value::from(2026)));
        assert_eq!(filled("hours for last month")[1], Some(Value::from(11)));
        assert_eq!(filled("my hours"), [None, None]);
        let mut counted = vec![Some(Value::from(5)), None];
        with_calendar_numbers(&totals, "saw 5 tits", today, &mut counted);
        assert_eq!(counted, [None, None]);
    }
}
