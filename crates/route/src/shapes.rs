//! Tokens of a distinctive shape: paths, URLs, email addresses, clock
//! times, quoted text and arithmetic expressions. Each is one value whole
//! (a path is not cut at its dot), and a tool whose manifest writes one of
//! the same shape is the likely tool for a message that has one.

use std::collections::BTreeSet;
use std::ops::Range;

use riverse_tool::ToolManifest;

use crate::arithmetic::extend_expression;
use crate::formats::wants_clock_time;
use crate::numbers::{cjk_numeral, numbers};
use crate::runs::runs;
use crate::script::is_cjk;

/// A kind of distinctive token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Shape {
    /// `notes/todo.txt`, `/etc/hosts`, `C:\temp\log.txt`, `memo.txt`.
    Path,
    /// `https://example.com/x`, `www.example.com`.
    Url,
    /// `bob@example.com`.
    Email,
    /// `6pm`, `9:30`, `15時`, `8点`.
    ClockTime,
    /// Text between quotation marks: `'good morning'`, `「猫」`.
    Quoted,
    /// Numbers joined by operators or arithmetic words: `12*(3+4)`,
    /// `88 times 12`.
    Expression,
}

/// A shaped token of a message: its bytes and shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shaped {
    pub bytes: Range<usize>,
    pub shape: Shape,
}

/// Every shaped token of `text`, in no particular order. Quoted text spans
/// the text inside the quotes.
pub fn shaped_tokens(text: &str) -> Vec<Shaped> {
    let mut found = Vec::new();
    for token in plain_tokens(text) {
        if let Some(shape) = token_shape(&text[token.clone()]) {
            found.push(Shaped {
                bytes: token,
                shape,
            });
        }
    }
    found.extend(clock_times(text));
    found.extend(quoted(text));
    found.extend(expressions(text));
    found
}

/// The shapes a tool's manifest writes in its parameter descriptions and
/// examples, quotes left out (a quoted example is how people write any
/// text, not a sign of one tool), and a clock time where a parameter asks
/// for `HH:MM`.
pub fn tool_shapes(tool: &ToolManifest) -> BTreeSet<Shape> {
    let written = tool
        .parameters
        .values()
        .chain(&tool.examples)
        .flat_map(|text| shaped_tokens(text))
        .map(|shaped| shaped.shape)
        .filter(|&shape| shape != Shape::Quoted);
    // A parameter that asks for `HH:MM` takes a clock time, however the
    // message writes it ("at 10:30 am").
    let asked = tool
        .parameters
        .values()
        .filter(|description| wants_clock_time(description))
        .map(|_| Shape::ClockTime);
    written.chain(asked).collect()
}

/// Runs of ASCII non-space characters (CJK text and spaces end them), less
/// sentence punctuation at either end.
fn plain_tokens(text: &str) -> Vec<Range<usize>> {
    runs(text, |_, c| c.is_ascii() && !c.is_ascii_whitespace())
        .into_iter()
        .map(|token| trim_punctuation(text, token))
        .filter(|token| !token.is_empty())
        .collect()
}

fn trim_punctuation(text: &str, mut range: Range<usize>) -> Range<usize> {
    let bytes = text.as_bytes();
    while range.start < range.end && b"(\"'<[".contains(&bytes[range.start]) {
        range.start += 1;
    }
    while range.start < range.end && b".,;:!?)\"'>]".contains(&bytes[range.end - 1]) {
        range.end -= 1;
    }
    range
}

/// The shape of one space-free token, if it has one.
fn token_shape(token: &str) -> Option<Shape> {
    let lower = token.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") || lower.starts_with("www.") {
        return Some(Shape::Url);
    }
    if let Some((user, host)) = token.split_once('@')
        && !user.is_empty()
        && host.contains('.')
        && !host.ends_with('.')
    {
        return Some(Shape::Email);
    }
    let has_letter = token.chars().any(|c| c.is_ascii_alphabetic());
    let separators = token.matches(['/', '\\']).count();
    let rooted = token.starts_with(['/', '~']) || token.get(1..3) == Some(":\\");
    let (stem, extension) = token.rsplit_once('.').unwrap_or((token, ""));
    if separators > 0 && has_letter && !token.contains("//") {
        let last = token.rsplit(['/', '\\']).next().unwrap_or("");
        if rooted || separators >= 2 || last.contains('.') {
            return Some(Shape::Path);
        }
    }
    let extension_like = (1..=5).contains(&extension.len())
        && extension.chars().all(|c| c.is_ascii_alphanumeric())
        && extension.chars().any(|c| c.is_ascii_alphabetic());
    let abbreviation = stem.chars().count() <= 1 && extension.len() <= 1;
    // "7.50am" is a time: digits, a dot, digits again.
    let numeric = stem.chars().all(|c| c.is_ascii_digit())
        && extension.starts_with(|c: char| c.is_ascii_digit());
    let stem_like = !abbreviation
        && !stem.is_empty()
        && stem
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.~".contains(c))
        && stem.chars().any(|c| c.is_ascii_alphanumeric());
    (extension_like && stem_like && !numeric && !stem.ends_with('.')).then_some(Shape::Path)
}

