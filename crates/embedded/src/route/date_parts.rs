//! Numbers that are parts of a written date, and so no value of a
//! parameter about anything but time: the day of a month named beside it
//! ("20" of "Dec 20") and a number a Chinese or Japanese date unit follows
//! ("2027" of 2027年3月1日).

use std::ops::Range;

use crate::route::dates::{day_of, month_of};

/// Whether the span `bytes` of `text` is the day of a month named beside
/// it ("20" of "Dec 20", "3rd" of "3rd of March"): part of a date, no
/// record's number or count.
pub(crate) fn day_of_named_month(text: &str, bytes: &Range<usize>) -> bool {
    let lower = text.to_lowercase();
    if lower.get(bytes.clone()).and_then(day_of).is_none() {
        return false;
    }
    let before = lower[..bytes.start].split_whitespace().next_back();
    let mut after = lower[bytes.end..]
        .split_whitespace()
        .skip_while(|word| *word == "of");
    before.is_some_and(|word| month_of(word).is_some())
        || after.next().is_some_and(|word| month_of(word).is_some())
}

/// The units a Chinese or Japanese date or time writes after its numbers
/// (2027年3月1日, 15時30分). Not 点: 3点 is three o'clock in Chinese but
/// three items in Japanese.
const CJK_DATE_UNITS: [char; 7] = ['年', '月', '日', '時', '时', '分', '秒'];

/// Whether the span `bytes` of `text` ends with a number a Chinese or
/// Japanese date or time unit follows ("2027" and "3" of 2027年3月1日,
/// 推迟到2027 before 年): it runs into a date, and is no record's number or
/// count.
pub(crate) fn number_of_cjk_date(text: &str, bytes: &Range<usize>) -> bool {
    let Some(value) = text.get(bytes.clone()) else {
        return false;
    };
    value.ends_with(|c: char| c.is_ascii_digit())
        && text[bytes.end..]
            .chars()
            .next()
            .is_some_and(|unit| CJK_DATE_UNITS.contains(&unit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_day_of_a_named_month_is_part_of_a_date() {
        let span = |text: &str, value: &str| {
            let start = text.find(value).unwrap();
            day_of_named_month(text, &(start..start + value.len()))
        };
        assert!(span("book a kayak lesson on Dec 20 for two", "20"));
        assert!(span("on the 3rd of March", "3rd"));
        assert!(span("from 14 February", "14"));
        assert!(!span("book trip 20 for two", "20"));
        assert!(!span("session 2027 on Dec 20", "2027"));
    }

    #[test]
    fn a_number_before_a_cjk_date_unit_is_part_of_a_date() {
        let span = |text: &str, value: &str| {
            let start = text.find(value).unwrap();
            number_of_cjk_date(text, &(start..start + value.len()))
        };
        let deferral = "想把陪审服务推迟到2027年3月1日";
        assert!(span(deferral, "2027") && span(deferral, "3") && span(deferral, "1"));
        assert!(span(deferral, "推迟到2027"));
        assert!(span("15時30分に来てください", "15"));
        assert!(!span("3189号牛挤了二十四升奶", "3189"));
        assert!(!span("Tシャツを3点注文", "3"));
        assert!(!span("summons 2027 on Dec 20", "2027"));
    }
}
