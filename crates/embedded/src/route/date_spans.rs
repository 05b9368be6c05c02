//! A span of days a message writes ("from July 14 to July 25, 2027",
//! 2027年4月1日から4月3日まで, "Jan 1 through Dec 31" of a year written
//! beside it, 3月1日から15日まで): its two ends, each read from its own
//! side of the word that joins them. Read as one date each, both ends
//! would be the first day the message names.

use chrono::{Datelike, NaiveDate};

use crate::route::dates::{iso_date, lone_year, month_day};
use crate::route::days::named_days;

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
    if !text[digits.len()..].starts_with(['日', '号']) {
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
    fn one_day_or_days_out_of_order_are_no_span() {
        assert_eq!(span("move my 2027-03-04 booking to the morning"), None);
        assert_eq!(span("book it for Friday"), None);
        assert_eq!(span("from 2027-03-09 to 2027-03-02"), None);
        assert_eq!(span("我收到了2027年5月6日的账单"), None);
    }
}
