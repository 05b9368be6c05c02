//! Numbers a message writes in words ("two adults", "fifteen minutes",
//! "half an hour", 二十四度, 五公斤): numbers like those written in
//! digits, for a number parameter to take.

use crate::numbers::{NumberSpan, cjk_number, cjk_numeral};
use crate::scales::starts_with_unit;

/// English number words below twenty, and their values.
const UNITS: [&str; 20] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];

/// English tens, from twenty.
const TENS: [&str; 8] = [
    "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
];

/// Words before "one" that make it a pronoun ("the one on the left",
/// "no one"), no number.
const ONE_AS_PRONOUN: &[&str] = &[
    "the", "this", "that", "which", "no", "any", "every", "each", "some", "another",
];

/// Characters after a Chinese numeral that make it part of a date, a
/// clock time or a name (十一月, 三号, 三点), no quantity.
const CJK_NOT_QUANTITY: &[char] = &['月', '日', '号', '號', '点', '點', '時', '时', '楼'];

/// Words before a Chinese numeral that make it a weekday (星期三, 周五).
const CJK_WEEKDAY: &[&str] = &["星期", "周", "週", "礼拜", "禮拜", "曜"];

/// The numbers `message` writes in words: English number words up to
/// ninety-nine ("two", "twenty-five", "a dozen"), "half an"/"half a" as
/// 0.5 (so "half an hour" is half of the unit after it) and Chinese
/// numerals (二十四, 两, 五 but not a lone 一 before no unit, which is
/// mostly "a"), in
/// order. "one" as a pronoun ("the one", "one of") is none, and neither
/// is a numeral of a date, a clock time or a weekday.
pub fn spelled_numbers(message: &str) -> Vec<NumberSpan> {
    let mut found: Vec<NumberSpan> = english_numbers(message)
        .into_iter()
        .map(|number| with_spoken_sign(message, number))
        .collect();
    found.extend(chinese_numbers(message));
    found.sort_by_key(|number| number.bytes.start);
    found
}

/// `number` negative when "minus" or "negative" is said just before it
/// ("drops below minus five").
fn with_spoken_sign(message: &str, number: NumberSpan) -> NumberSpan {
    let before = &message[..number.bytes.start];
    let trimmed = before.trim_end();
    let sign = ["minus", "negative"].into_iter().find(|sign| {
        trimmed.len() >= sign.len()
            && trimmed[trimmed.len() - sign.len()..].eq_ignore_ascii_case(sign)
            && trimmed[..trimmed.len() - sign.len()]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric())
    });
    match sign {
        Some(sign) if !number.text.starts_with('-') && trimmed.len() < before.len() => NumberSpan {
            bytes: trimmed.len() - sign.len()..number.bytes.end,
            text: format!("-{}", number.text),
            is_integer: number.is_integer,
        },
        _ => number,
    }
}

/// The words of `text` with their byte ranges, lower-cased, letters and
/// apostrophes only (a hyphen splits "twenty-five").
fn words(text: &str) -> Vec<(std::ops::Range<usize>, String)> {
    let mut words = Vec::new();
    let mut start = None;
    for (at, c) in text.char_indices().chain([(text.len(), ' ')]) {
        let letter = c.is_ascii_alphabetic() || c == '\'';
        match (letter, start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                words.push((from..at, text[from..at].to_lowercase()));
                start = None;
            }
            _ => {}
        }
    }
    words
}

