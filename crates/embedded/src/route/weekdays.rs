//! A list of weekdays for a parameter that takes day names (`days`:
//! "lowercase English day names"): the days a recurring schedule names,
//! its groups spelt out ("weekdays" are Monday to Friday, "weekends"
//! Saturday and Sunday, "Mon-Wed" three days, 平日, 周末, 毎日), written
//! as the parameter's options or description ask.

use chrono::Weekday;
use riverse_route::calendar::{SHORT_WEEKDAY_NAMES, WEEKDAY_NAMES};

const WEEK: [Weekday; 7] = [
    Weekday::Mon,
    Weekday::Tue,
    Weekday::Wed,
    Weekday::Thu,
    Weekday::Fri,
    Weekday::Sat,
    Weekday::Sun,
];

/// The day a full English name names ("monday"), written lowercase.
pub(super) fn weekday_by_full_name(word: &str) -> Option<Weekday> {
    WEEKDAY_NAMES
        .iter()
        .position(|name| *name == word)
        .map(|index| WEEK[index])
}

/// The day a short English name names ("tues"), written lowercase.
pub(super) fn weekday_by_short_name(word: &str) -> Option<Weekday> {
    SHORT_WEEKDAY_NAMES
        .iter()
        .find(|(name, _)| *name == word)
        .map(|(_, index)| WEEK[*index])
}

/// Whether a short day name is an English word too ("I sat down").
pub(super) fn short_name_is_a_word(word: &str) -> bool {
    matches!(word, "sat" | "sun" | "wed")
}

/// Words after which a short name that is also a word names a day.
const LEADS: [&str; 9] = [
    "on", "every", "and", "or", "to", "through", "thru", "till", "until",
];

/// Words between two days that make them a range ("Mon to Wed").
const RANGE_WORDS: [&str; 6] = ["to", "-", "through", "thru", "till", "until"];

/// Chinese and Japanese words for groups of days, and single days.
const CJK_GROUPS: [(&str, &[usize]); 8] = [
    ("平日", &[0, 1, 2, 3, 4]),
    ("工作日", &[0, 1, 2, 3, 4]),
    ("週末", &[5, 6]),
    ("周末", &[5, 6]),
    ("土日", &[5, 6]),
    ("毎日", &[0, 1, 2, 3, 4, 5, 6]),
    ("每天", &[0, 1, 2, 3, 4, 5, 6]),
    ("每日", &[0, 1, 2, 3, 4, 5, 6]),
];

const CJK_DAYS: [(&str, usize); 23] = [
    ("月曜", 0),
    ("火曜", 1),
    ("水曜", 2),
    ("木曜", 3),
    ("金曜", 4),
    ("土曜", 5),
    ("日曜", 6),
    ("周一", 0),
    ("周二", 1),
    ("周三", 2),
    ("周四", 3),
    ("周五", 4),
    ("周六", 5),
    ("周日", 6),
    ("周天", 6),
    ("星期一", 0),
    ("星期二", 1),
    ("星期三", 2),
    ("星期四", 3),
    ("星期五", 4),
    ("星期六", 5),
    ("星期日", 6),
    ("星期天", 6),
];

/// Whether a list parameter described by `description`, with `options`,
/// takes weekdays by name.
pub(super) fn takes_weekdays(description: &str, options: &[String]) -> bool {
    let description = description.to_lowercase();
    let named_days =
        !options.is_empty() && options.iter().all(|option| day_index(option).is_some());
    named_days
        || ["day name", "days of the week", "weekday"]
            .iter()
            .any(|words| description.contains(words))
}

