//! Clock times said in words rather than written as one: "ten in the
//! morning", "7 o'clock", "at 7" in a message that names the part of the
//! day ("every morning at 7"), or "at 11" beside the day it falls on
//! ("this Friday at 11", "at 3 tomorrow"), read in working hours. A time
//! written "7pm" or "19:30" is a shape of its own (see [`crate::shapes`]).

use std::ops::Range;

use crate::calendar::{MONTH_NAMES, SHORT_WEEKDAY_NAMES, WEEKDAY_NAMES};

/// What follows an hour to make it a time of day, and the part of the day
/// it puts the hour in (`None`: as said).
const DAY_PART_AFTER: [(&str, Option<DayPart>); 6] = [
    ("in the morning", Some(DayPart::Morning)),
    ("in the afternoon", Some(DayPart::Later)),
    ("in the evening", Some(DayPart::Later)),
    ("at night", Some(DayPart::Later)),
    ("o'clock", None),
    ("o clock", None),
];

/// Words anywhere in a message that say which half of the day its bare
/// hours ("at 7") are in.
const DAY_PART_WORDS: [(&str, DayPart); 12] = [
    ("morning", DayPart::Morning),
    ("mornings", DayPart::Morning),
    ("afternoon", DayPart::Later),
    ("afternoons", DayPart::Later),
    ("evening", DayPart::Later),
    ("evenings", DayPart::Later),
    ("night", DayPart::Later),
    ("nights", DayPart::Later),
    ("tonight", DayPart::Later),
    ("breakfast", DayPart::Morning),
    ("dinner", DayPart::Later),
    ("supper", DayPart::Later),
];

/// Words that name a day beside a weekday's name, so that a bare hour
/// beside them ("tomorrow at 11") is a time on it.
const DAY_WORDS: [&str; 3] = ["today", "tomorrow", "tmrw"];

/// Words before a bare hour that make it a time ("at 7", "after 8").
const HOUR_LEADS: [&str; 5] = ["at", "after", "before", "from", "until"];

/// The hours said as words.
const HOUR_WORDS: [&str; 12] = [
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DayPart {
    Morning,
    /// Afternoon, evening or night: after noon.
    Later,
}

/// Whether `after`, the text right after a number, makes that number an
/// hour of the day ("in the morning", "o'clock"), not a quantity.
pub fn names_time_of_day(after: &str) -> bool {
    let after = after.trim_start().to_lowercase();
    DAY_PART_AFTER
        .iter()
        .any(|(words, _)| after.starts_with(words))
}

/// The clock times `message` says in words, as `HH:MM`, each with where
/// its hour is written.
pub fn spoken_clock_times(message: &str) -> Vec<(Range<usize>, String)> {
    let lower = message.to_lowercase();
    let day_part = lower.split(|c: char| !c.is_alphabetic()).find_map(|word| {
        DAY_PART_WORDS
            .iter()
            .find(|(part_word, _)| *part_word == word)
            .map(|(_, part)| *part)
    });
    let mut times = Vec::new();
    for (bytes, word) in words_of(&lower) {
        let Some(hour) = hour_of(word) else { continue };
        let after = lower[bytes.end..].trim_start();
        let said = DAY_PART_AFTER
            .iter()
            .find(|(words, _)| after.starts_with(words))
            .map(|(_, part)| part.or(day_part));
        let before = lower[..bytes.start].trim_end();
        let lead = HOUR_LEADS.iter().find_map(|lead| {
            before
                .strip_suffix(lead)
                .filter(|rest| !rest.ends_with(char::is_alphanumeric))
        });
        let at_bare_hour = lead.is_some()
            && !after.starts_with([':', '.'])
            && after
                .split(|c: char| !c.is_alphanumeric())
                .next()
                .is_none_or(|next| !matches!(next, "am" | "pm" | "a" | "p"));
        let part = match said {
            Some(part) => part,
            None if at_bare_hour && day_part.is_some() => day_part,
            None if at_bare_hour && beside_a_day(lead.unwrap_or(before), after) => {
                Some(working_hours_part(hour))
            }
            None => continue,
        };
        let hour = match part {
            Some(DayPart::Later) if hour < 12 => hour + 12,
            Some(DayPart::Morning) if hour == 12 => 0,
            _ => hour,
        };
        times.push((bytes, format!("{hour:02}:00")));
    }
    times
}

/// Whether the bare hour of "… at N …" stands beside the day it falls on:
/// `before` (the text before "at") ends with a day's name or a date
/// ("Friday at 11", "the 11th at 3", "11th January at 10"), or `after` (the text after the
/// hour) opens with one ("at 3 tomorrow", "at 11 on Friday").
fn beside_a_day(before: &str, after: &str) -> bool {
    let is_day = |word: &str| {
        DAY_WORDS.contains(&word)
            || WEEKDAY_NAMES.contains(&word)
            || SHORT_WEEKDAY_NAMES.iter().any(|(name, _)| *name == word)
            || MONTH_NAMES.contains(&word)
            || word.len() > 2
                && word[..word.len() - 2].chars().all(|c| c.is_ascii_digit())
                && ["st", "nd", "rd", "th"]
                    .iter()
                    .any(|end| word.ends_with(end))
    };
    let last_before = before
        .split(|c: char| !c.is_alphanumeric())
        .rfind(|word| !word.is_empty());
    let mut next = after
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty());
    let first_after = match next.next() {
        Some("on" | "this" | "next") => next.next(),
        word => word,
    };
    last_before.is_some_and(is_day) || first_after.is_some_and(is_day)
}

