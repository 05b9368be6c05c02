//! The numbers a message contains, where they are and how JSON writes them.

use std::ops::Range;

use crate::script::{has_kana, is_cjk};

/// A number written in the message.
#[derive(Debug, Clone, PartialEq)]
pub struct NumberSpan {
    pub bytes: Range<usize>,
    /// As JSON writes it: ASCII digits, `-`, `.`.
    pub text: String,
    pub is_integer: bool,
}

/// What a number and 号 name when a thing follows them: 3号电梯 is lift
/// No. 3, 2号機 unit No. 2, 10号楼 building No. 10. Before other words
/// (20号上午, 26号入住) 号 marks a day of the month, in Chinese.
const NUMBERED_THINGS: &str = "机機楼樓栋棟线線房室间間桌台车車窗柜櫃位座床店馆館厅廳场場站仓倉库庫箱船舱艙区區池缸炉爐梯电電";

/// Whether the 号 (or 號) that `after` follows numbers a thing, not a
/// day: a thing it numbers follows it (机, 楼, 房…), or `text` is Japanese
/// (it has kana), which writes a day with 日.
pub fn numbers_a_thing(text: &str, after: &str) -> bool {
    has_kana(text)
        || after
            .chars()
            .next()
            .is_some_and(|c| NUMBERED_THINGS.contains(c))
}

/// Every number in `message`, in order; full-width digits (１０) count.
/// Digits inside a word (B12, mp3) or after a hyphen that follows one
/// (TR-8812, OBS-5521) are part of a name, not a number; after an
/// ideograph (華氏100度) they are a number.
pub fn numbers(message: &str) -> Vec<NumberSpan> {
    let chars: Vec<(usize, char)> = message.char_indices().collect();
    let mut found = Vec::new();
    let mut index = 0;
    while index < chars.len() {
        if digit(chars[index].1).is_none() {
            index += 1;
        } else if index > 0 && chars[index - 1].1.is_ascii_alphabetic() {
            index = word_end(&chars, index);
        } else if index > 1 && chars[index - 1].1 == '-' && chars[index - 2].1.is_ascii_alphabetic()
        {
            index = token_end(&chars, index);
        } else {
            let (number, end) = read_number(message, &chars, index);
            found.push(number);
            index = end;
        }
    }
    found
}

/// An ASCII or full-width digit, as ASCII.
fn digit(c: char) -> Option<char> {
    match c {
        '0'..='9' => Some(c),
        '０'..='９' => char::from_u32(c as u32 - '０' as u32 + '0' as u32),
        _ => None,
    }
}

/// The value of a Chinese numeral character (一 is 1, 十 is 10, 两 is 2).
pub(crate) fn cjk_numeral(c: char) -> Option<u32> {
    "零一二三四五六七八九"
        .find(c)
        .map(|at| (at / '一'.len_utf8()) as u32)
        .or(match c {
            '两' => Some(2),
            '十' => Some(10),
            _ => None,
        })
}

/// A number below a hundred written in Chinese numerals: 四, 十二, 二十三.
pub fn cjk_number(text: &str) -> Option<u32> {
    let values: Vec<u32> = text.chars().map(cjk_numeral).collect::<Option<_>>()?;
    match values.as_slice() {
        [] => None,
        [unit] => Some(*unit),
        [10, unit] if *unit < 10 => Some(10 + unit),
        [tens, 10] if (2..10).contains(tens) => Some(tens * 10),
        [tens, 10, unit] if (2..10).contains(tens) && (1..10).contains(unit) => {
            Some(tens * 10 + unit)
        }
        _ => None,
    }
}

/// The index after the token that `index` is in: alphanumeric runs joined
/// by `.`, `-` or `_` ("release-2.4", "TR-8812-B").
fn token_end(chars: &[(usize, char)], mut index: usize) -> usize {
    loop {
        index = word_end(chars, index);
        let joined = chars
            .get(index)
            .is_some_and(|&(_, c)| matches!(c, '.' | '-' | '_'))
            && chars
                .get(index + 1)
                .is_some_and(|&(_, next)| next.is_alphanumeric());
        if !joined {
            return index;
        }
        index += 1;
    }
}

