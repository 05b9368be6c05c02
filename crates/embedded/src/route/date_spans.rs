//! A span of days a message writes ("from July 14 to July 25, 2027",
//! 2027年4月1日から4月3日まで, "Jan 1 through Dec 31" of a year written
//! beside it, 3月1日から15日まで): its two ends, each read from its own
//! side of the word that joins them. Read as one date each, both ends
//! would be the first day the message names. Where only one end or two
//! ends apart are written, the word beside each day says which end it is
//! ("starting tomorrow and ending next Saturday", 12月20日から).

use chrono::{Datelike, NaiveDate};

use crate::route::dates::{iso_date, lone_year, month_day};
use riverse_route::numbers_a_thing;
use riverse_route::script::is_cjk;

use crate::route::days::{NamedDay, named_days};

/// What joins the two ends of a span of days.
const SPAN_JOINERS: [&str; 12] = [
    " to ",
    " through ",
    " thru ",
    " until ",
    " till ",
    " - ",
    "–",
    "から",
    "到",
    "至",
    "〜",
    "～",
];

/// How far from the joining word each end may be written, in characters.
const END_REACH: usize = 24;

/// The start and end of the first span of days `message` writes, as
/// `YYYY-MM-DD`, the start before the end; days named relative to
/// `today` ("next Monday to Friday") are dated as of it.
pub(crate) fn date_span(message: &str, today: NaiveDate) -> Option<(String, String)> {
    SPAN_JOINERS.iter().find_map(|joiner| {
        message.match_indices(joiner).find_map(|(at, _)| {
            let before = last_chars(&message[..at], END_REACH);
            let after = first_chars(&message[at + joiner.len()..], END_REACH);
            let start = day_written(before, message, today, End::Last)?;
            let end = day_written(after, message, today, End::First)
                .or_else(|| day_alone(after, &start))?;
            (start < end).then_some((start, end))
        })
    })
}

/// Words written right before a day that make it a span's first day
/// ("starting tomorrow", "from Monday", 从明天), and those that make it
/// its last ("ending next Saturday", "until the 20th", 到周五).
const START_BEFORE: [&str; 12] = [
    "starting",
    "start",
    "starts",
    "from",
    "beginning",
    "begin",
    "begins",
    "since",
    "effective",
    "commencing",
    "从",
    "自",
];
const END_BEFORE: [&str; 11] = [
    "ending",
    "end",
    "ends",
    "until",
    "till",
    "through",
    "thru",
    "finishing",
    "finish",
    "到",
    "至",
];

/// Words written right after a day that make it a span's first day
/// (12月20日から, 明天开始) or its last (金曜日まで, 周五为止).
const START_AFTER: [&str; 3] = ["から", "开始", "起"];
const END_AFTER: [&str; 3] = ["まで", "为止", "结束"];

/// The days `message` marks as a span's first and last by the words
/// beside them ("starting tomorrow and ending next Saturday"), each the
/// first day so marked; days named relative to `today` are dated as of it.
pub(crate) fn marked_ends(message: &str, today: NaiveDate) -> (Option<NamedDay>, Option<NamedDay>) {
    let days = named_days(message, today, false);
    let marked = |before: &[&str], after: &[&str]| {
        days.iter()
            .find(|day| {
                let lead = word_before(&message[..day.bytes.start]);
                let follows = message[day.bytes.end..].trim_start();
                before.contains(&lead.as_str())
                    || after.iter().any(|word| follows.starts_with(word))
            })
            .cloned()
    };
    (
        marked(&START_BEFORE, &START_AFTER),
        marked(&END_BEFORE, &END_AFTER),
    )
}

/// The word `text` ends with, lowercase, passing over "on" and "the"
/// ("starting on Monday", "until the 20th"); a CJK text's last character.
fn word_before(text: &str) -> String {
    let lower = text.to_lowercase();
    let mut rest = lower.trim_end();
    loop {
        if rest.ends_with(is_cjk) {
            return rest
                .chars()
                .next_back()
                .map(String::from)
                .unwrap_or_default();
        }
        let start = rest.rfind(|c: char| !c.is_alphanumeric()).map_or(0, |at| {
            at + rest[at..].chars().next().map_or(1, char::len_utf8)
        });
        let word = &rest[start..];
        if !matches!(word, "on" | "the") || start == 0 {
            return word.to_owned();
        }
        rest = rest[..start].trim_end();
    }
}

/// Which of the days a side of the span names is its end.
#[derive(Clone, Copy)]
enum End {
    First,
    Last,
}