/// What follows the hour of a clock time written in Latin letters.
pub(crate) const CLOCK_SUFFIXES: [&str; 4] = ["a.m.", "p.m.", "am", "pm"];

/// Clock times: a number of at most two digits with `am`/`pm`, `h:mm`, or
/// followed by 時 or 点 (15時, 8点); `h.mm` with `am`/`pm` or after "at"
/// ("7.50am", "at 7.30"); Chinese numerals with 点 (四点).
fn clock_times(text: &str) -> Vec<Shaped> {
    let mut found = cjk_numeral_times(text);
    for number in numbers(text) {
        let digits = number.text.trim_start_matches('-');
        let dotted = is_dotted_clock(digits);
        if !dotted && (digits.contains('.') || digits.len() > 2) {
            continue;
        }
        let rest = &text[number.bytes.end..];
        let minutes = rest
            .strip_prefix(':')
            .filter(|after| {
                after.len() >= 2 && after.as_bytes()[..2].iter().all(u8::is_ascii_digit)
            })
            .map_or(0, |_| 3);
        let after = &rest[minutes..];
        let spaced = after.strip_prefix(' ').unwrap_or(after);
        let gap = after.len() - spaced.len();
        let lower = spaced.to_ascii_lowercase();
        let suffix = CLOCK_SUFFIXES
            .into_iter()
            .find(|suffix| {
                lower.starts_with(suffix)
                    && !lower[suffix.len()..]
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_ascii_alphanumeric())
            })
            .map(|suffix| gap + suffix.len())
            .or_else(|| {
                ["時", "点"]
                    .into_iter()
                    .find(|s| after.starts_with(s) && !after[s.len()..].starts_with('間'))
                    .map(str::len)
            });
        let length = match suffix {
            Some(length) => minutes + length,
            None if minutes > 0 => minutes,
            None if dotted && after_at(&text[..number.bytes.start]) => 0,
            None => continue,
        };
        found.push(Shaped {
            bytes: number.bytes.start..number.bytes.end + length,
            shape: Shape::ClockTime,
        });
    }
    found
}

/// Whether `digits` write an hour and its minutes with a dot ("7.50",
/// "19.30"): an hour to 23, then two digits under 60.
fn is_dotted_clock(digits: &str) -> bool {
    let Some((hour, minute)) = digits.split_once('.') else {
        return false;
    };
    let all_digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    all_digits(hour)
        && hour.len() <= 2
        && minute.len() == 2
        && all_digits(minute)
        && hour.parse::<u32>().is_ok_and(|hour| hour < 24)
        && minute.parse::<u32>().is_ok_and(|minute| minute < 60)
}

/// Whether `before` ends with the word "at" ("… at 7.30").
fn after_at(before: &str) -> bool {
    before
        .trim_end()
        .strip_suffix("at")
        .is_some_and(|rest| !rest.ends_with(|c: char| c.is_alphanumeric()))
}

/// Chinese numerals followed by 点 or 时 (四点, 十二点).
fn cjk_numeral_times(text: &str) -> Vec<Shaped> {
    let mut found = Vec::new();
    let mut start: Option<usize> = None;
    for (at, c) in text.char_indices() {
        if cjk_numeral(c).is_some() {
            start.get_or_insert(at);
            continue;
        }
        if let Some(from) = start.take()
            && matches!(c, '点' | '时' | '時')
        {
            found.push(Shaped {
                bytes: from..at + c.len_utf8(),
                shape: Shape::ClockTime,
            });
        }
    }
    found
}

/// Quotation marks, each with its closing mark.
pub const QUOTE_PAIRS: [(char, char); 7] = [
    ('\'', '\''),
    ('"', '"'),
    ('「', '」'),
    ('『', '』'),
    ('“', '”'),
    ('‘', '’'),
    ('《', '》'),
];

/// Pairs of quotation marks and the text between them. An ASCII quote opens
/// only after a space, a bracket or the start, and closes only before a
/// non-letter, so the apostrophe of "what's" is neither.
fn quoted(text: &str) -> Vec<Shaped> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut found = Vec::new();
    for (index, &(at, c)) in chars.iter().enumerate() {
        let Some(&(_, close)) = QUOTE_PAIRS.iter().find(|(open, _)| *open == c) else {
            continue;
        };
        let ascii = c.is_ascii();
        let before = index.checked_sub(1).map(|i| chars[i].1);
        if ascii
            && before.is_some_and(|b| {
                b.is_alphanumeric() || (!b.is_whitespace() && !"([".contains(b) && !is_cjk(b))
            })
        {
            continue;
        }
        let inner = at + c.len_utf8();
        let closing = chars[index + 1..]
            .iter()
            .enumerate()
            .find(|(offset, (_, d))| {
                *d == close
                    && (!ascii
                        || chars
                            .get(index + 2 + offset)
                            .is_none_or(|(_, after)| !after.is_alphanumeric() || is_cjk(*after)))
            });
        if let Some((_, &(end, _))) = closing
            && end > inner
            && !text[inner..end].trim().is_empty()
        {
            found.push(Shaped {
                bytes: inner..end,
                shape: Shape::Quoted,
            });
        }
    }
    found
}

