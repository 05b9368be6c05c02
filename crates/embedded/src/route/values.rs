//! Constrained decoding of one number parameter (strings and booleans are
//! chosen in [`super::fill`]): a number is one of the numbers the message
//! contains, chosen by score, or `null`, which leaves it out of the call.

use std::ops::Range;

use riverse_route::{MessageSpans, NumberSpan};
use riverse_tool::ParamType;
use serde_json::Value;

use crate::error::Result;
use crate::inference::engine::{Engine, State};
use crate::tuning::{ORDER_PENALTY, SKIP_PENALTY};

/// Token ids the value decoder needs, looked up once per model.
pub(crate) struct ValueTokens {
    /// ` "`: a string value opens.
    pub open_string: Vec<u32>,
    /// ` null}`: the parameter is left out (scored as the object's end).
    pub null_closed: Vec<u32>,
}

impl ValueTokens {
    pub fn new(engine: &Engine) -> Result<Self> {
        Ok(ValueTokens {
            open_string: engine.tokenizer.encode(" \"")?,
            null_closed: engine.tokenizer.encode(" null}")?,
        })
    }
}

/// A decided value and the message bytes it came from.
pub(crate) struct Decoded {
    pub value: Option<Value>,
    /// The message bytes the value was taken from.
    pub taken: Option<Range<usize>>,
}

/// Decodes the number or boolean that follows `state`, which ends just
/// after `"name":`. `close` is the JSON text that follows the value (`,`
/// before another key, `}` after the last), used to score numbers fairly.
/// `taken` holds the spans earlier parameters took.
pub(crate) fn decode_value(
    engine: &Engine,
    state: &State,
    kind: ParamType,
    message: &MessageSpans<'_>,
    taken: &[Range<usize>],
    close: &str,
) -> Result<Decoded> {
    let omitted = || Decoded {
        value: None,
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
        ParamType::String => Ok(omitted()),
        ParamType::Int | ParamType::Float => {
            let numbers: Vec<&NumberSpan> = message
                .numbers
                .iter()
                .filter(|number| kind == ParamType::Float || number.is_integer)
                .filter(|number| !taken.iter().any(|span| overlaps(span, &number.bytes)))
                .collect();
            if numbers.is_empty() {
                return Ok(omitted());
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
                    let value = match kind {
                        ParamType::Int => number.text.parse::<i64>().ok().map(Value::from),
                        _ => number.text.parse::<f64>().ok().map(Value::from),
                    };
                    Ok(Decoded {
                        value,
                        taken: Some(number.bytes.clone()),
                    })
                }
                _ => Ok(omitted()),
            }
        }
        // Booleans are read from the message's words (see `fill`).
        ParamType::Bool => Ok(omitted()),
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