/// The day `text`, one side of a span in `message`, names: a full date,
/// a month and day in the year `message` writes, or a day named as of
/// `today`.
fn day_written(text: &str, message: &str, today: NaiveDate, end: End) -> Option<String> {
    if let Some(date) = iso_date(text) {
        return Some(date);
    }
    if let Some((month, day)) = month_day(text) {
        let year = iso_date(message)
            .and_then(|date| date[..4].parse::<u32>().ok())
            .or_else(|| lone_year(message));
        if let Some(year) = year {
            return Some(format!("{year:04}-{month:02}-{day:02}"));
        }
    }
    let days = named_days(text, today, false);
    let day = match end {
        End::First => days.first(),
        End::Last => days.last(),
    }?;
    Some(day.date.to_string())
}

/// A day of the month written alone at the start of `text` (15日, 15号),
/// in the month of `start`, or the month after when it comes earlier.
fn day_alone(text: &str, start: &str) -> Option<String> {
    let text = text.trim_start();
    let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
    let after = &text[digits.len()..];
    let numbered = after
        .strip_prefix('号')
        .is_some_and(|thing| numbers_a_thing(text, thing));
    if !after.starts_with(['日', '号']) || numbered {
        return None;
    }
    let day: u32 = digits.parse().ok()?;
    let start = NaiveDate::parse_from_str(start, "%Y-%m-%d").ok()?;
    let in_month = |year: i32, month: u32| NaiveDate::from_ymd_opt(year, month, day);
    let date = match in_month(start.year(), start.month()) {
        Some(date) if date > start => date,
        _ if start.month() == 12 => in_month(start.year() + 1, 1)?,
        _ => in_month(start.year(), start.month() + 1)?,
    };
    Some(date.to_string())
}

/// The last `count` characters of `text`.
fn last_chars(text: &str, count: usize) -> &str {
    let from = text
        .char_indices()
        .rev()
        .nth(count.saturating_sub(1))
        .map_or(0, |(at, _)| at);
    &text[from..]
}

/// The first `count` characters of `text`.
fn first_chars(text: &str, count: usize) -> &str {
    let to = text
        .char_indices()
        .nth(count)
        .map_or(text.len(), |(at, _)| at);
    &text[..to]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Saturday.
    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 12, 5).unwrap()
    }

    fn span(message: &str) -> Option<(String, String)> {
        date_span(message, today())
    }

    fn ends(start: &str, end: &str) -> Option<(String, String)> {
        Some((start.to_owned(), end.to_owned()))
    }

    #[test]
    fn both_ends_of_a_span_are_read_each_from_its_side() {
        assert_eq!(
            span("京都のホテルを探してください。2027年4月1日から4月3日まで、3人です。"),
            ends("2027-04-01", "2027-04-03")
        );
        assert_eq!(
            span("2025年3月1日から15日までの乗車履歴を見せてください"),
            ends("2025-03-01", "2025-03-15")
        );
        assert_eq!(
            span("a PDF of my journal for all of 2024 (Jan 1 through Dec 31)"),
            ends("2024-01-01", "2024-12-31")
        );
        assert_eq!(
            span("show entries from 2025-01-01 to 2025-03-31"),
            ends("2025-01-01", "2025-03-31")
        );
        assert_eq!(
            span("Book vacation from July 14 to July 25, 2027"),
            ends("2027-07-14", "2027-07-25")
        );
        assert_eq!(
            span("帮我请年假,2027年5月6日到5月9日"),
            ends("2027-05-06", "2027-05-09")
        );
    }

    #[test]
    fn the_words_beside_a_day_say_which_end_it_is() {
        let dated = |message| {
            let (start, end) = marked_ends(message, today());
            (
                start.map(|day| day.date.to_string()),
                end.map(|day| day.date.to_string()),
            )
        };
        assert_eq!(
            dated("at 8am, starting tomorrow and ending next Saturday."),
            (Some("2026-12-06".into()), Some("2026-12-12".into()))
        );
        assert_eq!(
            dated("starting on Monday"),
            (Some("2026-12-07".into()), None)
        );
        assert_eq!(
            dated("keep it going until the 20th"),
            (None, Some("2026-12-20".into()))
        );
        assert_eq!(dated("12月20日から毎日"), (Some("2026-12-20".into()), None));
        assert_eq!(dated("book it for Friday"), (None, None));
    }

    #[test]
    fn one_day_or_days_out_of_order_are_no_span() {
        assert_eq!(span("move my 2027-03-04 booking to the morning"), None);
        assert_eq!(span("book it for Friday"), None);
        assert_eq!(span("from 2027-03-09 to 2027-03-02"), None);
        assert_eq!(span("我收到了2027年5月6日的账单"), None);
    }
}
