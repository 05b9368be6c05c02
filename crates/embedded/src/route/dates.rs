//! Dates written as a parameter's description asks: a description that
//! writes `YYYY-MM-DD` takes "14 January 2027" as `2027-01-14`, and one
//! that writes `YYYY-MM-DD HH:MM` takes the message's date and clock time
//! together ("on 2027-01-08 at 06:00", 2027年3月1日晚上8点). A date
//! written without its year takes the year of the full date the message
//! writes beside it, as a range writes it once ("from June 12 to June 15,
//! 2027": the start is `2027-06-12`, not the end's date); one the message
//! writes without any year, and a day it names relative to today
//! ("tomorrow", "next Tuesday", 下周二), are read as of today (see
//! [`crate::route::days`]), unless the description offers such words
//! itself ("YYYY-MM-DD, 'today' or a weekday"): its tool reads them.

use chrono::NaiveDate;
use riverse_route::as_clock_time;
use riverse_route::script::is_cjk;
use riverse_route::words::TIME_WORDS;

use crate::route::days::{day_of_value, named_days, named_month};
use crate::route::reach::MONTHS;

/// Whether a parameter's description asks for an ISO date.
pub(crate) fn wants_iso_date(description: &str) -> bool {
    description.to_ascii_uppercase().contains("YYYY-MM-DD")
}

/// `value` as its parameter's description asks (see the module's
/// documentation): the date `value` writes, else the message's first;
/// with the clock time of `value` or the message when the description
/// asks for one. `None` when the message names no date.
pub(crate) fn as_iso_date(
    description: &str,
    value: &str,
    message: &str,
    today: NaiveDate,
    gone: bool,
) -> Option<String> {
    let relative = !offers_day_words(description);
    // A month and day `text` writes, in the year the message writes.
    let in_written_year = |text: &str| {
        let (month, day) = month_day(text)?;
        let year = iso_date(message)
            .map(|date| date[..4].to_owned())
            .or_else(|| lone_year(message).map(|year| year.to_string()))?;
        Some(format!("{year}-{month:02}-{day:02}"))
    };
    let date = iso_date(value)
        .or_else(|| in_written_year(value))
        .or_else(|| day_after(value, &iso_date(message)?))
        .or_else(|| {
            let day = day_of_value(value, message, today, gone).filter(|_| relative)?;
            Some(day.to_string())
        })
        .or_else(|| iso_date(message))
        .or_else(|| in_written_year(message))
        .or_else(|| {
            let day = named_days(message, today, gone)
                .into_iter()
                .next()
                .filter(|_| relative)?;
            Some(day.date.to_string())
        })
        .or_else(|| month_edge(description, value, today))?;
    if !description.to_ascii_uppercase().contains("HH:MM") {
        return Some(date);
    }
    let time = as_clock_time(value, message).or_else(|| {
        // The date's own digits are no clock time: read past it.
        as_clock_time("", message)
    })?;
    Some(format!("{date} {time}"))
}

/// Whether the date parameter `description` describes, of tool `tool`, is
/// the day of something done: its description says so in the past tense
/// ("the day that was missed", "day you volunteered"), or the tool logs or
/// records what was done (`log_hike`). Its weekday or day alone is then
/// the last one gone ("log 3 hours from Thursday").
pub(crate) fn looks_back(tool: &str, description: &str) -> bool {
    let lower = description.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .collect();
    let past = words
        .iter()
        .any(|word| matches!(*word, "was" | "were" | "happened"))
        || words.windows(2).any(|pair| {
            matches!(pair[0], "you" | "i" | "we" | "they")
                && pair[1].len() > 4
                && pair[1].ends_with("ed")
        });
    let logs = ["log_", "record_"]
        .iter()
        .any(|verb| tool.starts_with(verb));
    past || logs
}

/// Short and casual names of days and months that a date may be written
/// by, beside the time words of `data/time_words.txt`.
const DAY_ABBREVIATIONS: [&str; 22] = [
    "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun", "jan", "feb", "mar",
    "apr", "aug", "sep", "sept", "oct", "nov", "dec", "tmrw", "tmr",
];

