//! Days a message names relative to today: "tomorrow", "next Tuesday",
//! "the 10th", "Dec 27" (a date written without its year), "in 3 days",
//! 明天, 下周二, 来週の水曜日, 12月20日, and fixed holidays ("Christmas
//! Eve", 元旦).
//!
//! A weekday on its own is the next one to come ("Friday"), or the last
//! one gone in a message that looks back ("since Monday", "it was skipped
//! on Thursday"); "next Tuesday" is the Tuesday of next week (weeks start
//! on Monday), "last Thursday" the latest before today. A day of the month
//! alone is the next one to come, or the last one gone in a message that
//! looks back. A month and day without a year are the next to come, unless
//! that is most of a year away ("Jan 8" in December is next January's;
//! "November 1st" in December is last month's).

use std::ops::Range;

use chrono::{Datelike, Days, Months, NaiveDate, Weekday};

use crate::route::dates::{day_of, month_of, year_of};
use crate::route::weekdays::{weekday_by_full_name, weekday_by_short_name};

mod cjk;
mod holidays;

/// A day a message names, and where.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NamedDay {
    pub bytes: Range<usize>,
    pub date: NaiveDate,
}

/// Every day `message` names, in order, as of `today`; `gone` when the
/// day sought is one gone whatever the message says (the day of a doing a
/// tool logs).
pub(crate) fn named_days(message: &str, today: NaiveDate, gone: bool) -> Vec<NamedDay> {
    let mut found = english_days(message, today, gone);
    found.extend(cjk::cjk_days(message, today, gone));
    found.extend(holidays::holidays(message, today, gone));
    found.sort_by_key(|day| day.bytes.start);
    found
}

/// Whether `value` is a day named and nothing else ("next Friday",
/// 来週水曜日の), as of `today`.
pub(crate) fn names_only_a_day(value: &str, today: NaiveDate) -> bool {
    let value =
        value.trim_end_matches(|c: char| !c.is_alphanumeric() || "のにはでから".contains(c));
    let value = value.trim();
    named_days(value, today, false)
        .iter()
        .any(|day| day.bytes.start == 0 && day.bytes.end >= value.len())
}

/// The day `value` names as `message` writes it: the named day of the
/// message that `value` is part of ("Tuesday" of "next Tuesday"), else
/// the one `value` names alone.
pub(crate) fn day_of_value(
    value: &str,
    message: &str,
    today: NaiveDate,
    gone: bool,
) -> Option<NaiveDate> {
    let value = value.trim();
    if value.is_empty() {
        return None;
    }
    let days = named_days(message, today, gone);
    let within = find_ignoring_case(message, value).and_then(|at| {
        let span = at..at + value.len();
        days.iter()
            .find(|day| day.bytes.start < span.end && span.start < day.bytes.end)
    });
    within
        .map(|day| day.date)
        .or_else(|| named_days(value, today, gone).first().map(|day| day.date))
}

/// The month `text` names relative to `today` ("this month", "last
/// month", 上个月, 来月, or a month's name alone, as [`year_meant`]), as
/// `YYYY-MM`.
pub(crate) fn named_month(text: &str, today: NaiveDate) -> Option<String> {
    let lower = text.to_lowercase();
    let shift = RELATIVE_MONTHS
        .iter()
        .find(|(words, _)| lower.contains(words))
        .map(|(_, shift)| *shift);
    let first = today.with_day(1)?;
    let month = match shift {
        Some(shift) => shift_months(first, shift)?,
        None => {
            let tokens = words(&lower);
            let month = tokens
                .iter()
                .find_map(|token| month_of(&token.text))
                .or_else(|| cjk_month(&lower))?;
            year_meant(today, false, |year| NaiveDate::from_ymd_opt(year, month, 1))?
        }
    };
    Some(format!("{:04}-{:02}", month.year(), month.month()))
}

