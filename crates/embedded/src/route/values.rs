//! Constrained decoding of one parameter value.
//!
//! The model writes the value, but only what the type allows can be written:
//! - a string is copied token by token from a span of the message (every
//!   token must continue the copy, and the string may only close where a word
//!   ends), never crossing text an earlier parameter already took;
//! - a number is one of the numbers the message contains, chosen by score;
//! - a boolean is `true` or `false`;
//! - any parameter may be `null`, which leaves it out of the call.

use std::ops::Range;

use std::collections::{HashMap, HashSet};

use riverse_tool::{ParamType, ToolManifest};
use serde_json::Value;

use crate::engine::{Engine, State, logprob};
use crate::error::Result;
use crate::route::spans::{Boundaries, NumberSpan, is_forbidden, numbers};
use crate::similarity::is_cjk;

/// Most tokens one copied string may take.
const MAX_VALUE_TOKENS: usize = 24;

/// Token ids the value decoder needs, looked up once per model.
pub(crate) struct ValueTokens {
    /// Vocabulary ids grouped by their first byte, so a step only examines
    /// tokens that could continue the copy.
    by_first_byte: Vec<Vec<u32>>,
    /// Tokens that close a string: they start with `"`.
    string_close: Vec<u32>,
    /// ` "`: a string value opens.
    open_string: Vec<u32>,
    /// ` null`.
    null: Vec<u32>,
}

impl ValueTokens {
    pub fn new(engine: &Engine) -> Result<Self> {
        let tokenizer = &engine.tokenizer;
        let mut by_first_byte = vec![Vec::new(); 256];
        let mut string_close = Vec::new();
        for id in 0..tokenizer.vocab_size() as u32 {
            let Some(&first) = tokenizer.bytes(id).first() else {
                continue;
            };
            by_first_byte[first as usize].push(id);
            if first == b'"' {
                string_close.push(id);
            }
        }
        Ok(ValueTokens {
            by_first_byte,
            string_close,
            open_string: tokenizer.encode(" \"")?,
            null: tokenizer.encode(" null")?,
        })
    }
}

/// A decided value and the state after it (the value's tokens included, the
/// text that closes it not).
pub(crate) struct Decoded {
    pub value: Option<Value>,
    pub state: State,
    /// The message bytes the value was copied from.
    pub taken: Option<Range<usize>>,
}

/// Everything about the message that value decoding consults.
pub(crate) struct MessageSpans<'a> {
    pub text: &'a str,
    pub boundaries: Boundaries,
    pub numbers: Vec<NumberSpan>,
    /// `action[i]`: the word starting at byte `i` is one the tool's own
    /// manifest keeps using (`search`, `timer`, `convert`): it names the
    /// action, and a value starting there is probably the instruction
    /// copied whole ("Search for the best trails").
    pub action: Vec<bool>,
    /// The Latin-script words of the message (byte ranges) that carry no
    /// value of their own: action words and function words. A copied value
    /// made of these only ("Set a timer for") is dropped.
    filler: Vec<Range<usize>>,
}

/// English words a value does not start with (prepositions), or that carry
/// no value alone. Values are copied from what follows them: "in London",
/// "for the pasta".
const PREPOSITIONS: &[&str] = &[
    "in", "on", "at", "to", "for", "from", "of", "into", "with", "about", "by", "as",
];
const FUNCTION_WORDS: &[&str] = &[
    "a", "an", "the", "me", "my", "please", "and", "or", "is", "are", "what", "what's", "how",
    "it", "i", "you", "can", "do",
];

impl<'a> MessageSpans<'a> {
    pub fn new(text: &'a str, tool: &ToolManifest) -> Self {
        let recurring = recurring_words(tool);
        let mut boundaries = Boundaries::of(text);
        let mut action = vec![false; text.len() + 1];
        let mut filler = Vec::new();
        let mut word_start = None;
        for (at, c) in text
            .char_indices()
            .chain(std::iter::once((text.len(), ' ')))
        {
            let in_word = (c.is_alphanumeric() || c == '\'') && !is_cjk(c);
            match (in_word, word_start) {
                (true, None) => word_start = Some(at),
                (false, Some(start)) => {
                    let word = text[start..at].to_lowercase();
                    action[start] = recurring.contains(&word);
                    let preposition = PREPOSITIONS.contains(&word.as_str());
                    if preposition {
                        boundaries.starts[start] = false;
                    }
                    if action[start] || preposition || FUNCTION_WORDS.contains(&word.as_str()) {
                        filler.push(start..at);
                    }
                    word_start = None;
                }
                _ => {}
            }
        }
        MessageSpans {
            text,
            boundaries,
            numbers: numbers(text),
            action,
            filler,
        }
    }