/// Characters of Chinese and Japanese dates (3日, 12月, 周五, 金曜, 20号).
const CJK_DATE_CHARS: &str = "日月年周週曜号號星";

/// Whether `value` may be the value of a date parameter described by
/// `description`: it writes a number, a word of time (a weekday, a month,
/// "tomorrow", 明日), a name (a holiday: "Boxing Day") or a word the
/// description offers. "ストーブを借りたいです" is no date, and is left
/// for the parameter it serves.
pub(crate) fn may_write_a_date(description: &str, value: &str) -> bool {
    let lower = value.to_lowercase();
    let described = description.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .collect();
    value.chars().any(|c| c.is_numeric() || c.is_uppercase())
        || value.chars().any(|c| CJK_DATE_CHARS.contains(c))
        || words.iter().any(|word| {
            TIME_WORDS.contains(word)
                || DAY_ABBREVIATIONS.contains(word)
                || word.len() >= 3 && described.contains(word)
        })
        || TIME_WORDS
            .entries()
            .iter()
            .any(|term| term.chars().any(is_cjk) && value.contains(term))
}

/// Whether a date parameter's description offers words for days
/// ("'today', 'tomorrow' or a weekday name"): its tool reads them itself.
/// A default ("today if left out", "defaults to today") offers none.
fn offers_day_words(description: &str) -> bool {
    let lower = description.to_lowercase();
    let defaulted = lower.match_indices("today").all(|(at, _)| {
        let before = lower[..at].trim_end();
        let after = lower[at + "today".len()..].trim_start();
        before.ends_with("default")
            || before.ends_with("defaults to")
            || ["if", "when", "by default", "unless"]
                .iter()
                .any(|word| after.starts_with(word))
    });
    ["tomorrow", "weekday"]
        .iter()
        .any(|word| lower.contains(word))
        || lower.contains("today") && !defaulted
}

/// The date a required date parameter takes when the model gave it no
/// value: the one day the message names, if it names exactly one.
pub(crate) fn only_named_date(
    description: &str,
    message: &str,
    today: NaiveDate,
    gone: bool,
) -> Option<String> {
    if offers_day_words(description) {
        return None;
    }
    let days = named_days(message, today, gone);
    let date = match days.as_slice() {
        [day] => Some(day.date.to_string()),
        [] => iso_date(message),
        _ => None,
    }?;
    if !description.to_ascii_uppercase().contains("HH:MM") {
        return Some(date);
    }
    let time = as_clock_time("", message)?;
    Some(format!("{date} {time}"))
}

/// The first full date `text` writes, as `YYYY-MM-DD`: `2027-01-08`,
/// `2027/1/8`, "14 January 2027", "January 14, 2027", "14th of Jan
/// 2027", 2027年3月1日.
pub(crate) fn iso_date(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let tokens = date_tokens(&lower);
    for (at, token) in tokens.iter().enumerate() {
        if let Some(date) = numeric_date(token) {
            return Some(date);
        }
        let Some(month) = month_of(token) else {
            continue;
        };
        let before = at.checked_sub(1).and_then(|i| tokens.get(i));
        let before_of = at.checked_sub(2).and_then(|i| tokens.get(i));
        let after = tokens.get(at + 1);
        let (day, year) = match (
            before.and_then(|t| day_of(t)),
            after.and_then(|t| day_of(t)),
        ) {
            // "14 January 2027", "14th of January 2027"
            (Some(day), _) => (day, after.and_then(|t| year_of(t))),
            (None, Some(day)) => (day, tokens.get(at + 2).and_then(|t| year_of(t))),
            (None, None) if before.is_some_and(|t| *t == "of") => (
                before_of.and_then(|t| day_of(t)).unwrap_or(0),
                after.and_then(|t| year_of(t)),
            ),
            _ => continue,
        };
        if let Some(year) = year
            && (1..=31).contains(&day)
        {
            return Some(format!("{year:04}-{month:02}-{day:02}"));
        }
    }
    cjk_date(text)
}

