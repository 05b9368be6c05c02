//! Values the tool wants written its own way: a clock time as `HH:MM` when
//! a parameter's description asks for it ("Start time, HH:MM (24h)"), and a
//! number named by a word when the description labels its numbers
//! ("1 (urgent) to 4 (low)"). The message writes "10am", 下午三点 or "a low
//! priority"; span copying alone would give the tool a value it cannot read.

use crate::glossary::glosses;
use crate::numbers::{cjk_number, cjk_numeral};
use crate::script::is_cjk;
use crate::shapes::{CLOCK_SUFFIXES, Shape, shaped_tokens};
use crate::spoken_times::spoken_clock_times;

/// Whether a parameter's description asks for a 24-hour `HH:MM` time.
pub fn wants_clock_time(description: &str) -> bool {
    description.to_ascii_uppercase().contains("HH:MM")
}

/// `value` as an `HH:MM` time: the time it writes, else the first clock
/// time of `message`; `None` when neither writes one.
pub fn as_clock_time(value: &str, message: &str) -> Option<String> {
    let before_value = message.find(value).map_or("", |at| &message[..at]);
    clock_time(value, before_value).or_else(|| clock_times_in(message).into_iter().next())
}

/// Every clock time of `message` as `HH:MM`, in the order written: those
/// written as times ("8am", "19:30", 四点) and those said in words ("ten
/// in the morning", see [`spoken_clock_times`]).
pub fn clock_times_in(message: &str) -> Vec<String> {
    clock_times_at(message)
        .into_iter()
        .map(|(_, time)| time)
        .collect()
}

/// What joins the two ends of a span of clock times ("6pm to 11pm",
/// "9am-1pm", 三点到五点).
const SPAN_JOINERS: [&str; 11] = [
    "to", "until", "till", "-", "–", "~", "〜", "～", "到", "至", "から",
];

/// The two ends of the first span of clock times `message` writes ("from
/// 6pm to 11pm", "9am-1pm", 下午三点到五点), as `HH:MM`. An end written
/// without its half of the day is in the start's ("6 to 11pm" is not a
/// span of times; "下午三点到五点" ends at 17:00).
pub fn clock_span_in(message: &str) -> Option<(String, String)> {
    // "9am-1pm" is one token until its dash stands apart.
    let message = with_shared_half(message)
        .replace('-', " - ")
        .replace('–', " – ");
    let message = message.as_str();
    let times = clock_times_at(message);
    times.windows(2).find_map(|pair| {
        let ((_, start_end), start) = &pair[0];
        let ((end_start, _), end) = &pair[1];
        let between = message.get(*start_end..*end_start)?.trim().to_lowercase();
        if !SPAN_JOINERS.contains(&between.as_str()) {
            return None;
        }
        let (from, mut to) = (clock_minutes(start)?, clock_minutes(end)?);
        if to <= from && to + 12 * 60 > from {
            to += 12 * 60;
        }
        (to > from && to < 24 * 60)
            .then(|| (start.clone(), format!("{:02}:{:02}", to / 60, to % 60)))
    })
}

/// `message` with a bare hour dashed to a time that names its half of
/// the day given that half: "2-5pm" is "2pm-5pm", "11-2pm" is
/// "11am-2pm" (a span ends after it starts). Only a dash joined to both
/// numbers shares it; "6 to 11pm" may count people.
fn with_shared_half(message: &str) -> String {
    let mut out = String::with_capacity(message.len() + 4);
    let mut rest = message;
    while let Some(at) = rest.find(['-', '–']) {
        let dash = rest[at..].chars().next().map_or(1, char::len_utf8);
        let before = &rest[..at];
        let after = &rest[at + dash..];
        let start: String = before
            .chars()
            .rev()
            .take_while(char::is_ascii_digit)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let opens_word = before[..before.len() - start.len()]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric() && c != ':');
        let end_hour: String = after.chars().take_while(char::is_ascii_digit).collect();
        let suffix = after[end_hour.len()..]
            .trim_start_matches(|c: char| c == ':' || c.is_ascii_digit())
            .trim_start()
            .to_lowercase();
        let half = ["am", "pm", "a.m.", "p.m."]
            .into_iter()
            .find(|half| suffix.starts_with(half));
        let hours = start.parse::<u32>().ok().zip(end_hour.parse::<u32>().ok());
        out.push_str(before);
        if let (Some((from, to)), Some(half), true) = (hours, half, opens_word)
            && (1..=12).contains(&from)
            && (1..=12).contains(&to)
        {
            let same = from % 12 < to % 12;
            let start_half = match (same, half.starts_with('p')) {
                (true, _) => half,
                (false, true) => "am",
                (false, false) => "pm",
            };
            out.push_str(start_half);
        }
        out.push_str(&rest[at..at + dash]);
        rest = after;
    }
    out.push_str(rest);
    out
}

