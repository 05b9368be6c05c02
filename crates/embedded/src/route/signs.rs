//! A number written as its parameter's description asks, beyond the units
//! and scales `riverse-route` converts: its sign, when the description
//! says a negative number lowers or takes away ("Relative change in
//! degrees; negative to lower": "lower it by 2 degrees" is -2), and a
//! percentage as the decimal the description's example writes ("Annual
//! interest rate, e.g. 0.05": "5%" is 0.05).

use serde_json::{Number, Value};

/// Words by which a message asks for less: a decrease, a withdrawal, an
/// earlier time.
const LESS_WORDS: &[&str] = &[
    "lower",
    "decrease",
    "reduce",
    "subtract",
    "deduct",
    "minus",
    "down",
    "drop",
    "cut",
    "less",
    "fewer",
    "colder",
    "cooler",
    "dimmer",
    "withdraw",
    "withdrew",
    "withdrawn",
    "debit",
    "remove",
    "take",
    "took",
    "spent",
    "spend",
    "earlier",
    "back",
    "behind",
    "shrink",
    "decrement",
    "below",
];

/// Words by which a message asks for more: they keep a number positive.
const MORE_WORDS: &[&str] = &[
    "raise",
    "increase",
    "add",
    "up",
    "more",
    "warmer",
    "hotter",
    "deposit",
    "later",
    "ahead",
    "forward",
    "plus",
    "grow",
    "increment",
    "above",
];

/// `value` with the sign the message asks for when `description` says a
/// negative number lowers or takes away, and the message asks for less
/// without asking for more; `value` itself otherwise (a number written
/// with its own sign keeps it).
pub(crate) fn signed(description: &str, message: &str, value: Value) -> Value {
    let Some(number) = value.as_f64().filter(|number| *number > 0.0) else {
        return value;
    };
    let description = description.to_lowercase();
    if !words(&description).any(|word| word == "negative") {
        return value;
    }
    let lower = message.to_lowercase();
    let asks = |list: &[&str]| words(&lower).any(|word| list.contains(&word));
    if !asks(LESS_WORDS) || asks(MORE_WORDS) {
        return value;
    }
    match &value {
        Value::Number(written) if written.is_i64() || written.is_u64() => {
            Value::from(-(number as i64))
        }
        _ => Number::from_f64(-number).map_or(value, Value::Number),
    }
}

/// A percentage ("5%", "5 percent") as a decimal when `description` writes
/// its example value as one ("e.g. 0.05") and does not speak of percent;
/// `None` when it stays as written. `after` is the message after the
/// number.
pub(crate) fn percent_as_example_decimal(
    number: f64,
    after: &str,
    description: &str,
) -> Option<f64> {
    let after = after.trim_start().to_lowercase();
    let percent = after.starts_with('%')
        || after.starts_with('％')
        || after.starts_with("percent")
        || after.starts_with("per cent");
    let description = description.to_lowercase();
    let fraction = description.contains("decimal") || description.contains("fraction");
    if !percent || !fraction && (description.contains("percent") || description.contains('%')) {
        return None;
    }
    if fraction {
        return Some((number / 100.0 * 1e9).round() / 1e9);
    }
    let decimal_example = description
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|text| {
            text.trim_end_matches('.')
                .parse::<f64>()
                .ok()
                .map(|n| (text, n))
        })
        .any(|(text, example)| text.contains('.') && example > 0.0 && example < 1.0);
    decimal_example.then(|| (number / 100.0 * 1e9).round() / 1e9)
}

/// Whether `number` lies in the range `description` gives its values: a
/// fraction ("as a decimal fraction, 0.05 for 5%", "between 0 and 1") is
/// at most 1, and "from 1 to 10" or "between 1 and 5" bound it. "Move 500
/// from checking to savings" gives a savings rate no value.
pub(crate) fn in_described_range(description: &str, number: f64) -> bool {
    let lower = description.to_lowercase();
    let fraction = lower.contains("fraction") || lower.contains("decimal share");
    if fraction && !(0.0..=1.0).contains(&number.abs()) {
        return false;
    }
    let all: Vec<&str> = words(&lower).collect();
    let worded = all.windows(4).find_map(|window| match window {
        ["from" | "between", low, "to" | "and", high] => {
            Some((low.parse::<f64>().ok()?, high.parse::<f64>().ok()?))
        }
        _ => None,
    });
    let bounds = worded.or_else(|| dashed_range(&lower));
    bounds.is_none_or(|(low, high)| low >= high || (low..=high).contains(&number))
}