/// The words of a lowercased text that a date is read from: split at
/// whitespace and commas ("January 14, 2027").
fn date_tokens(lower: &str) -> Vec<&str> {
    lower
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|token| !token.is_empty())
        .collect()
}

/// The month and day of a date `text` writes without its year ("June 12",
/// "the 3rd of May", 5月9日).
pub(super) fn month_day(text: &str) -> Option<(u32, u32)> {
    let lower = text.to_lowercase();
    let tokens = date_tokens(&lower);
    for (at, token) in tokens.iter().enumerate() {
        let Some(month) = month_of(token) else {
            continue;
        };
        let before = at.checked_sub(1).and_then(|i| tokens.get(i));
        let day = before
            .and_then(|t| day_of(t))
            .or_else(|| tokens.get(at + 1).and_then(|t| day_of(t)))
            .or_else(|| {
                let of = before.is_some_and(|t| *t == "of");
                let day = at.checked_sub(2).and_then(|i| tokens.get(i));
                day.filter(|_| of).and_then(|t| day_of(t))
            });
        if let Some(day) = day {
            return Some((month, day));
        }
    }
    let month_at = text.find('月')?;
    let month: u32 = riverse_route::trailing_digits(&text[..month_at])
        .parse()
        .ok()?;
    let rest = &text[month_at + '月'.len_utf8()..];
    let day_end = rest.find(['日', '号'])?;
    let day: u32 = rest[..day_end].parse().ok()?;
    ((1..=12).contains(&month) && (1..=31).contains(&day)).then_some((month, day))
}

/// A value that writes no date read here, kept for a date parameter only
/// when it is written like one ("12/3"), when the parameter is required
/// and the value writes a number (a form of date not read here), or when
/// it is a word the description offers ('today', a weekday); other words
/// are no date ("journal" is no `from_date`, "returned" no `return_by`),
/// and a required date left so leaves the call unmade.
pub(crate) fn no_date_kept(description: &str, value: String) -> Option<String> {
    let lower = description.to_lowercase();
    let optional = lower.contains("optional");
    // A description that offers day words ("'today', 'tomorrow' or a
    // weekday name") takes the day as written.
    let offered = offers_day_words(description)
        || value
            .to_lowercase()
            .split_whitespace()
            .any(|word| word.len() >= 3 && lower.contains(word));
    // A date in a form not read here ("12/3"), not a bare number or an
    // identifier ("8" of "8,900円", "S-77812").
    let date_like = value.chars().any(|c| c.is_ascii_digit())
        && value.contains(['/', '-', '.'])
        && !value.chars().any(char::is_alphabetic);
    // A clock time ("7pm") is the day's hour, no form of its date.
    let numbered = value.chars().any(|c| c.is_ascii_digit())
        && riverse_route::clock_times_in(&value).is_empty();
    (!optional && numbered || offered || date_like).then_some(value)
}

/// Words of a date parameter's description that make it a range's first
/// day, and those that make it its last.
const FIRST_DAY_WORDS: [&str; 5] = ["earliest", "first", "start", "from", "since"];
const LAST_DAY_WORDS: [&str; 4] = ["latest", "last", "end", "until"];

/// A month named alone ("since November") for a date that starts or ends
/// a range, as its description says: the month's first day, or its last.
fn month_edge(description: &str, value: &str, today: NaiveDate) -> Option<String> {
    let lower = description.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .collect();
    let says = |edge: &[&str]| words.iter().any(|word| edge.contains(word));
    let month = named_month(value, today)?;
    let first = NaiveDate::parse_from_str(&format!("{month}-01"), "%Y-%m-%d").ok()?;
    if says(&FIRST_DAY_WORDS) {
        Some(first.to_string())
    } else if says(&LAST_DAY_WORDS) {
        let next = first.checked_add_months(chrono::Months::new(1))?;
        Some(next.pred_opt()?.to_string())
    } else {
        None
    }
}