/// The weekdays `message` names, in the week's order, groups and ranges
/// spelt out.
pub(super) fn weekdays_named(message: &str) -> Vec<Weekday> {
    let lower = message.to_lowercase();
    let mut days = [false; 7];
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .flat_map(|word| split_dash(word))
        .filter(|word| !word.is_empty())
        .collect();
    let mut index = 0;
    while index < words.len() {
        let led = index > 0 && LEADS.contains(&words[index - 1]);
        let word = words[index];
        match word {
            "weekday" | "weekdays" => days[..5].fill(true),
            "weekend" | "weekends" => days[5..].fill(true),
            "daily" | "everyday" => days.fill(true),
            "day" if index > 0 && words[index - 1] == "every" => days.fill(true),
            _ => {
                if let Some(first) = day_of_word(word, led) {
                    let last = words
                        .get(index + 1)
                        .filter(|between| RANGE_WORDS.contains(between))
                        .and_then(|_| words.get(index + 2))
                        .and_then(|end| day_of_word(end, true));
                    match last {
                        Some(last) => {
                            let mut day = first;
                            loop {
                                days[day] = true;
                                if day == last {
                                    break;
                                }
                                day = (day + 1) % 7;
                            }
                            index += 2;
                        }
                        None => days[first] = true,
                    }
                }
            }
        }
        index += 1;
    }
    for (group, members) in CJK_GROUPS {
        if message.contains(group) {
            for &day in members {
                days[day] = true;
            }
        }
    }
    for (name, day) in CJK_DAYS {
        if message.contains(name) {
            days[day] = true;
        }
    }
    WEEK.iter()
        .zip(days)
        .filter(|(_, named)| *named)
        .map(|(day, _)| *day)
        .collect()
}

/// `days` as the parameter writes them: each as its option, else its full
/// English name, lowercase where the description asks for that.
pub(super) fn written_as(days: &[Weekday], description: &str, options: &[String]) -> Vec<String> {
    let lowercase = description.to_lowercase().contains("lowercase");
    days.iter()
        .map(|day| {
            let index = day.num_days_from_monday() as usize;
            let full = WEEKDAY_NAMES[index];
            match options
                .iter()
                .find(|option| day_index(option) == Some(index))
            {
                Some(option) => option.clone(),
                None if lowercase => full.to_owned(),
                None => format!("{}{}", full[..1].to_uppercase(), &full[1..]),
            }
        })
        .collect()
}

/// "mon-wed" as "mon", "-", "wed".
fn split_dash(word: &str) -> Vec<&str> {
    match word.split_once('-') {
        Some((start, end)) if !start.is_empty() && !end.is_empty() => vec![start, "-", end],
        _ => vec![word.trim_matches('-')],
    }
}

/// The index of the day `word` names, by its full name (plural too:
/// "mondays") or its short one.
fn day_of_word(word: &str, led: bool) -> Option<usize> {
    let singular = word.strip_suffix('s').unwrap_or(word);
    weekday_by_full_name(word)
        .or_else(|| weekday_by_full_name(singular))
        .or_else(|| weekday_by_short_name(word).filter(|_| led || !short_name_is_a_word(word)))
        .map(|day| day.num_days_from_monday() as usize)
}

/// The index of the day an option names ("monday", "Mon", "tue").
fn day_index(option: &str) -> Option<usize> {
    let lower = option.trim().to_lowercase();
    weekday_by_full_name(&lower)
        .or_else(|| weekday_by_short_name(&lower))
        .map(|day| day.num_days_from_monday() as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn days(message: &str) -> Vec<String> {
        written_as(&weekdays_named(message), "lowercase English day names", &[])
    }

    #[test]
    fn groups_ranges_and_names_are_spelt_out_in_the_weeks_order() {
        assert_eq!(
            days("Set a feeding reminder at 7:30 pm on weekdays"),
            ["monday", "tuesday", "wednesday", "thursday", "friday"]
        );
        assert_eq!(days("weekends only"), ["saturday", "sunday"]);
        assert_eq!(days("Mon-Wed at 9"), ["monday", "tuesday", "wednesday"]);
        assert_eq!(days("fridays and mondays"), ["monday", "friday"]);
        assert_eq!(
            days("from Friday to Sunday"),
            ["friday", "saturday", "sunday"]
        );
        assert_eq!(days("on sat and sun"), ["saturday", "sunday"]);
        assert_eq!(days("I sat down"), Vec::<String>::new());
        assert_eq!(
            days("平日の朝7時"),
            ["monday", "tuesday", "wednesday", "thursday", "friday"]
        );
        assert_eq!(days("每周一和周三"), ["monday", "wednesday"]);
    }

    #[test]
    fn days_are_written_as_the_options_or_description_ask() {
        let options = vec!["Mon".to_owned(), "Tue".to_owned(), "Wed".to_owned()];
        assert!(takes_weekdays("one or more of: Mon, Tue, Wed", &options));
        assert!(takes_weekdays("optional; lowercase English day names", &[]));
        assert!(!takes_weekdays("names of the players", &[]));
        assert_eq!(written_as(&[Weekday::Tue], "", &options), ["Tue"]);
        assert_eq!(written_as(&[Weekday::Tue], "days", &[]), ["Tuesday"]);
    }
}