/// The bounds of a range written with a dash between two whole numbers
/// ("number of years, 1-3", "1–5 stars"), not of a date or a code
/// ("2026-12-01", "A-12-3"), whose parts run on.
fn dashed_range(description: &str) -> Option<(f64, f64)> {
    let tokens =
        description.split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')'));
    tokens
        .map(|token| token.trim_end_matches('.'))
        .find_map(|token| {
            let (low, high) = token.split_once(['-', '–'])?;
            let whole = |part: &str| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit());
            (whole(low) && whole(high)).then(|| Some((low.parse().ok()?, high.parse().ok()?)))?
        })
}

fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_number_outside_its_described_range_is_no_value() {
        let rate = "share of the salary as a decimal fraction, 0.05 for 5%";
        assert!(!in_described_range(rate, 500.0));
        assert!(in_described_range(rate, 0.05));
        assert_eq!(percent_as_example_decimal(5.0, "% of it", rate), Some(0.05));
        assert!(!in_described_range("effort from 1 to 10", 12.0));
        assert!(in_described_range("effort from 1 to 10", 7.0));
        assert!(in_described_range("amount to move, in euros", 500.0));
        assert!(!in_described_range(
            "optional; number of years, 1-3",
            7752.0
        ));
        assert!(in_described_range("optional; number of years, 1-3", 2.0));
        assert!(in_described_range("rating, 1–5 stars", 4.0));
        assert!(
            in_described_range("day of the visit, YYYY-MM-DD, e.g. 2026-12-01", 40.0),
            "a date is no range"
        );
    }

    #[test]
    fn a_number_takes_the_sign_its_description_gives_to_less() {
        let change = "Relative change in degrees; negative to lower";
        assert_eq!(
            signed(change, "Lower the office by 2 degrees", json!(2.0)),
            json!(-2.0)
        );
        assert_eq!(
            signed(change, "turn the bedroom down 1.5 degrees", json!(1.5)),
            json!(-1.5)
        );
        assert_eq!(
            signed(change, "Raise it by 2 degrees", json!(2.0)),
            json!(2.0)
        );
        assert_eq!(
            signed(change, "change it by -1.5 degrees", json!(-1.5)),
            json!(-1.5),
            "a number written with its sign keeps it"
        );
        let amount = "Amount to add; negative to subtract";
        assert_eq!(
            signed(amount, "Take 50 out of the savings account", json!(50)),
            json!(-50)
        );
        assert_eq!(signed(amount, "Add 50 to savings", json!(50)), json!(50));
        // A description that gives no sign its meaning leaves it alone.
        assert_eq!(
            signed(
                "Number of replicas",
                "scale search down to 1 replica",
                json!(1)
            ),
            json!(1)
        );
    }

    #[test]
    fn a_percentage_is_the_decimal_its_description_shows() {
        let rate = "Annual interest rate, e.g. 0.05";
        assert_eq!(
            percent_as_example_decimal(5.0, "% over 30 years", rate),
            Some(0.05)
        );
        assert_eq!(
            percent_as_example_decimal(7.5, " percent", rate),
            Some(0.075)
        );
        assert_eq!(percent_as_example_decimal(5.0, " years", rate), None);
        assert_eq!(
            percent_as_example_decimal(30.0, "%", "Brightness in percent, e.g. 0.5 steps"),
            None
        );
        assert_eq!(
            percent_as_example_decimal(10.0, "%", "Discount, e.g. 15"),
            None,
            "an example written whole asks for the number as written"
        );
    }
}