/// Whether a parameter's description asks for a month as `YYYY-MM`.
pub(crate) fn wants_year_month(description: &str) -> bool {
    let upper = description.to_ascii_uppercase();
    upper.contains("YYYY-MM") && !upper.contains("YYYY-MM-DD")
}

/// The month `value` (or else the message) writes with its year, as
/// `YYYY-MM`: "October 2026", "Oct 2026", `2026-10`, 2026年10月; else the
/// one it names as of today ("last month", "November").
pub(crate) fn as_year_month(value: &str, message: &str, today: NaiveDate) -> Option<String> {
    year_month(value)
        .or_else(|| year_month(message))
        .or_else(|| named_month(value, today))
        .or_else(|| named_month(message, today))
}

fn year_month(text: &str) -> Option<String> {
    if let Some(date) = iso_date(text) {
        return Some(date[..7].to_owned());
    }
    let lower = text.to_lowercase();
    let tokens = date_tokens(&lower);
    for (at, token) in tokens.iter().enumerate() {
        let numeric: Vec<&str> = token
            .trim_matches(|c: char| !c.is_ascii_digit())
            .split(['-', '/'])
            .collect();
        if let [year, month] = numeric.as_slice()
            && year.len() == 4
            && let (Ok(year), Ok(month)) = (year.parse::<u32>(), month.parse::<u32>())
            && (1..=12).contains(&month)
        {
            return Some(format!("{year:04}-{month:02}"));
        }
        let Some(month) = month_of(token) else {
            continue;
        };
        let year = tokens
            .get(at + 1)
            .and_then(|t| year_of(t))
            .or_else(|| at.checked_sub(1).and_then(|i| year_of(tokens[i])));
        if let Some(year) = year {
            return Some(format!("{year:04}-{month:02}"));
        }
    }
    let year_at = text.find('年')?;
    let year: u32 = riverse_route::trailing_digits(&text[..year_at])
        .parse()
        .ok()?;
    let rest = &text[year_at + '年'.len_utf8()..];
    let month: u32 = rest[..rest.find('月')?].parse().ok()?;
    (year >= 1000 && (1..=12).contains(&month)).then(|| format!("{year:04}-{month:02}"))
}

/// A year the message writes alone ("for all of 2024").
pub(super) fn lone_year(message: &str) -> Option<u32> {
    date_tokens(&message.to_lowercase())
        .into_iter()
        .filter_map(|token| {
            let digits = token.trim_matches(|c: char| !c.is_ascii_digit());
            (digits.len() == token.trim_matches(|c: char| c.is_ascii_punctuation()).len())
                .then(|| year_of(digits))
                .flatten()
        })
        .find(|year| (1900..2200).contains(year))
}

/// The date of a day written alone ("the 5th", "5th") in the month of
/// the message's full date `known` (`YYYY-MM-DD`), or the month after
/// when the day is earlier ("in on 3 March 2027, out on the 5th" is
/// `2027-03-05`).
fn day_after(value: &str, known: &str) -> Option<String> {
    let lower = value.to_lowercase();
    let tokens: Vec<&str> = date_tokens(&lower)
        .into_iter()
        .filter(|token| !matches!(*token, "the" | "on" | "of"))
        .collect();
    let [token] = tokens.as_slice() else {
        return None;
    };
    // An ordinal: a bare number is no day.
    if token.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let day = day_of(token)?;
    let year: u32 = known.get(..4)?.parse().ok()?;
    let month: u32 = known.get(5..7)?.parse().ok()?;
    let known_day: u32 = known.get(8..10)?.parse().ok()?;
    let (year, month) = match (day < known_day, month) {
        (false, _) => (year, month),
        (true, 12) => (year + 1, 1),
        (true, _) => (year, month + 1),
    };
    Some(format!("{year:04}-{month:02}-{day:02}"))
}

