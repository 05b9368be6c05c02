//! Dates written as a parameter's description asks: a description that
//! writes `YYYY-MM-DD` takes "14 January 2027" as `2027-01-14`, and one
//! that writes `YYYY-MM-DD HH:MM` takes the message's date and clock time
//! together ("on 2027-01-08 at 06:00", 2027年3月1日晚上8点). A date
//! written without its year takes the year of the full date the message
//! writes beside it, as a range writes it once ("from June 12 to June 15,
//! 2027": the start is `2027-06-12`, not the end's date); a message that
//! writes no year leaves it as written: the year is not the message's to
//! guess.

use riverse_route::as_clock_time;

use crate::route::reach::MONTHS;

/// Whether a parameter's description asks for an ISO date.
pub(crate) fn wants_iso_date(description: &str) -> bool {
    description.to_ascii_uppercase().contains("YYYY-MM-DD")
}

/// `value` as its parameter's description asks (see the module's
/// documentation): the date `value` writes, else the message's first;
/// with the clock time of `value` or the message when the description
/// asks for one. `None` when the message writes no full date.
pub(crate) fn as_iso_date(description: &str, value: &str, message: &str) -> Option<String> {
    let date = iso_date(value)
        .or_else(|| {
            let (month, day) = month_day(value)?;
            let year = iso_date(message)?;
            Some(format!("{}-{month:02}-{day:02}", &year[..4]))
        })
        .or_else(|| iso_date(message))?;
    if !description.to_ascii_uppercase().contains("HH:MM") {
        return Some(date);
    }
    let time = as_clock_time(value, message).or_else(|| {
        // The date's own digits are no clock time: read past it.
        as_clock_time("", message)
    })?;
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
fn month_day(text: &str) -> Option<(u32, u32)> {
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
fn month_of(token: &str) -> Option<u32> {
    let word = token.trim_matches(|c: char| !c.is_alphabetic());
    if word.len() < 3 {
        return None;
    }
    MONTHS
        .iter()
        .position(|month| *month == word || (word.len() <= 4 && month.starts_with(word)))
        .map(|index| index as u32 + 1)
}

/// A day of the month: `14`, `14th`, `1st`.
fn day_of(token: &str) -> Option<u32> {
    let digits: String = token.chars().take_while(char::is_ascii_digit).collect();
    let rest = &token[digits.len()..];
    let suffix_ok = matches!(
        rest.trim_end_matches(|c: char| !c.is_alphanumeric()),
        "" | "st" | "nd" | "rd" | "th"
    );
    let day: u32 = digits.parse().ok()?;
    (digits.len() <= 2 && suffix_ok && (1..=31).contains(&day)).then_some(day)
}

/// A four-digit year.
fn year_of(token: &str) -> Option<u32> {
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

    #[test]
    fn a_date_and_time_description_takes_both() {
        let description = "release date and time, YYYY-MM-DD HH:MM, 24-hour";
        assert_eq!(
            as_iso_date(
                description,
                "06:00",
                "Release episode 55 on 2027-01-08 at 06:00"
            )
            .as_deref(),
            Some("2027-01-08 06:00")
        );
        assert_eq!(
            as_iso_date(
                description,
                "20:00",
                "把第56期安排在2027年3月1日晚上8点发布"
            )
            .as_deref(),
            Some("2027-03-01 20:00")
        );
        assert_eq!(
            as_iso_date(
                "appointment date, YYYY-MM-DD",
                "14 January 2027",
                "on 14 January 2027"
            )
            .as_deref(),
            Some("2027-01-14")
        );
        assert!(wants_iso_date("payment date, YYYY-MM-DD"));
    }

    #[test]
    fn a_date_without_its_year_takes_the_year_written_beside_it() {
        let start = "check-in date, YYYY-MM-DD";
        let asked = |value: &str, message: &str| as_iso_date(start, value, message);
        let range = "Find me hotels in Lisbon from June 12 to June 15, 2027";
        assert_eq!(asked("June 12", range).as_deref(), Some("2027-06-12"));
        assert_eq!(asked("June 15, 2027", range).as_deref(), Some("2027-06-15"));
        let cjk = "帮我请年假,2027年5月6日到5月9日";
        assert_eq!(asked("5月9日", cjk).as_deref(), Some("2027-05-09"));
        assert_eq!(
            asked("the 3rd of May", "between the 3rd of May and 9 May 2027").as_deref(),
            Some("2027-05-03")
        );
        assert_eq!(asked("June 12", "from June 12 to June 15"), None, "no year");
        assert_eq!(month_day("tomorrow"), None);
    }
}
