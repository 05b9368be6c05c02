//! A call that asks for approval as the person asked sees it: the one
//! rendering of its arguments that every front end showing them as text
//! uses (MCP's elicitation message, the stream's question, the terminal's
//! prompt).
//!
//! An approval of a lossy rendering of what will run approves something
//! else (issue 41): a long `content` the model put first once pushed `path`
//! out of the message. So every argument has a line of its own, the short
//! ones first, and each long one is cut on its own with a marker that says
//! how much was cut. The lines stay within
//! [`MAX_ARGUMENTS_CHARS`] together; a call with too many arguments to show
//! each one within that is refused rather than asked about.

use std::fmt;

use serde_json::{Value, json};

use super::ApprovalRequest;
use crate::context::Question;

/// The most characters the argument lines of one approval take in all,
/// names, markers and line breaks included: with its first line, the
/// question stays within [`MAX_MESSAGE_CHARS`](crate::MAX_MESSAGE_CHARS).
pub const MAX_ARGUMENTS_CHARS: usize = 3000;
/// The least room each value has on its line, its cut marker included: a
/// call whose arguments leave less is not asked about.
const MIN_VALUE_CHARS: usize = 64;
/// The most characters of an argument's name shown.
const MAX_NAME_CHARS: usize = 64;

/// One argument as the person asked sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShownArgument {
    /// The name, quoted as JSON unless it is a plain word.
    pub name: String,
    /// The value as JSON on one line, cut to its room.
    pub value: String,
}

impl fmt::Display for ShownArgument {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name, self.value)
    }
}

/// Why a call is not asked about: its arguments can't each be shown.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "its {count} arguments are too many to show each one to the person asked \
     (a question shows {MAX_ARGUMENTS_CHARS} characters of arguments)"
)]
pub struct TooManyArguments {
    pub count: usize,
}

impl ApprovalRequest {
    /// Every argument on a line of its own, the shortest value first (the
    /// ones that say which file, which command), each long one cut on its
    /// own. The model's key order changes nothing: among values of one
    /// length, names are in order.
    pub fn shown_arguments(&self) -> Result<Vec<ShownArgument>, TooManyArguments> {
        let count = self.arguments.len();
        let mut lines: Vec<Line<'_>> = self
            .arguments
            .iter()
            .map(|(key, value)| {
                let value = one_line(&value.to_string());
                let length = value.chars().count();
                let name = cut(&shown_name(key), MAX_NAME_CHARS);
                Line {
                    key,
                    shown: ShownArgument { name, value },
                    length,
                }
            })
            .collect();
        // Each line is its name, ": ", its value and a line break.
        let names: usize = lines
            .iter()
            .map(|line| line.shown.name.chars().count() + 3)
            .sum();
        let room = MAX_ARGUMENTS_CHARS.saturating_sub(names);
        if count > 0 && room / count < MIN_VALUE_CHARS {
            return Err(TooManyArguments { count });
        }
        // Shortest first, each is shown in full while it fits in an even
        // share of what is left, so the long ones split the rest evenly and
        // each gets at least `room / count`.
        lines.sort_by(|a, b| a.length.cmp(&b.length).then_with(|| a.key.cmp(b.key)));
        let mut left = room;
        for (index, line) in lines.iter_mut().enumerate() {
            let given = line.length.min(left / (count - index));
            left -= given;
            line.shown.value = cut(&line.shown.value, given);
        }
        Ok(lines.into_iter().map(|line| line.shown).collect())
    }

    /// Why it asks, as front ends show it: `tools.NAME.approval is ask`, or
    /// a hook's `hook FILE:CLASS: REASON` as it is.
    pub fn asked_by(&self) -> String {
        if self.rule.starts_with("hook ") {
            self.rule.clone()
        } else {
            format!("{} is ask", self.rule)
        }
    }