/// `2027-01-08` or `2027/1/8` (with trailing punctuation).
fn numeric_date(token: &str) -> Option<String> {
    let token = token.trim_matches(|c: char| !c.is_ascii_digit());
    let parts: Vec<&str> = token.split(['-', '/']).collect();
    let [year, month, day] = parts.as_slice() else {
        return None;
    };
    if year.len() != 4 {
        return None;
    }
    let (year, month, day): (u32, u32, u32) =
        (year.parse().ok()?, month.parse().ok()?, day.parse().ok()?);
    ((1..=12).contains(&month) && (1..=31).contains(&day))
        .then(|| format!("{year:04}-{month:02}-{day:02}"))
}

/// A month's number from its name or its first three letters ("jan.").
pub(super) fn month_of(token: &str) -> Option<u32> {
    let word = token.trim_matches(|c: char| !c.is_alphabetic());
    if word.len() < 3 {
        return None;
    }
    MONTHS
        .iter()
        .position(|month| *month == word || (word.len() <= 4 && month.starts_with(word)))
        .map(|index| index as u32 + 1)
}

/// What an English ordinal's digits end with (`1st`, `14th`).
pub(crate) const ORDINAL_SUFFIXES: [&str; 4] = ["st", "nd", "rd", "th"];

/// A day of the month: `14`, `14th`, `1st`.
pub(super) fn day_of(token: &str) -> Option<u32> {
    let digits: String = token.chars().take_while(char::is_ascii_digit).collect();
    let rest = &token[digits.len()..];
    let suffix = rest.trim_end_matches(|c: char| !c.is_alphanumeric());
    let suffix_ok = suffix.is_empty() || ORDINAL_SUFFIXES.contains(&suffix);
    let day: u32 = digits.parse().ok()?;
    (digits.len() <= 2 && suffix_ok && (1..=31).contains(&day)).then_some(day)
}

