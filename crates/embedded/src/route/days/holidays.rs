//! Days a message names by a holiday on a fixed date: "Christmas Eve",
//! "New Year's Day", 元旦, クリスマス. Holidays that move (Easter, the
//! lunar new year) are left out: their date is not the same each year.

use chrono::NaiveDate;

use super::{NamedDay, year_meant};

/// Holidays by name, longest first where one holds another, with their
/// month and day.
const HOLIDAYS: &[(&str, u32, u32)] = &[
    ("new year's eve", 12, 31),
    ("new year’s eve", 12, 31),
    ("new years eve", 12, 31),
    ("new year's day", 1, 1),
    ("new year’s day", 1, 1),
    ("new years day", 1, 1),
    ("christmas eve", 12, 24),
    ("christmas day", 12, 25),
    ("boxing day", 12, 26),
    ("christmas", 12, 25),
    ("xmas", 12, 25),
    ("valentine's day", 2, 14),
    ("valentine’s day", 2, 14),
    ("valentines day", 2, 14),
    ("halloween", 10, 31),
    ("クリスマスイブ", 12, 24),
    ("クリスマス・イブ", 12, 24),
    ("クリスマス", 12, 25),
    ("大晦日", 12, 31),
    ("元日", 1, 1),
    ("元旦", 1, 1),
    ("平安夜", 12, 24),
    ("圣诞节", 12, 25),
    ("聖誕節", 12, 25),
    ("圣诞", 12, 25),
    ("聖誕", 12, 25),
    ("情人节", 2, 14),
    ("情人節", 2, 14),
    ("バレンタイン", 2, 14),
    ("跨年夜", 12, 31),
];

/// The holidays `message` names, each on its next date to come (or its
/// last gone when `gone`).
pub(super) fn holidays(message: &str, today: NaiveDate, gone: bool) -> Vec<NamedDay> {
    let lower = message.to_lowercase();
    let mut taken = vec![false; lower.len()];
    let mut found = Vec::new();
    for (name, month, day) in HOLIDAYS {
        for (at, _) in lower.match_indices(name) {
            let bytes = at..at + name.len();
            let spaced = name.is_ascii();
            let edge = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
            if taken[bytes.clone()].contains(&true)
                || spaced
                    && !(edge(lower[..at].chars().next_back())
                        && edge(lower[bytes.end..].chars().next()))
            {
                continue;
            }
            let Some(date) = year_meant(today, gone, |year| {
                NaiveDate::from_ymd_opt(year, *month, *day)
            }) else {
                continue;
            };
            taken[bytes.clone()].fill(true);
            // The bytes are the lowercase text's: the message's where
            // lowercasing kept every length (all but a few letters).
            if lower.len() == message.len() {
                found.push(NamedDay { bytes, date });
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixed_holiday_is_its_next_date() {
        let today = NaiveDate::from_ymd_opt(2026, 12, 5).unwrap();
        let dates = |message: &str| -> Vec<String> {
            holidays(message, today, false)
                .into_iter()
                .map(|day| day.date.to_string())
                .collect()
        };
        assert_eq!(
            dates("How full is the moon on Christmas Eve?"),
            ["2026-12-24"]
        );
        assert_eq!(dates("party on New Year's Day"), ["2027-01-01"]);
        assert_eq!(dates("party on New Year’s Eve"), ["2026-12-31"]);
        assert_eq!(dates("元旦の予定"), ["2027-01-01"]);
        assert!(dates("the christmasy lights").is_empty());
    }
}