/// The minutes since midnight of an `HH:MM` time.
pub fn clock_minutes(time: &str) -> Option<u32> {
    let (hour, minute) = time.split_once(':')?;
    Some(hour.parse::<u32>().ok()? * 60 + minute.parse::<u32>().ok()?)
}

/// Every clock time of `message` with where it is written (start and end
/// byte), in the order written.
fn clock_times_at(message: &str) -> Vec<((usize, usize), String)> {
    let mut times: Vec<((usize, usize), String)> = shaped_tokens(message)
        .into_iter()
        .filter(|shaped| shaped.shape == Shape::ClockTime)
        .filter_map(|shaped| {
            let before = &message[..shaped.bytes.start];
            // 7点半: the half hour follows the token.
            let half = message[shaped.bytes.end..].starts_with('半');
            let end = shaped.bytes.end + if half { '半'.len_utf8() } else { 0 };
            let time = clock_time(&message[shaped.bytes.start..end], before)?;
            Some(((shaped.bytes.start, end), time))
        })
        .collect();
    times.extend(
        spoken_clock_times(message)
            .into_iter()
            .map(|(bytes, time)| ((bytes.start, bytes.end), time)),
    );
    times.sort_by_key(|(at, _)| *at);
    times
}

/// The words before a time that put it after noon, and those that keep it
/// before.
const AFTERNOON: [&str; 7] = ["午後", "下午", "晚上", "夜", "傍晚", "晩", "今晚"];
const MORNING: [&str; 5] = ["午前", "上午", "早上", "朝", "凌晨"];

/// The `HH:MM` that `text` writes ("10am", "3:30 p.m.", "15時半", 四点),
/// read with the words just `before` it (午後, 下午).
fn clock_time(text: &str, before: &str) -> Option<String> {
    let text = text.trim().to_lowercase();
    let (hour, rest) = leading_number(&text)?;
    // "7:30", or "7.30" (two digits after the dot: "7.5" is no time).
    let separated = rest.strip_prefix(':').or_else(|| {
        rest.strip_prefix('.')
            .filter(|after| {
                after.len() >= 2 && after.as_bytes()[..2].iter().all(u8::is_ascii_digit)
            })
            .filter(|after| !after[2..].starts_with(|c: char| c.is_ascii_digit()))
    });
    let (minute, rest) = if let Some(after) = separated {
        let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
        (digits.parse().ok()?, &after[digits.len()..])
    } else {
        (0, rest)
    };
    let rest = rest.trim_start();
    // 午後, 下午 or 朝 just before the time: at most three characters back.
    let marker_from = before.char_indices().rev().nth(2).map_or(0, |(at, _)| at);
    let marker = &before[marker_from..];
    let (hour, minute) = if let Some(suffix) = CLOCK_SUFFIXES
        .into_iter()
        .find(|suffix| rest.starts_with(suffix))
    {
        if !(1..=12).contains(&hour) {
            return None;
        }
        (
            hour % 12 + if suffix.starts_with('p') { 12 } else { 0 },
            minute,
        )
    } else if let Some(after) = rest
        .strip_prefix('時')
        .or_else(|| rest.strip_prefix('点'))
        .or_else(|| rest.strip_prefix('时'))
    {
        let minute = if after.starts_with('半') {
            30
        } else {
            cjk_minutes(after).unwrap_or(minute)
        };
        let afternoon = AFTERNOON.iter().any(|word| marker.contains(word))
            && !MORNING.iter().any(|word| marker.contains(word));
        (
            if afternoon && hour < 12 {
                hour + 12
            } else {
                hour
            },
            minute,
        )
    } else if rest.is_empty() && separated.is_some() {
        (hour, minute)
    } else {
        return None;
    };
    (hour < 24 && minute < 60).then(|| format!("{hour:02}:{minute:02}"))
}