/// Arithmetic expressions: a number widened over operators and arithmetic
/// words to the whole expression, when that joins at least two numbers.
fn expressions(text: &str) -> Vec<Shaped> {
    let numbers = numbers(text);
    let mut found: Vec<Shaped> = Vec::new();
    for number in &numbers {
        let span = extend_expression(text, number.bytes.clone(), &[]);
        let joined = numbers
            .iter()
            .filter(|other| span.start <= other.bytes.start && other.bytes.end <= span.end)
            .count();
        if joined >= 2 && !found.iter().any(|shaped| shaped.bytes == span) {
            found.push(Shaped {
                bytes: span,
                shape: Shape::Expression,
            });
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shapes(text: &str) -> Vec<(&str, Shape)> {
        let mut found: Vec<(&str, Shape)> = shaped_tokens(text)
            .into_iter()
            .map(|shaped| (&text[shaped.bytes], shaped.shape))
            .collect();
        found.sort();
        found
    }

    #[test]
    fn paths_urls_and_addresses_are_whole_tokens() {
        assert_eq!(
            shapes("Please open /var/log/syslog."),
            [("/var/log/syslog", Shape::Path)]
        );
        assert_eq!(shapes("Read notes.md for me"), [("notes.md", Shape::Path)]);
        assert_eq!(shapes("memo.txtを開いて"), [("memo.txt", Shape::Path)]);
        assert_eq!(
            shapes(r"Show me C:\temp\log.txt"),
            [(r"C:\temp\log.txt", Shape::Path)]
        );
        assert_eq!(
            shapes("see https://example.com/a?b=1 now"),
            [("https://example.com/a?b=1", Shape::Url)]
        );
        assert_eq!(
            shapes("mail bob@example.com"),
            [("bob@example.com", Shape::Email)]
        );
        assert_eq!(shapes("It is 3.5 km. Done."), [], "a decimal is no file");
        assert_eq!(shapes("60 km/h in mph"), [], "a unit is no path");
    }

    #[test]
    fn clock_times_take_their_suffix() {
        assert_eq!(shapes("call mom at 6pm"), [("6pm", Shape::ClockTime)]);
        assert_eq!(shapes("at 9:30 tomorrow"), [("9:30", Shape::ClockTime)]);
        assert_eq!(shapes("at 7 p.m. please"), [("7 p.m.", Shape::ClockTime)]);
        assert_eq!(shapes("tee off 7.50am"), [("7.50am", Shape::ClockTime)]);
        assert_eq!(
            shapes("Monday at 7.30 please"),
            [("7.30", Shape::ClockTime)]
        );
        assert_ne!(shapes("it costs 7.50 now"), [("7.50", Shape::ClockTime)]);
        assert_eq!(shapes("夜7時に"), [("7時", Shape::ClockTime)]);
        assert_eq!(shapes("in 30 minutes"), [], "a duration is no clock time");
        assert_eq!(shapes("3時間後"), [], "nor is 3時間");
        assert_eq!(shapes("提醒我下午四点开会"), [("四点", Shape::ClockTime)]);
        assert_eq!(shapes("7 apples"), []);
    }

    #[test]
    fn quotes_enclose_text_but_apostrophes_do_not() {
        assert_eq!(
            shapes("Translate 'see you tomorrow' into German"),
            [("see you tomorrow", Shape::Quoted)]
        );
        assert_eq!(
            shapes("「こんばんは」をフランス語に"),
            [("こんばんは", Shape::Quoted)]
        );
        assert_eq!(shapes("what's the time, it's late"), []);
    }

    #[test]
    fn expressions_join_two_numbers_at_least() {
        assert_eq!(
            shapes("What is 123 times 45?"),
            [("123 times 45", Shape::Expression)]
        );
        assert_eq!(
            shapes("What's (14 + 6) * 3?"),
            [("(14 + 6) * 3", Shape::Expression)]
        );
        assert_eq!(shapes("Convert 100 F to C"), []);
    }

    #[test]
    fn a_tool_has_the_shapes_its_manifest_writes() {
        let tool: ToolManifest = serde_json::from_value(serde_json::json!({
            "name": "read_file",
            "description": "Read a text file",
            "parameters": {"path": "Path of the file, e.g. notes/todo.txt"},
            "examples": ["Translate 'x' into French"]
        }))
        .unwrap();
        assert_eq!(tool_shapes(&tool), BTreeSet::from([Shape::Path]));
        let booking: ToolManifest = serde_json::from_value(serde_json::json!({
            "name": "book_visit",
            "description": "Book a visit",
            "parameters": {"time": "start time, HH:MM in 24-hour format"}
        }))
        .unwrap();
        assert_eq!(tool_shapes(&booking), BTreeSet::from([Shape::ClockTime]));
    }
}
