//! Arithmetic values: a copied value that is part of an expression takes in
//! the whole expression.

use std::ops::Range;

use crate::glossary;
use crate::words::ARITHMETIC_WORDS;

/// Whether a glossary concept's English word names an operation, so its
/// terms join numbers (掛ける, 乘以, 割る).
fn is_operation(word: &str) -> bool {
    matches!(word, "plus" | "minus" | "times" | "divide" | "power")
}

/// Characters that join or group the numbers of an expression.
const OPERATORS: &str = "+-*/×÷^%=()（）＋－";

/// `span` of `text` widened to the whole arithmetic expression it is part
/// of, never into the bytes of `taken`; other values come back unchanged.
///
/// The model tends to stop at the first complete-looking piece ("7 + 5" of
/// "(7 + 5) * 3", "19" of "19 plus 23"). A value that contains a digit and
/// ends in a digit or bracket is extended over operators, brackets, numbers
/// and arithmetic words for as long as the expression goes on, up to its
/// last digit or closing bracket; then, if it closes more brackets than it
/// opens, its start moves back over the expression to the opening brackets
/// it lacks.
pub fn extend_expression(text: &str, span: Range<usize>, taken: &[Range<usize>]) -> Range<usize> {
    if !ends_arithmetic(&text[span.clone()]) {
        return span;
    }
    let end = expression_end(text, span.end, taken);
    let start = balanced_start(text, span.start..end, taken);
    start..end
}

/// Whether `value` has a digit and ends in a digit or closing bracket.
fn ends_arithmetic(value: &str) -> bool {
    value.chars().any(|c| c.is_ascii_digit())
        && value
            .trim_end()
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_digit() || c == ')')
}

/// How far the expression goes on after `from`: the end of its last digit,
/// decimal point, closing bracket or `%`, once an operator has joined it.
fn expression_end(text: &str, from: usize, taken: &[Range<usize>]) -> usize {
    let mut end = from;
    let mut at = from;
    let mut saw_operator = false;
    while at < text.len() {
        let rest = &text[at..];
        let Some(c) = rest.chars().next() else { break };
        if taken.iter().any(|range| range.contains(&at)) {
            break;
        }
        if c.is_ascii_digit() || c == '.' {
            at += 1;
            if saw_operator || c == '.' {
                end = at;
            }
        } else if OPERATORS.contains(c) {
            saw_operator = true;
            at += c.len_utf8();
            if matches!(c, ')' | '）' | '%') {
                end = at;
            }
        } else if c == ' ' {
            at += 1;
        } else {
            let word: String = rest.chars().take_while(char::is_ascii_alphabetic).collect();
            let length = if word.is_empty() {
                glossary::term_at(rest, is_operation)
            } else {
                ARITHMETIC_WORDS
                    .contains(&word.to_lowercase())
                    .then_some(word.len())
            };
            let Some(length) = length else { break };
            saw_operator = true;
            at += length;
        }
    }
    end
}

/// The start of `span` moved back over the rest of the expression before it
/// (numbers, operators, arithmetic words), as far as the opening bracket
/// that pairs with its last unpaired closing bracket; `span.start` when it
/// closes no more brackets than it opens.
fn balanced_start(text: &str, span: Range<usize>, taken: &[Range<usize>]) -> usize {
    let value = &text[span.clone()];
    let opens = value.chars().filter(|c| matches!(c, '(' | '（')).count();
    let closes = value.chars().filter(|c| matches!(c, ')' | '）')).count();
    let mut unpaired = closes.saturating_sub(opens);
    let mut start = span.start;
    let mut at = span.start;
    while unpaired > 0 {
        let before = &text[..at];
        let Some(c) = before.chars().next_back() else {
            break;
        };
        let word: String = {
            let mut letters: Vec<char> = before
                .chars()
                .rev()
                .take_while(char::is_ascii_alphabetic)
                .collect();
            letters.reverse();
            letters.into_iter().collect()
        };
        let step = if c.is_ascii_digit() || c == '.' || c == ' ' || OPERATORS.contains(c) {
            c.len_utf8()
        } else if !word.is_empty() && ARITHMETIC_WORDS.contains(&word.to_lowercase()) {
            word.len()
        } else {
            break;
        };
        if taken.iter().any(|range| range.contains(&(at - step))) {
            break;
        }
        at -= step;
        match c {
            '(' | '（' => {
                unpaired -= 1;
                start = at;
            }
            ')' | '）' => unpaired += 1,
            _ => {}
        }
    }
    start
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extended<'a>(message: &'a str, value: &str) -> &'a str {
        let start = message.find(value).unwrap();
        &message[extend_expression(message, start..start + value.len(), &[])]
    }

    #[test]
    fn an_arithmetic_value_takes_in_the_rest_of_its_expression() {
        assert_eq!(extended("Compute (7 + 5) * 3", "7 + 5"), "(7 + 5) * 3");
        assert_eq!(extended("What's 19 plus 23?", "19"), "19 plus 23");
        assert_eq!(extended("What is 128 / 4?", "128"), "128 / 4");
        assert_eq!(extended("((2 + 3) * 4) - 1", "3"), "((2 + 3) * 4) - 1");
        assert_eq!(extended("Compute (8 minus 5) * 2", "5"), "(8 minus 5) * 2");
        assert_eq!(extended("250掛ける4はいくつ？", "250"), "250掛ける4");
        assert_eq!(extended("35乘以12等于多少？", "35"), "35乘以12");
    }

    #[test]
    fn other_values_are_left_as_copied() {
        assert_eq!(extended("Meet at gate 3 - then lunch", "gate 3"), "gate 3");
        assert_eq!(
            extended("Set a timer for the pasta", "the pasta"),
            "the pasta"
        );
        assert_eq!(extended("room 12 and then", "room 12"), "room 12");
    }

    #[test]
    fn an_expression_stops_at_text_another_value_took() {
        let message = "(1 + 2) * 3 = 9";
        let taken = vec![0..1, 12..15];
        assert_eq!(extend_expression(message, 1..6, &taken), 1..11);
    }
}