/// The number that opens `text` (an hour, a minute), in digits or Chinese
/// numerals, and the rest.
fn leading_number(text: &str) -> Option<(u32, &str)> {
    let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
    if !digits.is_empty() {
        return Some((digits.parse().ok()?, &text[digits.len()..]));
    }
    let numerals: String = text
        .chars()
        .take_while(|&c| cjk_numeral(c).is_some())
        .collect();
    let value = cjk_number(&numerals)?;
    Some((value, &text[numerals.len()..]))
}

/// The minutes written after 時 or 点: `15分`, 十五分.
fn cjk_minutes(text: &str) -> Option<u32> {
    let (minute, rest) = leading_number(text)?;
    rest.starts_with('分').then_some(minute)
}

/// A number a parameter's description labels with words: `1 (urgent)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumberLabel {
    pub number: i64,
    /// The label's words of three letters or more, lowercase.
    pub words: Vec<String>,
}

/// The ASCII digits `text` ends with ("" when it ends with none).
pub fn trailing_digits(text: &str) -> &str {
    let kept = text.trim_end_matches(|c: char| c.is_ascii_digit());
    &text[kept.len()..]
}

/// The numbers a parameter's description labels with words, as in
/// "1 (urgent) to 4 (low)".
pub fn number_labels(description: &str) -> Vec<NumberLabel> {
    let mut labels = Vec::new();
    let mut rest = description;
    while let Some(open) = rest.find('(') {
        let before = rest[..open].trim_end();
        let number = trailing_digits(before);
        // "0.0 (closed) to 1.0 (fully open)" labels a scale's ends, not
        // numbers to choose among.
        let decimal = before[..before.len() - number.len()].ends_with('.');
        let Some(close) = rest[open..].find(')') else {
            break;
        };
        let label = &rest[open + 1..open + close];
        if let Ok(number) = number.parse()
            && !decimal
        {
            let words = label
                .split(|c: char| !c.is_alphanumeric())
                .filter(|word| word.chars().count() >= 3)
                .map(str::to_lowercase)
                .collect::<Vec<_>>();
            if !words.is_empty() {
                labels.push(NumberLabel { number, words });
            }
        }
        rest = &rest[open + close + 1..];
    }
    labels
}