fn english_numbers(message: &str) -> Vec<NumberSpan> {
    let words = words(message);
    let mut found = Vec::new();
    let mut index = 0;
    while index < words.len() {
        let (bytes, word) = &words[index];
        let next = words.get(index + 1).map(|(_, word)| word.as_str());
        let before = index
            .checked_sub(1)
            .map(|at| words[at].1.as_str())
            .filter(|_| index > 0 && joined(message, &words[index - 1].0, bytes));
        let spelled = |value: f64, end: usize, consumed: usize| {
            (
                NumberSpan {
                    bytes: bytes.start..end,
                    text: format_number(value),
                    is_integer: value.fract() == 0.0,
                },
                consumed,
            )
        };
        let read = if let Some(tens) = TENS.iter().position(|tens| tens == word) {
            let tens = 20.0 + 10.0 * tens as f64;
            let unit = next
                .and_then(|next| UNITS[1..10].iter().position(|unit| *unit == next))
                .filter(|_| joined(message, bytes, &words[index + 1].0));
            match unit {
                Some(unit) => Some(spelled(tens + 1.0 + unit as f64, words[index + 1].0.end, 2)),
                None => Some(spelled(tens, bytes.end, 1)),
            }
        } else if let Some(value) = UNITS.iter().position(|unit| unit == word) {
            let pronoun = value == 1
                && (next == Some("of")
                    || next == Some("another")
                    || before.is_some_and(|before| ONE_AS_PRONOUN.contains(&before)));
            (!pronoun).then(|| spelled(value as f64, bytes.end, 1))
        } else if word == "dozen" {
            let start = match before {
                Some("a") => words[index - 1].0.start,
                _ => bytes.start,
            };
            let (mut number, consumed) = spelled(12.0, bytes.end, 1);
            number.bytes.start = start;
            Some((number, consumed))
        } else if word == "half" && matches!(next, Some("a" | "an")) {
            Some(spelled(0.5, words[index + 1].0.end, 2))
        } else {
            None
        };
        match read {
            Some((mut number, consumed)) => {
                let mut index_after = index + consumed;
                if number.is_integer {
                    index_after = with_multipliers(message, &words, index_after, &mut number);
                }
                found.push(number);
                index = index_after;
            }
            None => index += 1,
        }
    }
    found
}

/// `number` (read from the words before `index`) widened over the
/// "hundred" or "thousand" after it and the number below a hundred that
/// follows ("two hundred and fifty" is 250); the index after what it took.
fn with_multipliers(
    message: &str,
    words: &[(std::ops::Range<usize>, String)],
    mut index: usize,
    number: &mut NumberSpan,
) -> usize {
    let mut value: f64 = number.text.parse().unwrap_or(0.0);
    let mut total = 0.0;
    let mut grew = false;
    while let Some((bytes, word)) = words.get(index) {
        let size = match word.as_str() {
            "hundred" => 100.0,
            "thousand" => 1000.0,
            _ => break,
        };
        if !joined(message, &number.bytes, bytes) {
            break;
        }
        value *= size;
        if size == 1000.0 {
            total += value;
            value = 0.0;
        }
        number.bytes.end = bytes.end;
        grew = true;
        index += 1;
        // "and fifty", "fifty"
        let mut at = index;
        if words.get(at).is_some_and(|(_, word)| word == "and") {
            at += 1;
        }
        let tail = words.get(at).and_then(|(_, word)| {
            TENS.iter()
                .position(|tens| tens == word)
                .map(|tens| 20.0 + 10.0 * tens as f64)
                .or_else(|| {
                    UNITS[1..]
                        .iter()
                        .position(|unit| unit == word)
                        .map(|u| u as f64 + 1.0)
                })
        });
        let close = |bytes: &std::ops::Range<usize>| {
            matches!(
                message[number.bytes.end..bytes.start].trim(),
                "" | "and" | "-"
            )
        };
        if let Some(tail) = tail.filter(|_| close(&words[at].0)) {
            let (tail_bytes, _) = &words[at];
            let mut tail_end = tail_bytes.end;
            let mut tail_value = tail;
            let unit = words.get(at + 1).and_then(|(next_bytes, next)| {
                let compound = tail >= 20.0 && joined(message, tail_bytes, next_bytes);
                UNITS[1..10]
                    .iter()
                    .position(|unit| unit == next)
                    .filter(|_| compound)
                    .map(|unit| (unit as f64 + 1.0, next_bytes.end))
            });
            if let Some((unit, end)) = unit {
                tail_value += unit;
                tail_end = end;
                at += 1;
            }
            let followed = words
                .get(at + 1)
                .is_some_and(|(_, word)| matches!(word.as_str(), "hundred" | "thousand"));
            number.bytes.end = tail_end;
            index = at + 1;
            if !followed {
                value += tail_value;
                break;
            }
            value = tail_value;
        }
    }
    if grew {
        number.text = format_number(total + value);
    }
    index
}

/// Whether two words are next to each other, with at most a space or a
/// hyphen between them.
fn joined(text: &str, first: &std::ops::Range<usize>, second: &std::ops::Range<usize>) -> bool {
    first.end <= second.start && matches!(text[first.end..second.start].trim(), "" | "-")
}