    /// Whether `span` holds nothing but filler words (and spaces or
    /// punctuation between them).
    fn only_filler(&self, span: Range<usize>) -> bool {
        let mut at = span.start;
        while at < span.end {
            if let Some(word) = self.filler.iter().find(|word| word.start == at) {
                at = word.end;
                continue;
            }
            let Some(c) = self.text[at..].chars().next() else {
                break;
            };
            if c.is_alphanumeric() {
                return false;
            }
            at += c.len_utf8();
        }
        true
    }
}

/// How much less likely a value is made when it lies before the previous
/// parameter's value, in nats. Authors declare parameters in the order
/// people say them ("30 miles to km": value, from, to), so a value found
/// after the previous one is the better guess; the model alone often swaps
/// such pairs.
const ORDER_PENALTY: f32 = 3.0;

/// How much less likely a value is made for each word it skips after the
/// previous parameter's value, in nats, up to [`ORDER_PENALTY`]: in "30
/// miles to km" the unit right after the number is the one it is in.
const SKIP_PENALTY: f32 = 1.0;

/// How much less likely closing a copied string is made, in nats. The model
/// tends to stop at the first word that could be a whole value ("45" of
/// "45 * 12"); continuing is cheap to undo since a value may only end where
/// a word does.
const CLOSE_PENALTY: f32 = 1.5;

/// How much less likely a copied value is made when it starts on an action
/// word, in nats: enough to move a copy off "Search for ..." onto what
/// follows, not enough to refuse a value the model is sure of.
const ACTION_START_PENALTY: f32 = 3.0;

/// Words (Latin script, lowercased) found in at least two of the tool's name,
/// description and examples. Values differ from example to example; the
/// words for the action recur.
fn recurring_words(tool: &ToolManifest) -> HashSet<String> {
    let mut texts = vec![tool.name.replace(['_', '-'], " "), tool.description.clone()];
    texts.extend(tool.examples.iter().cloned());
    let mut counts: HashMap<String, usize> = HashMap::new();
    for text in &texts {
        let words: HashSet<String> = text
            .split(|c: char| !c.is_alphanumeric() || is_cjk(c))
            .filter(|word| !word.is_empty())
            .map(str::to_lowercase)
            .collect();
        for word in words {
            *counts.entry(word).or_default() += 1;
        }
    }
    counts
        .into_iter()
        .filter(|(_, count)| *count >= 2)
        .map(|(word, _)| word)
        .collect()
}

/// Decodes the value that follows `state`, which ends just after
/// `"name":`. `close` is the JSON text that follows the value (`,` before
/// another key, `}` after the last), used to score numbers fairly. `taken`
/// holds the spans earlier parameters copied.
pub(crate) fn decode_value(
    engine: &Engine,
    tokens: &ValueTokens,
    state: &State,
    kind: ParamType,
    message: &MessageSpans<'_>,
    taken: &[Range<usize>],
    close: &str,
) -> Result<Decoded> {
    let omitted = |state: &State| Decoded {
        value: None,
        state: state.clone(),
        taken: None,
    };
    // Where the previous parameter's value ended.
    let anchor = taken.last().map_or(0, |span| span.end);
    let close_tokens = engine.tokenizer.encode(close)?;
    let closed = |text: &str| -> Result<Vec<u32>> {
        let mut sequence = engine.tokenizer.encode(text)?;
        sequence.extend(&close_tokens);
        Ok(sequence)
    };
    match kind {
        ParamType::String => {
            // A string's first token only says "a string follows": compare it
            // with `null` alone.
            let open_score = engine.score(state, &tokens.open_string)?;
            if engine.score(state, &tokens.null)? > open_score {
                return Ok(omitted(state));
            }
            let opened = engine.extend_tokens(state, &tokens.open_string)?;
            copy_string(engine, tokens, opened, message, taken, anchor)
        }
        ParamType::Int | ParamType::Float => {
            let numbers: Vec<&NumberSpan> = message
                .numbers
                .iter()
                .filter(|number| kind == ParamType::Float || number.is_integer)
                .filter(|number| !taken.iter().any(|span| overlaps(span, &number.bytes)))
                .collect();
            if numbers.is_empty() {
                return Ok(omitted(state));
            }
            // Scored with the text that closes them, so `1` does not beat
            // `10` merely by being shorter; `null` likewise.
            let mut sequences = vec![closed(" null")?];
            for number in &numbers {
                sequences.push(closed(&format!(" {}", number.text))?);
            }
            let mut scores = engine.score_many(state, &sequences)?;
            for (score, number) in scores[1..].iter_mut().zip(&numbers) {
                *score -= order_penalty(message, taken, anchor, number.bytes.start);
            }
            let best = best_index(&scores[1..]);
            match best {
                Some(index) if scores[index + 1] >= scores[0] => {
                    let number = numbers[index];
                    let written = engine.tokenizer.encode(&format!(" {}", number.text))?;
                    let value = match kind {
                        ParamType::Int => number.text.parse::<i64>().ok().map(Value::from),
                        _ => number.text.parse::<f64>().ok().map(Value::from),
                    };
                    Ok(Decoded {
                        value,
                        state: engine.extend_tokens(state, &written)?,
                        taken: Some(number.bytes.clone()),
                    })
                }
                _ => Ok(omitted(state)),
            }
        }
        ParamType::Bool => {
            let sequences = [closed(" null")?, closed(" true")?, closed(" false")?];
            let scores = engine.score_many(state, &sequences)?;
            let literal = match best_index(&scores) {
                Some(1) => true,
                Some(2) => false,
                _ => return Ok(omitted(state)),
            };
            let written = engine.tokenizer.encode(&format!(" {literal}"))?;
            Ok(Decoded {
                value: Some(Value::Bool(literal)),
                state: engine.extend_tokens(state, &written)?,
                taken: None,
            })
        }
    }
}