/// The labelled number that `message` names by its label's word ("a low
/// priority ticket" → 4); a Japanese or Chinese message through the
/// glossary's English words. `None` when it names none, or more than one.
pub fn labelled_number(labels: &[NumberLabel], message: &str) -> Option<i64> {
    let text = if message.chars().any(is_cjk) {
        glosses(message)
    } else {
        message.to_lowercase()
    };
    let words: Vec<&str> = text.split(|c: char| !c.is_alphanumeric()).collect();
    let named: Vec<i64> = labels
        .iter()
        .filter(|label| {
            label.words.iter().any(|label| {
                words.iter().any(|word| {
                    word == label || (label.len() >= 4 && word.starts_with(label.as_str()))
                })
            })
        })
        .map(|label| label.number)
        .collect();
    match named.as_slice() {
        [number] => Some(*number),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decimal_scales_ends_are_no_labelled_numbers() {
        let labels = number_labels("a decimal from 0.0 (closed) to 1.0 (fully open)");
        assert!(labels.is_empty());
        assert_eq!(number_labels("1 (urgent) to 4 (low)").len(), 2);
    }

    #[test]
    fn a_span_of_clock_times_gives_both_ends() {
        let span = |message| clock_span_in(message);
        let ends = |start: &str, end: &str| Some((start.to_owned(), end.to_owned()));
        assert_eq!(
            span("Saturday, 6pm to 11pm, two kids"),
            ends("18:00", "23:00")
        );
        assert_eq!(span("Dec 12, 9am-1pm"), ends("09:00", "13:00"));
        assert_eq!(span("from 18:30 until 21:00"), ends("18:30", "21:00"));
        assert_eq!(span("明天下午3点到5点"), ends("15:00", "17:00"));
        assert_eq!(span("from 7pm for 4 hours"), None);
        assert_eq!(span("at 9am, then at 5pm"), None);
        // A bare hour dashed to a time shares its half of the day.
        assert_eq!(span("hall on friday 3-6pm"), ends("15:00", "18:00"));
        assert_eq!(span("the room 11-2pm please"), ends("11:00", "14:00"));
        assert_eq!(span("table for 6 to 11pm"), None);
        assert_eq!(span("on 2026-12-14 at 5pm"), None);
    }

    #[test]
    fn a_description_asks_for_a_clock_time() {
        assert!(wants_clock_time("Start time, HH:MM (24h)"));
        assert!(wants_clock_time("time as hh:mm"));
        assert!(!wants_clock_time("Start time"));
    }

    #[test]
    fn times_are_written_as_hours_and_minutes() {
        let time = |value, message| as_clock_time(value, message);
        assert_eq!(time("10am", "sync tomorrow 10am").as_deref(), Some("10:00"));
        assert_eq!(time("3:30 p.m.", "at 3:30 p.m.").as_deref(), Some("15:30"));
        assert_eq!(time("12am", "at 12am").as_deref(), Some("00:00"));
        assert_eq!(time("9:05", "monday 9:05").as_deref(), Some("09:05"));
        assert_eq!(time("15時半", "明日15時半から").as_deref(), Some("15:30"));
        assert_eq!(time("三点", "明天下午三点开会").as_deref(), Some("15:00"));
        assert_eq!(time("7時", "朝7時に").as_deref(), Some("07:00"));
        assert_eq!(time("8点15分", "上午8点15分").as_deref(), Some("08:15"));
        assert_eq!(
            time("team sync", "team sync at 6pm").as_deref(),
            Some("18:00"),
            "the message's time"
        );
        assert_eq!(time("tomorrow", "lunch tomorrow"), None);
        assert_eq!(time("13pm", "at 13pm"), None);
        assert_eq!(
            time("the morning", "a court at ten in the morning").as_deref(),
            Some("10:00")
        );
    }

    #[test]
    fn every_clock_time_of_a_message_in_order() {
        assert_eq!(
            clock_times_in("at 8am, 2pm and 10pm, starting tomorrow"),
            ["08:00", "14:00", "22:00"]
        );
        assert_eq!(
            clock_times_in("7:30 and nine in the evening"),
            ["07:30", "21:00"]
        );
        assert!(clock_times_in("3 pills a day").is_empty());
        assert_eq!(clock_times_in("取消12月8号早上7点半的车"), ["07:30"]);
        assert_eq!(
            clock_times_in("on the championship tommorow 7.50am"),
            ["07:50"]
        );
        assert_eq!(clock_times_in("next Monday at 7.30pm please"), ["19:30"]);
        assert!(clock_times_in("it costs 7.50 now").is_empty());
    }

    #[test]
    fn labelled_numbers_are_named_by_their_words() {
        let labels = number_labels("1 (urgent) to 4 (low)");
        let label = |number, word: &str| NumberLabel {
            number,
            words: vec![word.to_owned()],
        };
        assert_eq!(labels, [label(1, "urgent"), label(4, "low")]);
        assert_eq!(
            labelled_number(&labels, "open a low priority ticket"),
            Some(4)
        );
        assert_eq!(
            labelled_number(&labels, "Urgently: the site is down"),
            Some(1)
        );
        assert_eq!(labelled_number(&labels, "a ticket for the slowness"), None);
        assert_eq!(labelled_number(&labels, "urgent, but low effort"), None);
        assert!(number_labels("Length in minutes (default 30)").is_empty());
        assert!(number_labels("Discount in percent, e.g. 15").is_empty());
    }
}
