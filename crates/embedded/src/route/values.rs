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

use riverse_route::{MessageSpans, NumberSpan, extend_expression, is_forbidden, is_whole_request};
use riverse_tool::ParamType;
use serde_json::Value;

use crate::error::Result;
use crate::inference::engine::{Engine, State, logprob};
use crate::tuning::{
    ACTION_START_PENALTY, CLOSE_PENALTY, MAX_VALUE_TOKENS, ORDER_PENALTY, SKIP_PENALTY,
    WHOLE_REQUEST,
};

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

/// Copies a string from the message, token by token, after an opening quote:
/// each step either appends the best-scoring token that continues the copy
/// somewhere in the message or closes the string, then the copy is cut to a
/// word end, widened to a whole arithmetic expression, and dropped if it is
/// filler or the whole request.
fn copy_string(
    engine: &Engine,
    tokens: &ValueTokens,
    mut state: State,
    message: &MessageSpans<'_>,
    taken: &[Range<usize>],
    anchor: usize,
) -> Result<Decoded> {
    let copy = StringCopy {
        engine,
        tokens,
        message,
        taken,
        anchor,
    };
    let mut placements = copy.possible_starts();
    let mut copied = 0usize;
    for _ in 0..MAX_VALUE_TOKENS {
        let close = copy.close_score(&state, &placements, copied);
        match copy.best_continuation(&state, &placements, copied == 0) {
            Some((score, id)) if score > close => {
                let piece = engine.tokenizer.bytes(id);
                copy.advance(&mut placements, piece);
                copied += piece.len();
                state = engine.extend_tokens(&state, &[id])?;
            }
            _ => break,
        }
    }
    let Some(span) = placements
        .first()
        .and_then(|&placement| copy.word_span(placement))
    else {
        return Ok(Decoded {
            value: None,
            state,
            taken: None,
        });
    };
    let copied_end = span.end;
    let span = extend_expression(message.text, span, taken);
    if span.end > copied_end {
        state = engine.extend(&state, &message.text[copied_end..span.end])?;
    }
    Ok(Decoded {
        value: copy.value_of(span.clone()).map(Value::String),
        state,
        taken: Some(span),
    })
}

/// One string being copied from a message: what constrains it.
struct StringCopy<'a> {
    engine: &'a Engine,
    tokens: &'a ValueTokens,
    message: &'a MessageSpans<'a>,
    /// Spans earlier parameters took.
    taken: &'a [Range<usize>],
    /// Where the previous parameter's value ended (0: none).
    anchor: usize,
}

impl StringCopy<'_> {
    /// Whether the bytes of `range` may be part of this value: not taken by
    /// another parameter, not blocked by a rule, nothing JSON must escape.
    fn free(&self, range: Range<usize>) -> bool {
        let bytes = self.message.text.as_bytes();
        !self.taken.iter().any(|span| overlaps(span, &range))
            && range
                .clone()
                .all(|at| !is_forbidden(bytes[at]) && !self.message.boundaries.blocked[at])
    }

    /// Every place the value may start, each an empty copy.
    fn possible_starts(&self) -> Vec<Placement> {
        (0..self.message.text.len())
            .filter(|&at| self.message.boundaries.starts[at] && self.free(at..at + 1))
            .map(|at| Placement { start: at, end: at })
            .collect()
    }

    /// Whether `piece` continues the copy at `placement`.
    fn fits(&self, placement: &Placement, piece: &[u8]) -> bool {
        let bytes = self.message.text.as_bytes();
        let end = placement.end + piece.len();
        end <= bytes.len() && &bytes[placement.end..end] == piece && self.free(placement.end..end)
    }

    /// The score of closing the string now: its best closing token, less
    /// [`CLOSE_PENALTY`]; impossible before anything is copied or where no
    /// placement ends a word.
    fn close_score(&self, state: &State, placements: &[Placement], copied: usize) -> f32 {
        let at_word_end = placements
            .iter()
            .any(|placement| self.message.boundaries.ends[placement.end]);
        if copied == 0 || !at_word_end {
            return f32::NEG_INFINITY;
        }
        self.tokens
            .string_close
            .iter()
            .map(|&id| logprob(&state.next, id))
            .fold(f32::NEG_INFINITY, f32::max)
            - CLOSE_PENALTY
    }

    /// The best-scoring token that continues some placement, with its score.
    /// Only tokens whose first byte is a placement's next byte are looked
    /// at. The first token of a value pays the start penalties.
    fn best_continuation(
        &self,
        state: &State,
        placements: &[Placement],
        first: bool,
    ) -> Option<(f32, u32)> {
        let bytes = self.message.text.as_bytes();
        let mut next_bytes: Vec<u8> = placements
            .iter()
            .filter_map(|placement| bytes.get(placement.end).copied())
            .collect();
        next_bytes.sort_unstable();
        next_bytes.dedup();
        let mut best: Option<(f32, u32)> = None;
        for byte in next_bytes {
            for &id in &self.tokens.by_first_byte[byte as usize] {
                let piece = self.engine.tokenizer.bytes(id);
                if !placements
                    .iter()
                    .any(|placement| self.fits(placement, piece))
                {
                    continue;
                }
                let penalty = if first {
                    self.start_penalty(placements, piece)
                } else {
                    0.0
                };
                let score = logprob(&state.next, id) - penalty;
                if best.is_none_or(|(top, _)| score > top) {
                    best = Some((score, id));
                }
            }
        }
        best
    }

    /// What starting the value with `piece` costs, over the placements it
    /// fits: the action-word penalty when every one starts on an action
    /// word, plus the smallest order penalty.
    fn start_penalty(&self, placements: &[Placement], piece: &[u8]) -> f32 {
        let starts = || {
            placements
                .iter()
                .filter(|placement| self.fits(placement, piece))
                .map(|placement| placement.start)
        };
        let action = if starts().all(|start| self.message.action[start]) {
            ACTION_START_PENALTY
        } else {
            0.0
        };
        let order = starts()
            .map(|start| order_penalty(self.message, self.taken, self.anchor, start))
            .fold(f32::INFINITY, f32::min);
        action + order
    }

    /// Appends `piece` to the copy: placements it does not continue are gone.
    fn advance(&self, placements: &mut Vec<Placement>, piece: &[u8]) {
        placements.retain_mut(|placement| {
            let fits = self.fits(placement, piece);
            placement.end += piece.len();
            fits
        });
    }

    /// The copy at `placement` cut back to the last place a value may end
    /// (the copy may have stopped mid-word when the token budget ran out).
    fn word_span(&self, placement: Placement) -> Option<Range<usize>> {
        let end = (placement.start + 1..=placement.end)
            .rev()
            .find(|&end| self.message.boundaries.ends[end])?;
        Some(placement.start..end)
    }

    /// The value `span` holds, unless it is empty, only filler words, or the
    /// whole request.
    fn value_of(&self, span: Range<usize>) -> Option<String> {
        let text = self.message.text;
        text.get(span.clone())
            .map(str::trim)
            .filter(|value| !value.is_empty())
            .filter(|_| !self.message.only_filler(span.clone()))
            .filter(|value| !is_whole_request(text, value, WHOLE_REQUEST))
            .map(str::to_owned)
    }
}