/// The order prior for a value starting at `start`, given that the previous
/// value ended at `anchor` (0: there is none, and no prior).
fn order_penalty(
    message: &MessageSpans<'_>,
    taken: &[Range<usize>],
    anchor: usize,
    start: usize,
) -> f32 {
    if anchor == 0 {
        return 0.0;
    }
    if start < anchor {
        return ORDER_PENALTY;
    }
    let skipped = (anchor..start)
        .filter(|&at| message.boundaries.starts[at])
        .filter(|&at| !taken.iter().any(|span| span.contains(&at)))
        .count();
    (skipped as f32 * SKIP_PENALTY).min(ORDER_PENALTY)
}

fn best_index(scores: &[f32]) -> Option<usize> {
    scores
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(index, _)| index)
}

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

/// One way the copy so far can sit in the message.
#[derive(Debug, Clone, Copy)]
struct Placement {
    start: usize,
    /// Where the next copied byte must come from.
    end: usize,
}

/// Copies a string from the message, token by token, after an opening quote.
fn copy_string(
    engine: &Engine,
    tokens: &ValueTokens,
    mut state: State,
    message: &MessageSpans<'_>,
    taken: &[Range<usize>],
    anchor: usize,
) -> Result<Decoded> {
    let bytes = message.text.as_bytes();
    let blocked = &message.boundaries.blocked;
    let free = |range: Range<usize>| {
        !taken.iter().any(|span| overlaps(span, &range))
            && range
                .clone()
                .all(|at| !is_forbidden(bytes[at]) && !blocked[at])
    };
    let mut placements: Vec<Placement> = (0..bytes.len())
        .filter(|&at| message.boundaries.starts[at] && free(at..at + 1))
        .map(|at| Placement { start: at, end: at })
        .collect();
    let mut copied = 0usize;
    for _ in 0..MAX_VALUE_TOKENS {
        let can_close = copied > 0
            && placements
                .iter()
                .any(|placement| message.boundaries.ends[placement.end]);
        let close_score = if can_close {
            tokens
                .string_close
                .iter()
                .map(|&id| logprob(&state.next, id))
                .fold(f32::NEG_INFINITY, f32::max)
                - CLOSE_PENALTY
        } else {
            f32::NEG_INFINITY
        };
        let mut best: Option<(f32, u32)> = None;
        let mut first_bytes: Vec<u8> = placements
            .iter()
            .filter_map(|placement| bytes.get(placement.end).copied())
            .collect();
        first_bytes.sort_unstable();
        first_bytes.dedup();
        for first in first_bytes {
            for &id in &tokens.by_first_byte[first as usize] {
                let piece = engine.tokenizer.bytes(id);
                let fitting = |placement: &&Placement| {
                    let end = placement.end + piece.len();
                    end <= bytes.len()
                        && &bytes[placement.end..end] == piece
                        && free(placement.end..end)
                };
                if !placements.iter().any(|placement| fitting(&placement)) {
                    continue;
                }
                let mut penalty = 0.0;
                if copied == 0 {
                    let starts = || placements.iter().filter(fitting).map(|p| p.start);
                    if starts().all(|start| message.action[start]) {
                        penalty += ACTION_START_PENALTY;
                    }
                    penalty += starts()
                        .map(|start| order_penalty(message, taken, anchor, start))
                        .fold(f32::INFINITY, f32::min);
                }
                let score = logprob(&state.next, id) - penalty;
                if best.is_none_or(|(top, _)| score > top) {
                    best = Some((score, id));
                }
            }
        }
        match best {
            Some((score, id)) if score > close_score => {
                let piece = engine.tokenizer.bytes(id);
                placements.retain_mut(|placement| {
                    let end = placement.end + piece.len();
                    let fits = end <= bytes.len()
                        && &bytes[placement.end..end] == piece
                        && free(placement.end..end);
                    placement.end = end;
                    fits
                });
                copied += piece.len();
                state = engine.extend_tokens(&state, &[id])?;
            }
            _ => break,
        }
    }
    // The copy may have stopped mid-word (the token budget ran out): cut it
    // back to the last place a value may end.
    let Some(placement) = placements.first().copied() else {
        return Ok(Decoded {
            value: None,
            state,
            taken: None,
        });
    };
    let Some(end) = (placement.start + 1..=placement.end)
        .rev()
        .find(|&end| message.boundaries.ends[end])
    else {
        return Ok(Decoded {
            value: None,
            state,
            taken: None,
        });
    };
    let span = placement.start..arithmetic_end(message.text, placement.start..end, taken);
    if span.end > end {
        state = engine.extend(&state, &message.text[end..span.end])?;
    }
    let value = message
        .text
        .get(span.clone())
        .map(str::trim)
        .filter(|value| !value.is_empty())
        .filter(|_| !message.only_filler(span.clone()))
        .filter(|value| !is_whole_request(message.text, value));
    Ok(Decoded {
        value: value.map(|value| Value::String(value.to_owned())),
        state,
        taken: Some(span),
    })
}

