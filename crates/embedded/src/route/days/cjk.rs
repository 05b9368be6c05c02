//! Days a Chinese or Japanese message names: 明天, 下周二, 这周五,
//! 来週の水曜日, 金曜日, 12月20日, 26号.

use chrono::{NaiveDate, Weekday};
use riverse_route::numbers_a_thing;

use super::{NamedDay, RELATIVE_DAYS, Shift, add_days, day_in_month, on_weekday, year_meant};

/// The days a Chinese or Japanese message names.
pub(super) fn cjk_days(message: &str, today: NaiveDate, gone: bool) -> Vec<NamedDay> {
    let mut found = Vec::new();
    let mut at = 0;
    while at < message.len() {
        let rest = &message[at..];
        match cjk_day_at(message, at, today, gone) {
            Some((date, len)) => {
                found.push(NamedDay {
                    bytes: at..at + len,
                    date,
                });
                at += len;
            }
            None => at += rest.chars().next().map_or(1, char::len_utf8),
        }
    }
    found
}

/// Words before a weekday that say which week it is in.
const CJK_WEEKS: &[(&str, i64)] = &[
    ("下下周", 2),
    ("下下星期", 2),
    ("再来週", 2),
    ("下个星期", 1),
    ("下個星期", 1),
    ("下星期", 1),
    ("下礼拜", 1),
    ("下禮拜", 1),
    ("下周", 1),
    ("下週", 1),
    ("来週", 1),
    ("這個星期", 0),
    ("这个星期", 0),
    ("这星期", 0),
    ("这周", 0),
    ("這週", 0),
    ("本周", 0),
    ("本週", 0),
    ("今週", 0),
    ("上个星期", -1),
    ("上個星期", -1),
    ("上星期", -1),
    ("上礼拜", -1),
    ("上周", -1),
    ("上週", -1),
    ("先週", -1),
];

/// The day a Chinese or Japanese text names at byte `at`, and its length.
fn cjk_day_at(
    message: &str,
    at: usize,
    today: NaiveDate,
    gone: bool,
) -> Option<(NaiveDate, usize)> {
    let rest = &message[at..];
    if let Some((phrase, offset)) = RELATIVE_DAYS
        .iter()
        .find(|(phrase, _)| !phrase.is_ascii() && rest.starts_with(phrase))
    {
        return Some((add_days(today, *offset)?, phrase.len()));
    }
    if let Some((date, len)) = cjk_month_day(message, at, today, gone) {
        return Some((date, len));
    }
    let week = CJK_WEEKS.iter().find(|(words, _)| rest.starts_with(words));
    if let Some((words, weeks)) = week {
        let mut after = &rest[words.len()..];
        let mut len = words.len();
        for joiner in ["的", "の"] {
            if let Some(stripped) = after.strip_prefix(joiner) {
                after = stripped;
                len += joiner.len();
            }
        }
        // 下周二: the week's word ends in 周 and the day follows.
        let week_word = words.ends_with(['周', '週', '拜']) || words.ends_with("星期");
        let day = weekday_digit(after)
            .filter(|_| week_word)
            .or_else(|| cjk_weekday(after));
        let (weekday, day_len) = day?;
        return Some((
            on_weekday(today, weekday, Shift::Week(*weeks)),
            len + day_len,
        ));
    }
    let (weekday, len) = cjk_weekday(rest)?;
    let shift = if gone { Shift::Gone } else { Shift::After };
    Some((on_weekday(today, weekday, shift), len))
}

/// A weekday written in full: 周二, 星期二, 礼拜二, 水曜日, 水曜.
fn cjk_weekday(text: &str) -> Option<(Weekday, usize)> {
    for lead in ["星期", "礼拜", "禮拜", "周", "週"] {
        if let Some(after) = text.strip_prefix(lead)
            && let Some((day, len)) = weekday_digit(after)
        {
            return Some((day, lead.len() + len));
        }
    }
    let days = [
        ('月', Weekday::Mon),
        ('火', Weekday::Tue),
        ('水', Weekday::Wed),
        ('木', Weekday::Thu),
        ('金', Weekday::Fri),
        ('土', Weekday::Sat),
        ('日', Weekday::Sun),
    ];
    let first = text.chars().next()?;
    let (_, day) = days.iter().find(|(c, _)| *c == first)?;
    let after = &text[first.len_utf8()..];
    let suffix = ["曜日", "曜"].into_iter().find(|s| after.starts_with(s))?;
    Some((*day, first.len_utf8() + suffix.len()))
}

/// The day a Chinese week writes after 周 or 星期: 一 to 六, 日 or 天.
fn weekday_digit(text: &str) -> Option<(Weekday, usize)> {
    let days = [
        ('一', Weekday::Mon),
        ('二', Weekday::Tue),
        ('三', Weekday::Wed),
        ('四', Weekday::Thu),
        ('五', Weekday::Fri),
        ('六', Weekday::Sat),
        ('日', Weekday::Sun),
        ('天', Weekday::Sun),
    ];
    let first = text.chars().next()?;
    days.iter()
        .find(|(c, _)| *c == first)
        .map(|(_, day)| (*day, first.len_utf8()))
}

/// 12月20日 or 12月20号 written without a year, at byte `at` (where its
/// digits start), the one meant as of today (see [`year_meant`]); 20号
/// alone is the next 20th to come (3号电梯 is no day: see
/// [`numbers_a_thing`]).
fn cjk_month_day(
    message: &str,
    at: usize,
    today: NaiveDate,
    gone: bool,
) -> Option<(NaiveDate, usize)> {
    let before = message[..at].chars().next_back();
    if before.is_some_and(|c| c.is_ascii_digit() || c == '年' || c == '月') {
        return None;
    }
    let rest = &message[at..];
    let first_digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    if first_digits.is_empty() || first_digits.len() > 2 {
        return None;
    }
    let after = &rest[first_digits.len()..];
    let number: u32 = first_digits.parse().ok()?;
    if let Some(after_month) = after.strip_prefix('月') {
        let day_digits: String = after_month
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        let tail = &after_month[day_digits.len()..];
        let suffix = ["日", "号", "號"]
            .into_iter()
            .find(|s| tail.starts_with(s))?;
        let day: u32 = day_digits.parse().ok()?;
        let date = year_meant(today, gone, |year| {
            NaiveDate::from_ymd_opt(year, number, day)
        })?;
        let len = first_digits.len() + '月'.len_utf8() + day_digits.len() + suffix.len();
        return Some((date, len));
    }
    let suffix = ["号", "號"].into_iter().find(|s| after.starts_with(s))?;
    if numbers_a_thing(message, &after[suffix.len()..]) {
        return None;
    }
    Some((
        day_in_month(today, number, gone)?,
        first_digits.len() + suffix.len(),
    ))
}

#[cfg(test)]
mod tests {
    use crate::route::days::tests::day;

    #[test]
    fn weeks_written_in_chinese_and_japanese() {
        assert_eq!(day("下周二放学").as_deref(), Some("2026-12-08"));
        assert_eq!(day("这周五").as_deref(), Some("2026-12-04"));
        assert_eq!(day("上星期一").as_deref(), Some("2026-11-23"));
        assert_eq!(day("来週の水曜日").as_deref(), Some("2026-12-09"));
        assert_eq!(day("金曜日に").as_deref(), Some("2026-12-11"));
        assert_eq!(day("周末有空"), None);
    }
}