/// The index after the alphanumeric run that `index` is in. An ideograph
/// or kana ends it: CJK text writes no space after a name ("DL5KLMと21").
fn word_end(chars: &[(usize, char)], mut index: usize) -> usize {
    while index < chars.len() && chars[index].1.is_alphanumeric() && !is_cjk(chars[index].1) {
        index += 1;
    }
    index
}

/// The number whose first digit is `chars[index]`, with a minus sign just
/// before it that follows no word, and the index after it.
fn read_number(message: &str, chars: &[(usize, char)], mut index: usize) -> (NumberSpan, usize) {
    let negative = index > 0
        && matches!(chars[index - 1].1, '-' | '−' | '－')
        && (index < 2 || !chars[index - 2].1.is_alphanumeric());
    let start = if negative {
        chars[index - 1].0
    } else {
        chars[index].0
    };
    let mut text = String::from(if negative { "-" } else { "" });
    let mut is_integer = true;
    while index < chars.len() {
        let c = chars[index].1;
        if let Some(d) = digit(c) {
            text.push(d);
        } else if is_integer && is_decimal_point(chars, index) {
            text.push('.');
            is_integer = false;
        } else if is_integer && is_thousands_separator(chars, index) {
            // Part of the number, not of the JSON.
        } else {
            break;
        }
        index += 1;
    }
    let end = chars.get(index).map_or(message.len(), |&(at, _)| at);
    let number = NumberSpan {
        bytes: start..end,
        text,
        is_integer,
    };
    (number, index)
}

/// A point (ASCII or full-width) followed by a digit.
fn is_decimal_point(chars: &[(usize, char)], index: usize) -> bool {
    matches!(chars[index].1, '.' | '．')
        && chars
            .get(index + 1)
            .is_some_and(|&(_, next)| digit(next).is_some())
}

/// A comma followed by exactly three digits (1,000).
fn is_thousands_separator(chars: &[(usize, char)], index: usize) -> bool {
    chars[index].1 == ','
        && chars
            .get(index + 1..index + 4)
            .is_some_and(|group| group.iter().all(|&(_, g)| digit(g).is_some()))
        && chars
            .get(index + 4)
            .is_none_or(|&(_, after)| digit(after).is_none())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn numbers_are_found_with_signs_decimals_and_full_width_digits() {
        let found: Vec<(String, bool)> =
            numbers("Convert -40 F, 2.5 kg, １０ km and 1,000 m; room B12, job TR-8812, release-2.4; 華氏100度")
                .into_iter()
                .map(|n| (n.text, n.is_integer))
                .collect();
        assert_eq!(
            found,
            [
                ("-40".to_owned(), true),
                ("2.5".to_owned(), false),
                ("10".to_owned(), true),
                ("1000".to_owned(), true),
                ("100".to_owned(), true),
            ]
        );
    }

    #[test]
    fn a_name_ends_where_cjk_text_follows_it() {
        let found: Vec<String> = numbers("DL5KLMと21.205MHzで")
            .into_iter()
            .map(|n| n.text)
            .collect();
        assert_eq!(found, ["21.205"]);
    }

    #[test]
    fn chinese_numerals_below_a_hundred_are_read() {
        for (text, value) in [
            ("四", 4),
            ("十", 10),
            ("十二", 12),
            ("二十", 20),
            ("两", 2),
            ("二十三", 23),
        ] {
            assert_eq!(cjk_number(text), Some(value), "{text}");
        }
        for text in ["", "十十", "一十十", "一二三四", "点"] {
            assert_eq!(cjk_number(text), None, "{text}");
        }
    }

    #[test]
    fn number_spans_cover_the_written_text() {
        let message = "about 3.5 miles";
        let span = &numbers(message)[0];
        assert_eq!(&message[span.bytes.clone()], "3.5");
    }
}