    /// The request as a question, for a front end that only knows
    /// questions (MCP's elicitation): its message says what will run, each
    /// argument on a line of its own, and an accept is a yes.
    pub fn question(&self) -> Result<Question, TooManyArguments> {
        let arguments = self.shown_arguments()?;
        let mut message = if arguments.is_empty() {
            format!("Allow {} to run with no arguments?", self.tool)
        } else {
            format!("Allow {} to run with these arguments?", self.tool)
        };
        message.push_str(&format!(" ({})", self.asked_by()));
        for argument in &arguments {
            message.push('\n');
            message.push_str(&argument.to_string());
        }
        Ok(Question {
            message,
            schema: json!({"type": "object", "properties": {}}),
            approval: Some(self.clone()),
        })
    }
}

/// An argument on its way to being shown.
struct Line<'a> {
    /// The argument's name as the call has it: the order among equals.
    key: &'a str,
    shown: ShownArgument,
    /// The value's characters before any cut.
    length: usize,
}

/// A name as it is: letters, digits, `_`, `-` and `.`; any other quoted as
/// JSON, so that no name reads as two.
fn shown_name(name: &str) -> String {
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| (c.is_alphanumeric() || matches!(c, '_' | '-' | '.')) && !is_hidden(c));
    if plain {
        name.to_owned()
    } else {
        one_line(&Value::String(name.to_owned()).to_string())
    }
}

/// JSON with the characters that JSON leaves as they are but a reader can't
/// see, or sees as a line break, escaped: C1 controls, bidirectional
/// overrides, zero-width characters, line and paragraph separators, tags.
fn one_line(json: &str) -> String {
    let mut shown = String::with_capacity(json.len());
    for c in json.chars() {
        if is_hidden(c) {
            let mut units = [0; 2];
            for unit in c.encode_utf16(&mut units) {
                shown.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            shown.push(c);
        }
    }
    shown
}

fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00ad}'
                | '\u{034f}'
                | '\u{061c}'
                | '\u{115f}'
                | '\u{1160}'
                | '\u{17b4}'
                | '\u{17b5}'
                | '\u{180e}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{206f}'
                | '\u{3164}'
                | '\u{fe00}'..='\u{fe0f}'
                | '\u{feff}'
                | '\u{ffa0}'
                | '\u{fff0}'..='\u{fffb}'
                | '\u{e0000}'..='\u{e0fff}'
        )
}

/// `text` in at most `room` characters: as it is when it fits, else its
/// start, `…` and how many characters were cut.
fn cut(text: &str, room: usize) -> String {
    let length = text.chars().count();
    if length <= room {
        return text.to_owned();
    }
    // The cut count is under `length`, so its marker is no longer than
    // this one.
    let kept = room.saturating_sub(1 + marker(length).chars().count());
    let start: String = text.chars().take(kept).collect();
    format!("{start}…{}", marker(length - kept))
}

fn marker(cut: usize) -> String {
    format!(" ({} more characters)", grouped(cut))
}