/// The month a Chinese or Japanese text names by its number (2月,
/// 十二月, "来年2月の開催日").
fn cjk_month(text: &str) -> Option<u32> {
    text.match_indices('月').find_map(|(at, _)| {
        let before = &text[..at];
        let digits = riverse_route::trailing_digits(before);
        let month = match digits.is_empty() {
            false => digits.parse().ok()?,
            true => {
                let numerals: String = before
                    .chars()
                    .rev()
                    .take_while(|c| "一二三四五六七八九十".contains(*c))
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect();
                riverse_route::cjk_number(&numerals)?
            }
        };
        (1..=12).contains(&month).then_some(month)
    })
}

/// Words that name a month by its distance from this one.
const RELATIVE_MONTHS: &[(&str, i32)] = &[
    ("this month", 0),
    ("last month", -1),
    ("previous month", -1),
    ("next month", 1),
    ("本月", 0),
    ("这个月", 0),
    ("這個月", 0),
    ("上个月", -1),
    ("上個月", -1),
    ("下个月", 1),
    ("下個月", 1),
    ("今月", 0),
    ("先月", -1),
    ("来月", 1),
];

/// Words that name a day by its distance from today, longest first where
/// one holds another.
const RELATIVE_DAYS: &[(&str, i64)] = &[
    ("the day after tomorrow", 2),
    ("day after tomorrow", 2),
    ("the day before yesterday", -2),
    ("day before yesterday", -2),
    ("today", 0),
    ("tonight", 0),
    ("tonite", 0),
    ("this morning", 0),
    ("this afternoon", 0),
    ("this evening", 0),
    ("tomorrow", 1),
    ("tomorow", 1),
    ("tommorow", 1),
    ("tmrw", 1),
    ("tmr", 1),
    ("yesterday", -1),
    ("大后天", 3),
    ("大後天", 3),
    ("明後日", 2),
    ("あさって", 2),
    ("后天", 2),
    ("後天", 2),
    ("明天", 1),
    ("明日", 1),
    ("あした", 1),
    ("今天", 0),
    ("今日", 0),
    ("本日", 0),
    ("きょう", 0),
    ("今晚", 0),
    ("今晩", 0),
    ("今夜", 0),
    ("一昨日", -2),
    ("おととい", -2),
    ("前天", -2),
    ("昨天", -1),
    ("昨日", -1),
    ("きのう", -1),
];

/// Words of a message that mean it looks back at days gone.
const LOOKING_BACK: &[&str] = &[
    "was", "were", "wasn't", "weren't", "did", "didn't", "had", "hadn't", "ago",
];

/// A lowercase word of a message and where it is.
struct Word {
    text: String,
    bytes: Range<usize>,
}

