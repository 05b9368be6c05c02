//! Free-text generation: greedy decoding with a repetition penalty,
//! streamed as UTF-8 pieces.

use crate::answer::{NumberGrounding, single_digit};
use crate::error::Result;
use crate::inference::model::{KvCache, Logits, Weights};
use crate::inference::tokenizer::Tokenizer;
use crate::tuning::{PENALTY_WINDOW, REPEAT_PENALTY};

/// How one generation runs.
#[derive(Debug, Clone)]
pub(crate) struct GenerationLimits {
    /// Most tokens generated before stopping.
    pub max_tokens: usize,
    /// Divides (or, for negative logits, multiplies) the logit of every token
    /// among the last `penalty_window` generated, as llama.cpp's
    /// `repeat_penalty`; a tiny model otherwise loops on one phrase.
    pub repeat_penalty: f32,
    pub penalty_window: usize,
}

impl GenerationLimits {
    /// At most `max_tokens`, with the one repetition penalty of
    /// [`tuning`](crate::tuning).
    pub fn new(max_tokens: usize) -> Self {
        GenerationLimits {
            max_tokens,
            repeat_penalty: REPEAT_PENALTY,
            penalty_window: PENALTY_WINDOW,
        }
    }
}

/// Generates after `cache`, whose next-token logits are `logits`, until a
/// control token (`<|im_end|>`, `<|endoftext|>`) or the token limit. Each
/// complete UTF-8 piece goes to `on_piece` as soon as it exists; the whole
/// text is returned. With `grounding`, numbers are kept to the sources'.
pub(crate) fn generate(
    weights: &Weights,
    tokenizer: &Tokenizer,
    cache: &mut KvCache,
    mut logits: Vec<f32>,
    limits: &GenerationLimits,
    grounding: Option<&NumberGrounding>,
    on_piece: &mut dyn FnMut(&str),
) -> Result<Generated> {
    let mut pieces = Utf8Pieces::default();
    let mut text = String::new();
    let mut recent: Vec<u32> = Vec::new();
    let mut digits = String::new();
    let mut generated = 0usize;
    for _ in 0..limits.max_tokens {
        penalize(&mut logits, &recent, limits.repeat_penalty);
        if let Some(grounding) = grounding {
            grounding.mask(tokenizer, &digits, &mut logits);
        }
        let Some(next) = argmax(&logits) else {
            break;
        };
        if logits[next as usize] == f32::NEG_INFINITY {
            break;
        }
        match single_digit(tokenizer.bytes(next)) {
            Some(digit) => digits.push(digit),
            None => digits.clear(),
        }
        if tokenizer.is_control(next) {
            break;
        }
        if let Some(piece) = pieces.push(tokenizer.bytes(next)) {
            on_piece(&piece);
            text.push_str(&piece);
        }
        generated += 1;
        recent.push(next);
        if recent.len() > limits.penalty_window {
            recent.remove(0);
        }
        logits = weights
            .forward(&[next], cache, Logits::Last)?
            .squeeze(0)?
            .to_vec1()?;
    }
    if let Some(rest) = pieces.finish() {
        on_piece(&rest);
        text.push_str(&rest);
    }
    Ok(Generated {
        text,
        tokens: generated,
    })
}

/// Generated text and how many tokens it took.
pub(crate) struct Generated {
    pub text: String,
    pub tokens: usize,
}

pub(crate) fn argmax(values: &[f32]) -> Option<u32> {
    values
        .iter()
        .enumerate()
        .filter(|(_, value)| !value.is_nan())
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(index, _)| index as u32)
}

fn penalize(logits: &mut [f32], recent: &[u32], penalty: f32) {
    let mut seen = std::collections::HashSet::new();
    for &token in recent {
        if !seen.insert(token) {
            continue;
        }
        if let Some(logit) = logits.get_mut(token as usize) {
            *logit = if *logit >= 0.0 {
                *logit / penalty
            } else {
                *logit * penalty
            };
        }
    }
}

/// Turns a stream of token bytes into valid UTF-8 pieces: a multi-byte
/// character split across tokens (common for Japanese and emoji) is held
/// back until it is complete.
#[derive(Default)]
pub(crate) struct Utf8Pieces {
    pending: Vec<u8>,
}

impl Utf8Pieces {
    pub fn push(&mut self, bytes: &[u8]) -> Option<String> {
        self.pending.extend_from_slice(bytes);
        let valid = match std::str::from_utf8(&self.pending) {
            Ok(_) => self.pending.len(),
            Err(err) => match err.error_len() {
                // Invalid bytes that no later byte can fix: let them through
                // as replacement characters rather than stall the stream.
                Some(_) => self.pending.len(),
                None => err.valid_up_to(),
            },
        };
        if valid == 0 {
            return None;
        }
        let piece: Vec<u8> = self.pending.drain(..valid).collect();
        Some(String::from_utf8_lossy(&piece).into_owned())
    }

    pub fn finish(&mut self) -> Option<String> {
        if self.pending.is_empty() {
            None
        } else {
            let rest = std::mem::take(&mut self.pending);
            Some(String::from_utf8_lossy(&rest).into_owned())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_character_split_across_tokens_is_held_until_complete() {
        let mut pieces = Utf8Pieces::default();
        let bytes = "東京".as_bytes();
        assert_eq!(pieces.push(&bytes[..2]), None);
        assert_eq!(pieces.push(&bytes[2..4]).as_deref(), Some("東"));
        assert_eq!(pieces.push(&bytes[4..]).as_deref(), Some("京"));
        assert_eq!(pieces.finish(), None);
    }

    #[test]
    fn an_unfinished_character_at_the_end_is_replaced() {
        let mut pieces = Utf8Pieces::default();
        assert_eq!(pieces.push(&"🍕".as_bytes()[..3]), None);
        assert_eq!(pieces.finish().as_deref(), Some("\u{fffd}"));
    }

    #[test]
    fn the_penalty_lowers_repeated_tokens_whatever_their_sign() {
        let mut logits = vec![2.0, -2.0, 1.0];
        penalize(&mut logits, &[0, 1, 0], 2.0);
        assert_eq!(logits, vec![1.0, -4.0, 1.0]);
    }
}