/// `1,900`: a count with its thousands apart.
fn grouped(count: usize) -> String {
    let digits = count.to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Params;
    use pretty_assertions::assert_eq;

    fn request(arguments: Value) -> ApprovalRequest {
        ApprovalRequest {
            tool: "file_write".into(),
            arguments: arguments.as_object().cloned().unwrap(),
            rule: "tools.file_write.approval".into(),
        }
    }

    /// The lines of a request whose arguments are `pairs`, in that order.
    fn lines_of(pairs: &[(&str, Value)]) -> Vec<String> {
        let arguments: Params = pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), value.clone()))
            .collect();
        let request = ApprovalRequest {
            tool: "file_write".into(),
            arguments,
            rule: "tools.file_write.approval".into(),
        };
        let shown = request.shown_arguments().unwrap();
        shown.iter().map(ToString::to_string).collect()
    }

    /// Every order of `items`.
    fn permutations<T: Clone>(items: &[T]) -> Vec<Vec<T>> {
        if items.len() <= 1 {
            return vec![items.to_vec()];
        }
        let mut all = Vec::new();
        for index in 0..items.len() {
            let mut rest = items.to_vec();
            let first = rest.remove(index);
            for mut tail in permutations(&rest) {
                tail.insert(0, first.clone());
                all.push(tail);
            }
        }
        all
    }

    fn total(lines: &[String]) -> usize {
        lines.iter().map(|line| line.chars().count() + 1).sum()
    }

    // Issue 41, finding 5: a long `content` first hid `path`.
    #[test]
    fn the_path_is_shown_in_full_first_whatever_order_the_model_gave() {
        let content = json!("harmless note text. ".repeat(105));
        let question = request(json!({"content": content, "path": "run_me.txt"}))
            .question()
            .unwrap();
        assert_eq!(
            question.message,
            format!(
                "Allow file_write to run with these arguments? (tools.file_write.approval is ask)\n\
                 path: \"run_me.txt\"\ncontent: {content}"
            )
        );
        for long in [content, json!("x".repeat(50_000))] {
            let pairs = [
                ("content", long.clone()),
                ("path", json!("run_me.txt")),
                ("overwrite", json!(true)),
            ];
            for order in permutations(&pairs) {
                let lines = lines_of(&order);
                assert_eq!(lines[..2], ["overwrite: true", r#"path: "run_me.txt""#]);
                assert!(lines[2].starts_with("content: \""), "{lines:?}");
                assert_eq!(lines, lines_of(&pairs), "the order changed what is shown");
            }
        }
    }

    #[test]
    fn a_value_too_long_for_its_room_says_how_much_was_cut() {
        let long = "x".repeat(10_000);
        let lines = lines_of(&[("content", json!(long)), ("path", json!("a.txt"))]);
        let content = &lines[1];
        assert!(content.starts_with("content: \"xxx"), "{content}");
        let shown = content.chars().filter(|c| *c == 'x').count();
        let said = format!("… ({} more characters)", grouped(10_001 - shown));
        assert!(content.ends_with(&said), "{content}");
        assert!(total(&lines) <= MAX_ARGUMENTS_CHARS);
    }

    #[test]
    fn several_long_values_are_each_cut_on_their_own_after_the_short_ones() {
        let pairs = [
            ("body", json!("b".repeat(5_000))),
            ("mode", json!("append")),
            ("header", json!("h".repeat(1_500))),
            ("footer", json!("f".repeat(20_000))),
            ("path", json!("notes/today.md")),
        ];
        for order in permutations(&pairs) {
            let lines = lines_of(&order);
            assert_eq!(lines[0], r#"mode: "append""#);
            assert_eq!(lines[1], r#"path: "notes/today.md""#);
            let names: Vec<&str> = lines
                .iter()
                .map(|line| line.split_once(':').unwrap().0)
                .collect();
            assert_eq!(names, ["mode", "path", "header", "body", "footer"]);
            for line in &lines[2..] {
                assert!(line.contains(" more characters)"), "{line}");
                assert!(line.chars().count() > MIN_VALUE_CHARS, "{line}");
            }
            assert!(total(&lines) <= MAX_ARGUMENTS_CHARS, "{}", total(&lines));
        }
    }

    #[test]
    fn many_arguments_are_each_shown_until_they_are_too_many_then_refused() {
        let mut last_shown = 0;
        for count in 1..=100 {
            let arguments: Params = (0..count)
                .map(|n| (format!("arg{n}"), json!("v".repeat(500))))
                .collect();
            let request = ApprovalRequest {
                tool: "t".into(),
                arguments,
                rule: "tools.t.approval".into(),
            };
            match request.shown_arguments() {
                Ok(shown) => {
                    assert_eq!(shown.len(), count);
                    let lines: Vec<String> = shown.iter().map(ToString::to_string).collect();
                    assert!(total(&lines) <= MAX_ARGUMENTS_CHARS, "{count}");
                    last_shown = count;
                }
                Err(refused) => {
                    assert_eq!(refused, TooManyArguments { count });
                    assert!(request.question().is_err());
                }
            }
        }
        assert!((20..100).contains(&last_shown), "{last_shown}");
        // Short values fit many more.
        let arguments: Params = (0..40).map(|n| (format!("a{n}"), json!(n))).collect();
        let request = ApprovalRequest {
            tool: "t".into(),
            arguments,
            rule: "tools.t.approval".into(),
        };
        let shown = request.shown_arguments().unwrap();
        assert!(shown.iter().all(|line| !line.value.contains('…')));
    }

    #[test]
    fn too_many_arguments_say_so() {
        let arguments: Params = (0..200).map(|n| (format!("a{n}"), json!(n))).collect();
        let request = ApprovalRequest {
            tool: "t".into(),
            arguments,
            rule: "tools.t.approval".into(),
        };
        insta::assert_snapshot!(
            request.question().unwrap_err(),
            @"its 200 arguments are too many to show each one to the person asked (a question shows 3000 characters of arguments)"
        );
    }

    #[test]
    fn values_that_are_not_strings_are_shown_as_json() {
        let lines = lines_of(&[
            ("overwrite", json!(true)),
            ("count", json!(3)),
            ("ratio", json!(0.5)),
            ("nothing", Value::Null),
            ("tags", json!(["a", "b"])),
            ("options", json!({"z": 1, "a": [2]})),
            ("rows", json!((0..2000).collect::<Vec<_>>())),
        ]);
        assert_eq!(
            lines[..6],
            [
                "count: 3",
                "ratio: 0.5",
                "nothing: null",
                "overwrite: true",
                "tags: [\"a\",\"b\"]",
                "options: {\"z\":1,\"a\":[2]}",
            ]
        );
        assert!(lines[6].starts_with("rows: [0,1,2,"), "{}", lines[6]);
        assert!(lines[6].ends_with(" more characters)"), "{}", lines[6]);
    }

    #[test]
    fn unicode_is_cut_at_a_character_and_counted_in_characters() {
        let lines = lines_of(&[
            ("text", json!("日本語".repeat(2_000))),
            ("path", json!("ノート.txt")),
        ]);
        assert_eq!(lines[0], "path: \"ノート.txt\"");
        let text = lines[1].strip_prefix("text: \"").unwrap();
        let (start, marker) = text.split_once('…').unwrap();
        assert!(start.chars().all(|c| "日本語".contains(c)), "{start}");
        let cut = 6_001 - start.chars().count();
        assert_eq!(marker, format!(" ({} more characters)", grouped(cut)));
        assert!(total(&lines) <= MAX_ARGUMENTS_CHARS);
    }

    #[test]
    fn no_value_or_name_reads_as_a_line_of_its_own() {
        let lines = lines_of(&[
            (
                "text",
                json!("a\npath: \"safe.txt\"\u{2028}b\u{202e}c\u{200b}\u{85}"),
            ),
            ("x\npath", json!("y")),
            ("名前", json!("値")),
            ("\u{3164}", json!("a filler the font draws as nothing")),
        ]);
        assert_eq!(
            lines,
            [
                "\"x\\npath\": \"y\"",
                "名前: \"値\"",
                "\"\\u3164\": \"a filler the font draws as nothing\"",
                "text: \"a\\npath: \\\"safe.txt\\\"\\u2028b\\u202ec\\u200b\\u0085\"",
            ]
        );
    }

    #[test]
    fn a_long_name_is_cut_too() {
        let name = "n".repeat(500);
        let lines = lines_of(&[(name.as_str(), json!(1))]);
        assert_eq!(lines[0].chars().count(), MAX_NAME_CHARS + 3);
        assert!(lines[0].ends_with(" more characters): 1"), "{}", lines[0]);
    }

    #[test]
    fn every_question_stays_within_the_message_bound() {
        let tool = "t".repeat(64);
        let arguments: Params = (0..20)
            .map(|n| (format!("{n}{}", "n".repeat(80)), json!("v".repeat(10_000))))
            .collect();
        let request = ApprovalRequest {
            rule: format!("tools.{tool}.approval.ask[10]"),
            tool,
            arguments,
        };
        let length = request.question().unwrap().message.chars().count();
        assert!(length <= crate::MAX_MESSAGE_CHARS, "{length}");
        let no_arguments = request_without_arguments().question().unwrap();
        assert_eq!(
            no_arguments.message,
            "Allow clock to run with no arguments? (tools.clock.approval is ask)"
        );
    }

    fn request_without_arguments() -> ApprovalRequest {
        ApprovalRequest {
            tool: "clock".into(),
            arguments: Params::new(),
            rule: "tools.clock.approval".into(),
        }
    }
}