/// Words that join numbers into an arithmetic expression.
const ARITHMETIC_WORDS: &[&str] = &[
    "plus",
    "minus",
    "times",
    "over",
    "x",
    "divided",
    "multiplied",
    "by",
    "mod",
];

/// Where a copied value that is arithmetic ends once it takes in the rest
/// of its expression. The model tends to stop at the first complete-looking
/// piece ("7 + 5" of "(7 + 5) * 3", "19" of "19 plus 23"); a value that
/// ends in a digit or bracket is extended over operators, brackets, numbers
/// and arithmetic words for as long as the expression goes on, and ends on a
/// digit or a closing bracket.
fn arithmetic_end(text: &str, span: Range<usize>, taken: &[Range<usize>]) -> usize {
    let operator = |c: char| "+-*/×÷^%=()（）＋－".contains(c);
    let value = &text[span.clone()];
    let ends_arithmetic = value
        .trim_end()
        .chars()
        .next_back()
        .is_some_and(|c| c.is_ascii_digit() || c == ')');
    if !ends_arithmetic || !value.chars().any(|c| c.is_ascii_digit()) {
        return span.end;
    }
    let mut end = span.end;
    let mut at = span.end;
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
        } else if operator(c) {
            saw_operator = true;
            at += c.len_utf8();
            if c == ')' || c == '）' || c == '%' {
                end = at;
            }
        } else if c == ' ' {
            at += 1;
        } else {
            let word: String = rest.chars().take_while(char::is_ascii_alphabetic).collect();
            if word.is_empty() || !ARITHMETIC_WORDS.contains(&word.to_lowercase().as_str()) {
                break;
            }
            saw_operator = true;
            at += word.len();
        }
    }
    end
}

/// Whether `value` is the message itself, a sentence of several words
/// without a number: a request, not a value taken from one ("What's today's
/// date" is no time zone). A bare value sent alone ("AAPL", "2+2") passes.
fn is_whole_request(message: &str, value: &str) -> bool {
    let request = message
        .trim()
        .trim_end_matches(|c: char| c.is_ascii_punctuation() || "？！。".contains(c));
    if value != request.trim() || value.chars().any(|c| c.is_numeric()) {
        return false;
    }
    let words = value.split_whitespace().count();
    let cjk = value.chars().filter(|&c| is_cjk(c)).count();
    words >= 3 || cjk >= 6
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extended<'a>(message: &'a str, value: &str) -> &'a str {
        let start = message.find(value).unwrap();
        let end = arithmetic_end(message, start..start + value.len(), &[]);
        &message[start..end]
    }

    #[test]
    fn an_arithmetic_value_takes_in_the_rest_of_its_expression() {
        assert_eq!(extended("Compute (7 + 5) * 3", "7 + 5"), "7 + 5) * 3");
        assert_eq!(extended("What's 19 plus 23?", "19"), "19 plus 23");
        assert_eq!(extended("What is 128 / 4?", "128"), "128 / 4");
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
    fn a_sentence_copied_whole_is_a_request_not_a_value() {
        assert!(is_whole_request(
            "What's today's date?",
            "What's today's date"
        ));
        assert!(is_whole_request(
            "上海今天天气怎么样？",
            "上海今天天气怎么样"
        ));
        assert!(!is_whole_request("AAPL", "AAPL"));
        assert!(!is_whole_request("12かける8", "12かける8"));
        assert!(!is_whole_request("Weather in Paris", "Paris"));
    }
}
