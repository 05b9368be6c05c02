//! Constrained decoding of one number parameter (strings and booleans are
//! chosen in [`super::fill`]): a number is one of the numbers the message
//! contains, chosen by score, or `null`, which leaves it out of the call.

use std::ops::Range;

use riverse_route::{MessageSpans, NumberSpan, numbers_a_thing};
use riverse_tool::ParamType;
use serde_json::Value;

use crate::error::Result;
use crate::inference::engine::{Engine, State};
use crate::tuning::{ORDER_PENALTY, SKIP_PENALTY};

use super::dates::ORDINAL_SUFFIXES;
use super::reach::MONTHS;

/// Token ids the value decoder needs, looked up once per model.
pub(crate) struct ValueTokens {
    /// ` "`: a string value opens.
    pub open_string: Vec<u32>,
    /// ` null}`: the parameter is left out (scored as the object's end).
    pub null_closed: Vec<u32>,
}

impl ValueTokens {
    pub fn new(engine: &Engine) -> Result<Self> {
        Ok(ValueTokens {
            open_string: engine.tokenizer.encode(" \"")?,
            null_closed: engine.tokenizer.encode(" null}")?,
        })
    }
}

/// A decided value and the message bytes it came from.
pub(crate) struct Decoded {
    pub value: Option<Value>,
    /// The message bytes the value was taken from.
    pub taken: Option<Range<usize>>,
}

impl Decoded {
    /// `number` as the value of a parameter of `kind`.
    pub fn of(kind: ParamType, number: &NumberSpan) -> Decoded {
        let value = match kind {
            // A fraction the caller accepts for an integer is one it
            // rescales ("half an hour" in minutes).
            ParamType::Int if !number.is_integer => {
                number.text.parse::<f64>().ok().map(Value::from)
            }
            ParamType::Int => number.text.parse::<i64>().ok().map(Value::from),
            _ => number.text.parse::<f64>().ok().map(Value::from),
        };
        Decoded {
            value,
            taken: Some(number.bytes.clone()),
        }
    }
}

/// The numbers of `message` a number parameter may take: those `usable`
/// accepts that no earlier value took and that are no ordinal, clock time
/// or date.
pub(crate) fn open_numbers<'a>(
    message: &'a MessageSpans<'_>,
    taken: &[Range<usize>],
    usable: &dyn Fn(&NumberSpan) -> bool,
) -> Vec<&'a NumberSpan> {
    message
        .numbers
        .iter()
        .filter(|number| !is_ordinal(message.text, &number.bytes))
        .filter(|number| !taken.iter().any(|span| overlaps(span, &number.bytes)))
        .filter(|number| !in_time_or_date(message.text, &number.bytes))
        .filter(|number| usable(number))
        .collect()
}

/// Decodes the number or boolean that follows `state`, which ends just
/// after `"name":`. `close` is the JSON text that follows the value (`,`
/// before another key, `}` after the last), used to score numbers fairly.
/// `taken` holds the spans earlier parameters took; only numbers `usable`
/// accepts are candidates.
pub(crate) fn decode_value(
    engine: &Engine,
    state: &State,
    kind: ParamType,
    message: &MessageSpans<'_>,
    taken: &[Range<usize>],
    close: &str,
    usable: &dyn Fn(&NumberSpan) -> bool,
) -> Result<Decoded> {
    let omitted = || Decoded {
        value: None,
        taken: None,
    };
    // Where the previous parameter's value ended.
    let anchor = order_anchor(message.text, taken).map_or(0, |span| span.end);
    let close_tokens = engine.tokenizer.encode(close)?;
    let closed = |text: &str| -> Result<Vec<u32>> {
        let mut sequence = engine.tokenizer.encode(text)?;
        sequence.extend(&close_tokens);
        Ok(sequence)
    };
    match kind {
        ParamType::String => Ok(omitted()),
        ParamType::Int | ParamType::Float => {
            let numbers = open_numbers(message, taken, usable);
            if numbers.is_empty() {
                return Ok(omitted());
            }
            // Scored with the text that closes them, so `1` does not beat
            // `10` merely by being shorter; `null` likewise.
            let mut sequences = vec![closed(" null")?];
            for number in &numbers {
                sequences.push(closed(&format!(" {}", number.text))?);
            }
            let mut scores = engine.score_many(state, &sequences)?;
            for (score, number) in scores[1..].iter_mut().zip(&numbers) {
                *score -= order_penalty(message, taken, anchor, number.bytes.start);
            }
            let best = best_index(&scores[1..]);
            match best {
                Some(index) if scores[index + 1] >= scores[0] => {
                    Ok(Decoded::of(kind, numbers[index]))
                }
                _ => Ok(omitted()),
            }
        }
        // Booleans are read from the message's words (see `fill`).
        ParamType::Bool => Ok(omitted()),
    }
}