fn chinese_numbers(message: &str) -> Vec<NumberSpan> {
    let chars: Vec<(usize, char)> = message.char_indices().collect();
    let numeral = |c: char| cjk_numeral(c).is_some() || matches!(c, '百' | '千' | '万' | '萬');
    let mut found = Vec::new();
    let mut index = 0;
    while index < chars.len() {
        if cjk_numeral(chars[index].1).is_none() {
            index += 1;
            continue;
        }
        let start = index;
        while index < chars.len() && numeral(chars[index].1) {
            index += 1;
        }
        let run: String = chars[start..index].iter().map(|(_, c)| c).collect();
        let from = chars[start].0;
        let to = chars.get(index).map_or(message.len(), |(at, _)| *at);
        let after = message[to..].chars().next();
        // A lone 一 is mostly "a" (一个任务), but a quantity before a unit
        // (一个小时, 一天).
        let counts = run != "一" || starts_with_unit(&message[to..]);
        let quantity = counts
            && !after.is_some_and(|c| CJK_NOT_QUANTITY.contains(&c))
            && !CJK_WEEKDAY
                .iter()
                .any(|weekday| message[..from].ends_with(weekday));
        if let Some(value) = chinese_value(&run).filter(|_| quantity) {
            found.push(NumberSpan {
                bytes: from..to,
                text: value.to_string(),
                is_integer: true,
            });
        }
    }
    found
}

/// The value of Chinese numerals with hundreds, thousands and ten
/// thousands (五百, 两千五百, 一万); below a hundred as [`cjk_number`]
/// reads them.
fn chinese_value(run: &str) -> Option<u32> {
    if let Some(value) = cjk_number(run) {
        return Some(value);
    }
    let mut total = 0;
    let mut section = 0;
    let mut digit: Option<u32> = None;
    for c in run.chars() {
        let size = match c {
            '十' => 10,
            '百' => 100,
            '千' => 1000,
            '万' | '萬' => 10_000,
            _ => {
                let value = cjk_numeral(c)?;
                if digit.is_some() && value != 0 {
                    return None;
                }
                digit = (value != 0).then_some(value);
                continue;
            }
        };
        if size == 10_000 {
            total += (section + digit.take().unwrap_or(0)).max(1) * size;
            section = 0;
        } else {
            section += digit.take().unwrap_or(1) * size;
        }
    }
    Some(total + section + digit.unwrap_or(0))
}

/// A number as JSON writes it: `2`, `0.5`.
fn format_number(value: f64) -> String {
    if value.fract() == 0.0 {
        format!("{}", value as i64)
    } else {
        format!("{value}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(message: &str) -> Vec<(&str, String)> {
        spelled_numbers(message)
            .into_iter()
            .map(|number| (&message[number.bytes], number.text))
            .collect()
    }

    fn pairs(expected: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
        expected
            .iter()
            .map(|(span, text)| (*span, (*text).to_owned()))
            .collect()
    }

    #[test]
    fn english_number_words_are_numbers() {
        assert_eq!(
            read("two adults, hold it fifteen minutes, twenty-five bags"),
            pairs(&[("two", "2"), ("fifteen", "15"), ("twenty-five", "25")])
        );
        assert_eq!(
            read("Only four stars and up, a dozen eggs, forty"),
            pairs(&[("four", "4"), ("a dozen", "12"), ("forty", "40")])
        );
        assert_eq!(read("wait half an hour"), pairs(&[("half an", "0.5")]));
        assert_eq!(
            read("send two hundred and fifty, five hundred, three thousand two hundred"),
            pairs(&[
                ("two hundred and fifty", "250"),
                ("five hundred", "500"),
                ("three thousand two hundred", "3200")
            ])
        );
    }

    #[test]
    fn minus_said_before_a_number_makes_it_negative() {
        assert_eq!(
            read("alert me below minus five, or at negative twelve"),
            pairs(&[("minus five", "-5"), ("negative twelve", "-12")])
        );
        assert_eq!(read("terminus five"), pairs(&[("five", "5")]));
    }

    #[test]
    fn one_as_a_pronoun_is_no_number() {
        assert!(read("the one on the left, one of them, no one").is_empty());
        assert_eq!(read("one more checked suitcase"), pairs(&[("one", "1")]));
        assert!(read("someone phoned, it's done").is_empty());
    }

    #[test]
    fn chinese_numerals_are_numbers_unless_part_of_a_date_or_time() {
        assert_eq!(
            read("调到制冷模式，二十四度，五公斤"),
            pairs(&[("二十四", "24"), ("五", "5")])
        );
        assert!(read("十一月三号三点，星期五，一个任务").is_empty());
        assert_eq!(
            read("转五百块，两千五百元，一万"),
            pairs(&[("五百", "500"), ("两千五百", "2500"), ("一万", "10000")])
        );
        assert_eq!(
            read("开一个小时的会"),
            pairs(&[("一", "1")]),
            "一 before a unit"
        );
    }
}