/// The words of `text`: letters and digits, with an apostrophe inside
/// ("wasn't").
fn words(text: &str) -> Vec<Word> {
    let mut found: Vec<Word> = Vec::new();
    let mut start: Option<usize> = None;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (index, &(at, c)) in chars.iter().enumerate() {
        let inner_apostrophe = matches!(c, '\'' | '’')
            && start.is_some()
            && chars
                .get(index + 1)
                .is_some_and(|(_, next)| next.is_alphabetic());
        let part = c.is_ascii_alphanumeric() || inner_apostrophe;
        match (part, start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                found.push(word(text, from..at));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(from) = start {
        found.push(word(text, from..text.len()));
    }
    found
}

/// A word, lowercase, without a possessive's "'s" ("today's").
fn word(text: &str, bytes: Range<usize>) -> Word {
    let lower = text[bytes.clone()].to_lowercase().replace('’', "'");
    let text = match lower.strip_suffix("'s") {
        Some(owner) => owner.to_owned(),
        None => lower,
    };
    Word { text, bytes }
}

/// The days an English message names.
fn english_days(message: &str, today: NaiveDate, gone: bool) -> Vec<NamedDay> {
    let words = words(message);
    let back = gone
        || words
            .iter()
            .any(|word| LOOKING_BACK.contains(&word.text.as_str()));
    let mut found: Vec<NamedDay> = Vec::new();
    let mut at = 0;
    while at < words.len() {
        let known = found.last().map(|day| day.date);
        match english_day_at(&words, at, back, today, known) {
            Some((date, end)) => {
                found.push(NamedDay {
                    bytes: words[at].bytes.start..words[end - 1].bytes.end,
                    date,
                });
                at = end;
            }
            None => at += 1,
        }
    }
    found
}

/// The day the words from `at` name, and the index after them; a day of
/// the month alone follows the day named before it (`known`): "from Dec
/// 27 to the 30th".
fn english_day_at(
    words: &[Word],
    at: usize,
    back: bool,
    today: NaiveDate,
    known: Option<NaiveDate>,
) -> Option<(NaiveDate, usize)> {
    let of_month = |day: u32| match known {
        Some(known) => day_in_month(known, day, false),
        None => day_in_month(today, day, back),
    };
    let text = |index: usize| words.get(index).map_or("", |word| word.text.as_str());
    if let Some((date, end)) = relative_words(words, at, today) {
        return Some((date, end));
    }
    if let Some(found) = counted_days(words, at, today) {
        return Some(found);
    }
    if let Some(found) = month_and_day(words, at, back, today) {
        return Some(found);
    }
    let modifier = text(at);
    let (shift, weekday_at) = match modifier {
        "next" => (Shift::NextWeek, at + 1),
        "this" | "coming" => (Shift::Coming, at + 1),
        "last" | "past" => (Shift::Gone, at + 1),
        "since" => (Shift::Gone, at + 1),
        _ => (if back { Shift::Gone } else { Shift::After }, at),
    };
    // "this coming Friday", "this past Monday"
    let (shift, weekday_at) = match (modifier, text(weekday_at)) {
        ("this", "coming") => (Shift::Coming, weekday_at + 1),
        ("this", "past") => (Shift::Gone, weekday_at + 1),
        _ => (shift, weekday_at),
    };
    let led = weekday_at > at
        || at
            .checked_sub(1)
            .is_some_and(|before| WEEKDAY_LEADS.contains(&text(before)))
        || timed(text(weekday_at + 1), text(weekday_at + 2));
    if let Some(weekday) = weekday_of(text(weekday_at), led) {
        // A date beside the weekday says which ("Tuesday the 8th", "Wed
        // Dec 16").
        let mut next = weekday_at + 1;
        if text(next) == "the" {
            next += 1;
        }
        if let Some((date, end)) = month_and_day(words, next, back, today) {
            return Some((date, end));
        }
        if let Some(day) = ordinal_day(text(next)) {
            return Some((of_month(day)?, next + 1));
        }
        let mut end = weekday_at + 1;
        // "Tuesday next week"
        let shift = if text(end) == "next" && text(end + 1) == "week" {
            end += 2;
            Shift::NextWeek
        } else {
            shift
        };
        return Some((on_weekday(today, weekday, shift), end));
    }
    // "the 10th", "on the 9th"
    let day_at = if text(at) == "the" { at + 1 } else { at };
    if let Some(found) = month_and_day(words, day_at, back, today) {
        return Some(found);
    }
    let lead = if day_at > at {
        "the"
    } else {
        at.checked_sub(1).map_or("", text)
    };
    if let Some(day) = ordinal_day(text(day_at))
        && DAY_LEADS.contains(&lead)
        && !followed_by_noun(words, day_at)
    {
        return Some((of_month(day)?, day_at + 1));
    }
    None
}

/// Words before a weekday's short name that make it one ("on Sat").
const WEEKDAY_LEADS: &[&str] = &[
    "on", "by", "until", "till", "from", "for", "every", "and", "or", "to",
];

/// Whether `word` (and `next`), after a weekday's short name, is a time
/// of that day ("wed 7pm", "thurs 18:30", "sat morning"): it makes the
/// name a day's.
fn timed(word: &str, next: &str) -> bool {
    let digits = |text: &str, most: usize| {
        (1..=most).contains(&text.len()) && text.chars().all(|c| c.is_ascii_digit())
    };
    let meridiem = word.starts_with(|c: char| c.is_ascii_digit())
        && (word.ends_with("am") || word.ends_with("pm"));
    let clock = word.contains(':') || digits(word, 2) && next.len() == 2 && digits(next, 2);
    meridiem || clock || ["morning", "afternoon", "evening", "night", "noon"].contains(&word)
}

/// Words before an ordinal that make it a day of the month ("the 10th").
const DAY_LEADS: &[&str] = &["the", "on", "by", "until", "till", "from", "since", "to"];

/// Words after an ordinal day that still leave it a day ("the 10th at
/// noon"), where another word makes it something else ("the 3rd grade").
const AFTER_DAY: &[&str] = &[
    "at", "for", "to", "and", "or", "from", "until", "till", "through", "thru", "in", "with",
    "please", "pls", "so", "because", "if", "then", "instead", "by", "around", "before", "after",
    "as", "but", "is", "was", "when", "of",
];

/// Whether the word after an ordinal is a noun it counts ("3rd grade").
fn followed_by_noun(words: &[Word], at: usize) -> bool {
    let Some(next) = words.get(at + 1) else {
        return false;
    };
    // Punctuation between the two ends the day ("the 10th, 3pm").
    let joined = next.bytes.start == words[at].bytes.end + 1;
    joined
        && next.text.chars().all(char::is_alphabetic)
        && !AFTER_DAY.contains(&next.text.as_str())
        && month_of(&next.text).is_none()
        && next.text != "am"
        && next.text != "pm"
}

/// "today", "tomorrow", "the day after tomorrow" from word `at`.
fn relative_words(words: &[Word], at: usize, today: NaiveDate) -> Option<(NaiveDate, usize)> {
    RELATIVE_DAYS
        .iter()
        .filter(|(phrase, _)| phrase.is_ascii())
        .find_map(|(phrase, offset)| {
            let parts: Vec<&str> = phrase.split(' ').collect();
            let matches = parts
                .iter()
                .enumerate()
                .all(|(index, part)| words.get(at + index).is_some_and(|w| w.text == *part));
            matches.then(|| (add_days(today, *offset), at + parts.len()))
        })
        .and_then(|(date, end)| Some((date?, end)))
}

/// "in 3 days", "in two weeks", "a week from today", "5 days ago" from
/// word `at`.
fn counted_days(words: &[Word], at: usize, today: NaiveDate) -> Option<(NaiveDate, usize)> {
    let text = |index: usize| words.get(index).map_or("", |word| word.text.as_str());
    let (count_at, ahead) = match text(at) {
        "in" => (at + 1, true),
        _ => (at, false),
    };
    let count = count_of(text(count_at))?;
    let days = match text(count_at + 1) {
        "day" | "days" => count,
        "week" | "weeks" => count * 7,
        _ => return None,
    };
    if ahead {
        return Some((add_days(today, days)?, count_at + 2));
    }
    match (text(count_at + 2), text(count_at + 3)) {
        ("ago", _) => Some((add_days(today, -days)?, count_at + 3)),
        ("from", "today" | "now") => Some((add_days(today, days)?, count_at + 4)),
        _ => None,
    }
}

/// A count written in digits or words ("3", "two", "a").
fn count_of(word: &str) -> Option<i64> {
    if let Ok(count) = word.parse::<i64>() {
        return (1..=400).contains(&count).then_some(count);
    }
    if matches!(word, "a" | "an") {
        return Some(1);
    }
    let spelled = riverse_route::spelled_numbers(word);
    let [number] = spelled.as_slice() else {
        return None;
    };
    (number.bytes == (0..word.len()))
        .then(|| number.text.parse().ok())
        .flatten()
}

/// A month's name beside a day ("Dec 27", "27 December", "the 3rd of
/// May"), with the year written after it if any, from word `at`.
fn month_and_day(
    words: &[Word],
    at: usize,
    back: bool,
    today: NaiveDate,
) -> Option<(NaiveDate, usize)> {
    let text = |index: usize| words.get(index).map_or("", |word| word.text.as_str());
    let (month, day, mut end) = if let Some(month) = month_of(text(at)) {
        let day = day_of(text(at + 1))?;
        (month, day, at + 2)
    } else {
        let day = day_of(text(at))?;
        let of = usize::from(text(at + 1) == "of");
        let month = month_of(text(at + 1 + of))?;
        (month, day, at + 2 + of)
    };
    let year = year_of(text(end)).filter(|year| (1900..2200).contains(year));
    let date = match year {
        Some(year) => {
            end += 1;
            NaiveDate::from_ymd_opt(year as i32, month, day)?
        }
        None => year_meant(today, back, |year| {
            NaiveDate::from_ymd_opt(year, month, day)
        })?,
    };
    Some((date, end))
}

/// A day of the month written as an ordinal ("10th"), not a bare number.
fn ordinal_day(word: &str) -> Option<u32> {
    let ordinal = word.chars().any(|c| c.is_ascii_alphabetic());
    day_of(word).filter(|_| ordinal)
}

/// A weekday by its name; by its short name ("sat", "wed") only where a
/// word before makes it one (`led`): "I sat down" names none.
fn weekday_of(word: &str, led: bool) -> Option<Weekday> {
    weekday_by_full_name(word).or_else(|| weekday_by_short_name(word).filter(|_| led))
}

/// Which of a weekday's days is meant.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Shift {
    /// The next one after today ("Friday").
    After,
    /// The next one, today included ("this Friday").
    Coming,
    /// That day of next week ("next Tuesday", 下周二).
    NextWeek,
    /// That day of the week `n` weeks from this one (这周五 is 0, 上周五
    /// -1).
    Week(i64),
    /// The latest one before today ("last Thursday").
    Gone,
}

/// The day of `weekday` that `shift` means, as of `today`.
fn on_weekday(today: NaiveDate, weekday: Weekday, shift: Shift) -> NaiveDate {
    let ahead = (7 + weekday.num_days_from_monday() as i64
        - today.weekday().num_days_from_monday() as i64)
        % 7;
    let offset = match shift {
        Shift::After if ahead == 0 => 7,
        Shift::After | Shift::Coming => ahead,
        Shift::NextWeek => week_day_offset(today, weekday, 1),
        Shift::Week(weeks) => week_day_offset(today, weekday, weeks),
        Shift::Gone if ahead == 0 => -7,
        Shift::Gone => ahead - 7,
    };
    add_days(today, offset).unwrap_or(today)
}

/// Days from `today` to `weekday` of the week `weeks` from this one.
fn week_day_offset(today: NaiveDate, weekday: Weekday, weeks: i64) -> i64 {
    weeks * 7 + weekday.num_days_from_monday() as i64
        - today.weekday().num_days_from_monday() as i64
}

/// The date of day `day` of `today`'s month or the next one to come, or
/// of its month or the last one gone when the message looks `back`.
fn day_in_month(today: NaiveDate, day: u32, back: bool) -> Option<NaiveDate> {
    let first = today.with_day(1)?;
    let steps: [i32; 3] = if back { [0, -1, -2] } else { [0, 1, 2] };
    steps.iter().find_map(|&step| {
        let month = shift_months(first, step)?;
        let date = month.with_day(day)?;
        let fits = if back { date <= today } else { date >= today };
        fits.then_some(date)
    })
}

/// How far ahead a date written without its year may be and still be
/// this coming one: beyond it, the one gone is meant ("November 1st" in
/// December).
const AHEAD_DAYS: i64 = 240;

/// The date `make` gives for last year, this year or next that is meant
/// as of `today`: the next to come, unless it is more than
/// [`AHEAD_DAYS`] away or the message looks `back`, when it is the last
/// one gone.
fn year_meant(
    today: NaiveDate,
    back: bool,
    make: impl Fn(i32) -> Option<NaiveDate>,
) -> Option<NaiveDate> {
    let dates: Vec<NaiveDate> = [today.year() - 1, today.year(), today.year() + 1]
        .into_iter()
        .filter_map(make)
        .collect();
    let coming = dates.iter().find(|date| **date >= today).copied();
    let gone = dates.iter().rev().find(|date| **date < today).copied();
    match (coming, gone) {
        (Some(coming), Some(gone)) if back || (coming - today).num_days() > AHEAD_DAYS => {
            Some(gone)
        }
        (Some(coming), _) => Some(coming),
        (None, gone) => gone,
    }
}

fn shift_months(date: NaiveDate, months: i32) -> Option<NaiveDate> {
    match months {
        0 => Some(date),
        ahead if ahead > 0 => date.checked_add_months(Months::new(ahead as u32)),
        back => date.checked_sub_months(Months::new(back.unsigned_abs())),
    }
}

fn add_days(date: NaiveDate, days: i64) -> Option<NaiveDate> {
    match days {
        ahead if ahead >= 0 => date.checked_add_days(Days::new(ahead as u64)),
        back => date.checked_sub_days(Days::new(back.unsigned_abs())),
    }
}

/// Where `needle` is in `haystack`, matched as written or, for ASCII
/// letters, in either case.
fn find_ignoring_case(haystack: &str, needle: &str) -> Option<usize> {
    haystack.find(needle).or_else(|| {
        let lower = haystack.to_ascii_lowercase();
        lower.find(&needle.to_ascii_lowercase())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Saturday.
    pub(super) fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 12, 5).unwrap()
    }

    /// The first day `text` names as of [`today`].
    pub(super) fn day(text: &str) -> Option<String> {
        named_days(text, today(), false)
            .first()
            .map(|day| day.date.to_string())
    }

    #[test]
    fn a_day_alone_is_told_from_a_value_that_names_one() {
        assert!(names_only_a_day("来週水曜日", today()));
        assert!(names_only_a_day("next Friday", today()));
        assert!(names_only_a_day("tomorrow", today()));
        assert!(!names_only_a_day("Friday night lights", today()));
        assert!(!names_only_a_day("the Tuesday group", today()));
    }

    #[test]
    fn days_named_by_their_distance_from_today() {
        assert_eq!(
            day("Book it for tomorrow at 10").as_deref(),
            Some("2026-12-06")
        );
        assert_eq!(day("pay for today's visit").as_deref(), Some("2026-12-05"));
        assert_eq!(day("the day after tomorrow").as_deref(), Some("2026-12-07"));
        assert_eq!(day("in 3 days").as_deref(), Some("2026-12-08"));
        assert_eq!(day("in two weeks").as_deref(), Some("2026-12-19"));
        assert_eq!(day("5 days ago").as_deref(), Some("2026-11-30"));
        assert_eq!(
            day("any shifts a week from today?").as_deref(),
            Some("2026-12-12")
        );
        assert_eq!(day("明天下午两点").as_deref(), Some("2026-12-06"));
        assert_eq!(day("明後日の予約").as_deref(), Some("2026-12-07"));
        assert_eq!(day("昨天的记录").as_deref(), Some("2026-12-04"));
    }

    #[test]
    fn a_weekday_is_the_next_to_come_unless_the_message_looks_back() {
        assert_eq!(day("on Friday at 3pm").as_deref(), Some("2026-12-11"));
        assert_eq!(day("next Tuesday").as_deref(), Some("2026-12-08"));
        assert_eq!(day("this Saturday").as_deref(), Some("2026-12-05"));
        assert_eq!(day("Saturday").as_deref(), Some("2026-12-12"));
        assert_eq!(day("last Thursday").as_deref(), Some("2026-12-03"));
        assert_eq!(
            day("the bin wasn't emptied on Monday").as_deref(),
            Some("2026-11-30")
        );
        assert_eq!(day("since Wednesday").as_deref(), Some("2026-12-02"));
        assert_eq!(day("Friday next week").as_deref(), Some("2026-12-11"));
        assert_eq!(day("Tuesday the 8th").as_deref(), Some("2026-12-08"));
        assert_eq!(day("on sat").as_deref(), Some("2026-12-12"));
        assert_eq!(day("I sat down"), None);
        assert_eq!(day("lead climbing wed 7pm").as_deref(), Some("2026-12-09"));
        assert_eq!(day("squash thurs 18:30").as_deref(), Some("2026-12-10"));
        assert_eq!(day("I sat 3 exams"), None);
    }

    #[test]
    fn a_date_without_its_year_is_the_next_unless_most_of_a_year_away() {
        assert_eq!(
            day("from Dec 27 for 3 nights").as_deref(),
            Some("2026-12-27")
        );
        assert_eq!(day("arriving jan 8").as_deref(), Some("2027-01-08"));
        assert_eq!(day("since November 1st").as_deref(), Some("2026-11-01"));
        assert_eq!(day("the 3rd of March").as_deref(), Some("2027-03-03"));
        assert_eq!(day("12月20日下午").as_deref(), Some("2026-12-20"));
        assert_eq!(day("1月15日から2泊").as_deref(), Some("2027-01-15"));
        assert_eq!(day("14 January 2025").as_deref(), Some("2025-01-14"));
        assert_eq!(day("from June 12").as_deref(), Some("2027-06-12"));
        assert_eq!(
            day("it was skipped on dec 3").as_deref(),
            Some("2026-12-03")
        );
        assert_eq!(day("2027年3月1日"), None);
    }

    #[test]
    fn a_day_of_the_month_alone_is_the_next_to_come() {
        assert_eq!(
            day("cancel the pickup on the 10th").as_deref(),
            Some("2026-12-10")
        );
        assert_eq!(day("on the 2nd").as_deref(), Some("2027-01-02"));
        assert_eq!(day("it was late on the 2nd").as_deref(), Some("2026-12-02"));
        assert_eq!(day("26号入住").as_deref(), Some("2026-12-26"));
        let range = named_days("from Jan 27 to the 2nd", today(), false);
        assert_eq!(range[1].date.to_string(), "2027-02-02");
        assert_eq!(day("my son is in the 3rd grade"), None);
        assert_eq!(day("the 3rd bottle"), None);
    }

    #[test]
    fn a_value_takes_the_day_of_the_words_it_is_part_of() {
        let message = "Any openings for a cut next Tuesday with Marco?";
        assert_eq!(
            day_of_value("Tuesday", message, today(), false).map(|d| d.to_string()),
            Some("2026-12-08".into())
        );
        assert_eq!(
            day_of_value("12", "列出我从12月1日以来的停车记录", today(), false)
                .map(|d| d.to_string()),
            Some("2026-12-01".into())
        );
        assert_eq!(day_of_value("Marco", message, today(), false), None);
        assert_eq!(
            day_of_value("thursday", "log 3.5 hours from thursday", today(), true)
                .map(|d| d.to_string()),
            Some("2026-12-03".into()),
            "the day of a doing logged is gone"
        );
    }

    #[test]
    fn months_named_by_their_distance_from_this_one() {
        assert_eq!(
            named_month("last month", today()).as_deref(),
            Some("2026-11")
        );
        assert_eq!(named_month("下个月", today()).as_deref(), Some("2027-01"));
        assert_eq!(
            named_month("hours in November", today()).as_deref(),
            Some("2026-11")
        );
        assert_eq!(
            named_month("in February", today()).as_deref(),
            Some("2027-02")
        );
    }
}