/// The span of the last value taken that orders the ones after it: one
/// written in digits. A number written in words ("two adults") is read
/// wherever it stands, and orders nothing.
pub(crate) fn order_anchor<'a>(text: &str, taken: &'a [Range<usize>]) -> Option<&'a Range<usize>> {
    taken.iter().rev().find(|span| {
        text[span.start..]
            .chars()
            .next()
            .is_some_and(|c| c.is_numeric() || matches!(c, '-' | '−' | '－'))
    })
}

/// The order prior for a value starting at `start`, given that the previous
/// value ended at `anchor` (0: there is none, and no prior).
fn order_penalty(
    message: &MessageSpans<'_>,
    taken: &[Range<usize>],
    anchor: usize,
    start: usize,
) -> f32 {
    if anchor == 0 {
        return 0.0;
    }
    if start < anchor {
        return ORDER_PENALTY;
    }
    let skipped = (anchor..start)
        .filter(|&at| message.boundaries.starts[at])
        .filter(|&at| !taken.iter().any(|span| span.contains(&at)))
        .count();
    (skipped as f32 * SKIP_PENALTY).min(ORDER_PENALTY)
}

/// Whether the number at `bytes` is part of a clock time or a date
/// (`12:30`, `2026-04-17`, `4/17`, `May 14`, `1 January 2025`): a part of
/// when, not a quantity.
fn in_time_or_date(text: &str, bytes: &Range<usize>) -> bool {
    // A month's name, or its first three letters (`Sept` too).
    let is_month = |word: Option<&str>| {
        word.map(|word| {
            word.trim_matches(|c: char| !c.is_alphabetic())
                .to_lowercase()
        })
        .is_some_and(|word| {
            word.len() >= 3
                && MONTHS
                    .iter()
                    .any(|month| *month == word || (word.len() <= 4 && month.starts_with(&word)))
        })
    };
    let word_before = text[..bytes.start].split_whitespace().next_back();
    let word_after = text[bytes.end..].split_whitespace().next();
    // `10am`, `6 p.m.`, but not `5 ample`.
    let after = text[bytes.end..].trim_start().to_lowercase();
    let meridiem = ["am", "pm", "a.m.", "p.m."]
        .iter()
        .any(|mark| after.starts_with(mark))
        && !after.chars().nth(2).is_some_and(char::is_alphabetic);
    if is_month(word_before) || is_month(word_after) || meridiem || cjk_date_part(text, bytes) {
        return true;
    }
    let joined = |joint: Option<char>, digit: Option<char>| {
        matches!(joint, Some(':' | '-' | '/')) && digit.is_some_and(|c| c.is_ascii_digit())
    };
    let mut before = text[..bytes.start].chars().rev();
    let mut after = text[bytes.end..].chars();
    let (joint_before, digit_before) = (before.next(), before.next());
    let (joint_after, digit_after) = (after.next(), after.next());
    joined(joint_before, digit_before) || joined(joint_after, digit_after)
}