/// The half of the day a bare hour of a working day is in: 7 to 11 in
/// the morning, 12 at noon, 1 to 6 after it ("at 3" is 15:00).
fn working_hours_part(hour: u32) -> DayPart {
    match hour {
        7..=11 => DayPart::Morning,
        _ => DayPart::Later,
    }
}

/// The hour `word` names: digits or a word, 1 to 12.
fn hour_of(word: &str) -> Option<u32> {
    let hour = match word.parse::<u32>() {
        Ok(hour) => hour,
        Err(_) => HOUR_WORDS.iter().position(|hour| *hour == word)? as u32 + 1,
    };
    (1..=12).contains(&hour).then_some(hour)
}

/// The words of `text` (letters or digits), each with its bytes.
fn words_of(text: &str) -> impl Iterator<Item = (Range<usize>, &str)> {
    text.split_inclusive(|c: char| !c.is_alphanumeric())
        .scan(0, |at, piece| {
            let start = *at;
            *at += piece.len();
            let word = piece.trim_end_matches(|c: char| !c.is_alphanumeric());
            Some((start..start + word.len(), word))
        })
        .filter(|(_, word)| !word.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn times(message: &str) -> Vec<String> {
        spoken_clock_times(message)
            .into_iter()
            .map(|(_, time)| time)
            .collect()
    }

    #[test]
    fn an_hour_said_with_its_part_of_the_day_is_a_clock_time() {
        assert_eq!(times("a court at ten in the morning?"), ["10:00"]);
        assert_eq!(times("call at 9 in the evening"), ["21:00"]);
        assert_eq!(times("wake me at seven o'clock"), ["07:00"]);
        assert_eq!(times("every morning at 7"), ["07:00"]);
        assert_eq!(times("this evening at 8, and at 10"), ["20:00", "22:00"]);
        assert_eq!(times("at 9 on Friday night"), ["21:00"]);
        assert_eq!(times("saturday morning? after 8 would be good"), ["08:00"]);
    }

    #[test]
    fn a_bare_hour_beside_its_day_is_read_in_working_hours() {
        assert_eq!(times("a video call this Friday at 11?"), ["11:00"]);
        assert_eq!(times("can you come at 3 tomorrow"), ["15:00"]);
        assert_eq!(times("at 12 on Monday"), ["12:00"]);
        assert_eq!(times("Monday 11th January at 10 please"), ["10:00"]);
        assert!(
            times("I live at 11 Mill Lane, free on Friday").is_empty(),
            "no day beside the number"
        );
        assert!(
            times("Friday at 14").is_empty(),
            "no hour of a 12-hour clock"
        );
    }

    #[test]
    fn a_bare_number_is_no_clock_time() {
        assert!(
            times("at 7").is_empty(),
            "which half of the day is not said"
        );
        assert!(times("book 3 rooms this morning").is_empty());
        assert!(
            times("flat 7 this morning").is_empty(),
            "no \"at\" before it"
        );
        assert!(times("at 7pm in the evening").is_empty(), "a written time");
        assert!(times("at 13 in the afternoon").is_empty());
    }

    #[test]
    fn the_words_after_a_number_may_make_it_an_hour() {
        assert!(names_time_of_day(" in the morning, please"));
        assert!(names_time_of_day(" o'clock"));
        assert!(!names_time_of_day(" minutes"));
    }
}