/// A four-digit year.
pub(super) fn year_of(token: &str) -> Option<u32> {
    let digits = token.trim_matches(|c: char| !c.is_ascii_digit());
    (digits.len() == 4 && digits.chars().all(|c| c.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// 2027年3月1日 (digits only): the first 年 that digits come before
/// (年假 is no year).
fn cjk_date(text: &str) -> Option<String> {
    text.match_indices('年')
        .find_map(|(year_at, _)| cjk_date_at(text, year_at))
}

/// The date whose 年 is at byte `year_at` of `text`.
fn cjk_date_at(text: &str, year_at: usize) -> Option<String> {
    let year = riverse_route::trailing_digits(&text[..year_at]);
    let rest = &text[year_at + '年'.len_utf8()..];
    let month_at = rest.find('月')?;
    let month: u32 = rest[..month_at].parse().ok()?;
    let rest = &rest[month_at + '月'.len_utf8()..];
    let day_end = rest.find(['日', '号'])?;
    let day: u32 = rest[..day_end].parse().ok()?;
    let year: u32 = year.parse().ok()?;
    (year >= 1000 && (1..=12).contains(&month) && (1..=31).contains(&day))
        .then(|| format!("{year:04}-{month:02}-{day:02}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_span_that_may_write_a_date_is_a_dates_value() {
        let day = "day of collection, YYYY-MM-DD";
        for value in [
            "tomorrow",
            "next fri",
            "12月12日",
            "来週の金曜日",
            "周五",
            "Boxing Day",
        ] {
            assert!(may_write_a_date(day, value), "{value}");
        }
        for value in ["ストーブを借りたいです", "the blue tent", "帐篷"] {
            assert!(!may_write_a_date(day, value), "{value}");
        }
        let offered = "'today', 'tomorrow' or 'someday', else YYYY-MM-DD";
        assert!(
            may_write_a_date(offered, "someday"),
            "a word the description offers"
        );
    }

    #[test]
    fn dates_are_written_as_iso_dates() {
        assert_eq!(iso_date("14 January 2027").as_deref(), Some("2027-01-14"));
        assert_eq!(
            iso_date("on January 14, 2027 please").as_deref(),
            Some("2027-01-14")
        );
        assert_eq!(
            iso_date("the 3rd of Feb 2027").as_deref(),
            Some("2027-02-03")
        );
        assert_eq!(iso_date("2027/1/8").as_deref(), Some("2027-01-08"));
        assert_eq!(
            iso_date("2027年3月1日晚上8点").as_deref(),
            Some("2027-03-01")
        );
        assert_eq!(iso_date("14 January"), None, "no year to write");
        assert_eq!(iso_date("may I ask 2 things"), None);
    }

    /// A Saturday.
    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 12, 5).unwrap()
    }

    #[test]
    fn a_date_and_time_description_takes_both() {
        let description = "release date and time, YYYY-MM-DD HH:MM, 24-hour";
        assert_eq!(
            as_iso_date(
                description,
                "06:00",
                "Release episode 55 on 2027-01-08 at 06:00",
                today(),
                false
            )
            .as_deref(),
            Some("2027-01-08 06:00")
        );
        assert_eq!(
            as_iso_date(
                description,
                "20:00",
                "把第56期安排在2027年3月1日晚上8点发布",
                today(),
                false
            )
            .as_deref(),
            Some("2027-03-01 20:00")
        );
        assert_eq!(
            as_iso_date(
                "appointment date, YYYY-MM-DD",
                "14 January 2027",
                "on 14 January 2027",
                today(),
                false
            )
            .as_deref(),
            Some("2027-01-14")
        );
        assert!(wants_iso_date("payment date, YYYY-MM-DD"));
    }

    #[test]
    fn the_day_of_a_doing_is_one_gone() {
        assert!(looks_back(
            "report_missed_pickup",
            "the collection day that was missed"
        ));
        assert!(looks_back("add_hours", "day you volunteered, YYYY-MM-DD"));
        assert!(looks_back("log_hike", "day of the hike, YYYY-MM-DD"));
        assert!(!looks_back("book_visit", "requested day, YYYY-MM-DD"));
        assert!(!looks_back("book_visit", "the day you want, YYYY-MM-DD"));
    }

    #[test]
    fn a_month_alone_is_the_first_or_last_day_of_a_range() {
        let today = NaiveDate::from_ymd_opt(2026, 12, 5).unwrap();
        let since = "optional; earliest date, YYYY-MM-DD";
        let until = "optional; last date to include, YYYY-MM-DD";
        let message = "plays since November";
        assert_eq!(
            as_iso_date(since, "November", message, today, true).as_deref(),
            Some("2026-11-01")
        );
        assert_eq!(
            as_iso_date(until, "November", message, today, true).as_deref(),
            Some("2026-11-30")
        );
        assert_eq!(
            as_iso_date("date played, YYYY-MM-DD", "November", message, today, true),
            None
        );
    }

    #[test]
    fn a_value_without_a_date_is_no_date() {
        let optional = "optional; start date, YYYY-MM-DD";
        assert_eq!(no_date_kept(optional, "日记".into()), None);
        assert_eq!(no_date_kept(optional, "journal".into()), None);
        assert_eq!(no_date_kept(optional, "8".into()), None);
        assert_eq!(no_date_kept(optional, "S-77812".into()), None);
        assert_eq!(
            no_date_kept(optional, "12/3".into()).as_deref(),
            Some("12/3")
        );
        assert_eq!(
            no_date_kept("YYYY-MM-DD, 'today' or 'tomorrow'", "tomorrow".into()).as_deref(),
            Some("tomorrow")
        );
        let required = "start date, YYYY-MM-DD";
        assert_eq!(no_date_kept(required, "journal".into()), None);
        assert_eq!(
            no_date_kept(required, "3 Brumaire".into()).as_deref(),
            Some("3 Brumaire"),
            "a required one that writes a number stays"
        );
        assert_eq!(no_date_kept(required, "7pm".into()), None, "an hour");
    }

    #[test]
    fn a_date_and_time_the_model_left_out_is_the_ones_the_message_names() {
        let description = "optional; pickup time of the ride, YYYY-MM-DD HH:MM";
        let named = |message| only_named_date(description, message, today(), false);
        assert_eq!(
            named("帮我取消12月8号早上7点半的车").as_deref(),
            Some("2026-12-08 07:30")
        );
        assert_eq!(
            named("cancel my ride on Monday at 6pm").as_deref(),
            Some("2026-12-07 18:00")
        );
        assert_eq!(named("cancel my ride on Monday"), None, "no time");
    }

    #[test]
    fn a_default_of_today_offers_no_day_words() {
        assert!(offers_day_words("'today', 'tomorrow' or a weekday name"));
        assert!(offers_day_words("a date, or today"));
        assert!(!offers_day_words(
            "optional; date the money arrived, YYYY-MM-DD; today if left out"
        ));
        assert!(!offers_day_words("day of delivery; defaults to today"));
    }

    #[test]
    fn a_month_is_written_as_its_description_asks() {
        assert!(wants_year_month("the month in YYYY-MM format"));
        assert!(!wants_year_month("date in YYYY-MM-DD format"));
        let month = |value| as_year_month(value, "", today());
        assert_eq!(month("October 2026").as_deref(), Some("2026-10"));
        assert_eq!(month("payslip for oct 2026").as_deref(), Some("2026-10"));
        assert_eq!(month("2026-10").as_deref(), Some("2026-10"));
        assert_eq!(month("2026年10月の給与").as_deref(), Some("2026-10"));
        assert_eq!(month("October").as_deref(), Some("2026-10"), "the one gone");
        assert_eq!(month("next month").as_deref(), Some("2027-01"));
        let described = "start date in YYYY-MM-DD format";
        assert_eq!(
            as_iso_date(
                described,
                "Jan 1",
                "a PDF for all of 2024 (Jan 1 through Dec 31)",
                today(),
                false
            )
            .as_deref(),
            Some("2024-01-01"),
            "a year written alone"
        );
    }

    #[test]
    fn a_day_alone_takes_the_month_of_the_date_beside_it() {
        let message = "book a double, in on 3 March 2027 and out on the 5th";
        let described = "departure date in YYYY-MM-DD format";
        assert_eq!(
            as_iso_date(described, "the 5th", message, today(), false).as_deref(),
            Some("2027-03-05")
        );
        assert_eq!(
            as_iso_date(
                described,
                "2nd",
                "in on 30 December 2027, out on the 2nd",
                today(),
                false
            )
            .as_deref(),
            Some("2028-01-02")
        );
        assert_eq!(
            as_iso_date(
                described,
                "2",
                "a double for 2, in on 3 March 2027 and out on the 5th",
                today(),
                false
            )
            .as_deref(),
            Some("2027-03-03"),
            "a bare number is no day"
        );
    }

    #[test]
    fn a_date_without_its_year_takes_the_year_written_beside_it() {
        let start = "check-in date, YYYY-MM-DD";
        let asked = |value: &str, message: &str| as_iso_date(start, value, message, today(), false);
        let range = "Find me hotels in Lisbon from June 12 to June 15, 2027";
        assert_eq!(asked("June 12", range).as_deref(), Some("2027-06-12"));
        assert_eq!(asked("June 15, 2027", range).as_deref(), Some("2027-06-15"));
        let cjk = "帮我请年假,2027年5月6日到5月9日";
        assert_eq!(asked("5月9日", cjk).as_deref(), Some("2027-05-09"));
        assert_eq!(
            asked("the 3rd of May", "between the 3rd of May and 9 May 2027").as_deref(),
            Some("2027-05-03")
        );
        assert_eq!(
            asked("June 12", "from June 12 to June 15").as_deref(),
            Some("2027-06-12"),
            "no year: the next to come"
        );
        assert_eq!(
            asked("Tuesday", "any openings next Tuesday?").as_deref(),
            Some("2026-12-08")
        );
        let offered = "YYYY-MM-DD, 'today', 'tomorrow' or a weekday name";
        assert_eq!(
            as_iso_date(offered, "tomorrow", "book it for tomorrow", today(), false),
            None,
            "its tool reads the word"
        );
        assert_eq!(month_day("tomorrow"), None);
    }
}