/// Whether the number at `bytes` is a year, a month, a day or an hour
/// written with its CJK mark (2027年4月1日, 3号, 8点, 9時), not a span
/// of them (3日間, 2時間) nor the number of a thing (3号电梯).
fn cjk_date_part(text: &str, bytes: &Range<usize>) -> bool {
    let after = &text[bytes.end..];
    let mark = after.chars().next();
    let span = ["日間", "時間", "个月", "か月", "ヶ月", "年間", "点钟"]
        .iter()
        .any(|span| after.starts_with(span));
    let numbered = matches!(mark, Some('号' | '號'))
        && numbers_a_thing(text, &after[mark.map_or(0, char::len_utf8)..]);
    matches!(
        mark,
        Some('年' | '月' | '日' | '号' | '點' | '点' | '時' | '时')
    ) && !span
        && !numbered
}

/// Whether the number at `bytes` is an ordinal ("the 5th", "3rd"): a
/// position or a day of a month, no quantity.
fn is_ordinal(text: &str, bytes: &Range<usize>) -> bool {
    let suffix: String = text[bytes.end..]
        .chars()
        .take_while(char::is_ascii_alphabetic)
        .collect::<String>()
        .to_lowercase();
    ORDINAL_SUFFIXES.contains(&suffix.as_str())
}

fn best_index(scores: &[f32]) -> Option<usize> {
    scores
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(index, _)| index)
}

/// Whether two spans of a message share a byte.
pub(super) fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_of_a_clock_time_or_a_date_is_no_quantity() {
        let text = "lunch on 2026-04-17 at 12:30 for 2 hours";
        let at = |number: &str| {
            let start = text.find(number).unwrap();
            start..start + number.len()
        };
        assert!(in_time_or_date(text, &at("2026")));
        assert!(in_time_or_date(text, &at("17")));
        assert!(in_time_or_date(text, &at("12")));
        let spoken = "Book me a seat on May 14 for 3 nights";
        let may = spoken.find("14").unwrap();
        assert!(in_time_or_date(spoken, &(may..may + 2)));
        let three = spoken.find('3').unwrap();
        assert!(!in_time_or_date(spoken, &(three..three + 1)));
        let morning = "sync tomorrow 10am for 2 hours, 5 ample seats";
        let ten = morning.find("10").unwrap();
        assert!(in_time_or_date(morning, &(ten..ten + 2)));
        let five = morning.find('5').unwrap();
        assert!(
            !in_time_or_date(morning, &(five..five + 1)),
            "ample is no am"
        );
        let two = text.rfind("2 hours").unwrap();
        assert!(!in_time_or_date(text, &(two..two + 1)));
    }

    #[test]
    fn a_number_marked_as_a_cjk_date_is_no_quantity() {
        let text = "2027年4月1日から3日間、3人です";
        let at = |number: &str| {
            let start = text.find(number).unwrap();
            start..start + number.chars().next().unwrap().len_utf8()
        };
        assert!(in_time_or_date(text, &(0..4)));
        assert!(in_time_or_date(text, &at("4月")));
        assert!(in_time_or_date(text, &at("1日")));
        assert!(!in_time_or_date(text, &at("3日間")));
        assert!(!in_time_or_date(text, &at("3人")));
    }

    #[test]
    fn only_a_number_in_digits_orders_the_values_after_it() {
        let text = "two adults, 3 nights, four rooms";
        let taken = [0..3, 12..13, 22..26];
        assert_eq!(order_anchor(text, &taken), Some(&(12..13)));
        assert_eq!(order_anchor(text, &taken[..1]), None);
    }

    #[test]
    fn an_ordinal_is_no_quantity() {
        let text = "in on 3 March and out on the 5th, 2nd floor, 4 guests";
        let at = |number: &str| {
            let start = text.find(number).unwrap();
            start..start + 1
        };
        assert!(is_ordinal(text, &at("5th")));
        assert!(is_ordinal(text, &at("2nd")));
        assert!(!is_ordinal(text, &at("4 guests")));
        assert!(!is_ordinal(text, &at("3 March")));
    }
}
