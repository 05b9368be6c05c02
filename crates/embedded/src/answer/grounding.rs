//! Numbers in an answer to tool results come from the results.

use crate::inference::tokenizer::Tokenizer;

/// Keeps generated numbers to those the sources contain: a digit may only
/// extend the current run of digits towards one of the source numbers, and a
/// run may only end where a source number ends. The model can still phrase
/// the answer freely; it cannot invent "21°C" when the tool said 18.
#[derive(Debug, Clone, Default)]
pub(crate) struct NumberGrounding {
    /// Every maximal run of ASCII digits in the sources.
    numbers: Vec<String>,
}

impl NumberGrounding {
    pub fn new<'a>(sources: impl IntoIterator<Item = &'a str>) -> Self {
        let mut numbers: Vec<String> = Vec::new();
        for source in sources {
            let mut run = String::new();
            for c in source.chars().chain(std::iter::once(' ')) {
                if c.is_ascii_digit() {
                    run.push(c);
                } else if !run.is_empty() {
                    numbers.push(std::mem::take(&mut run));
                }
            }
        }
        numbers.sort();
        numbers.dedup();
        NumberGrounding { numbers }
    }

    pub(crate) fn mask(&self, tokenizer: &Tokenizer, run: &str, logits: &mut [f32]) {
        let run_complete = run.is_empty() || self.numbers.iter().any(|n| n == run);
        for (id, logit) in logits.iter_mut().enumerate() {
            let bytes = tokenizer.bytes(id as u32);
            let allowed = if let Some(digit) = single_digit(bytes) {
                let mut extended = run.to_owned();
                extended.push(digit);
                self.numbers.iter().any(|n| n.starts_with(&extended))
            } else if bytes.iter().any(u8::is_ascii_digit) {
                // Multi-digit tokens never come out of this tokenizer's
                // encoder; the model has barely seen them.
                false
            } else {
                run_complete
            };
            if !allowed {
                *logit = f32::NEG_INFINITY;
            }
        }
    }
}

pub(crate) fn single_digit(bytes: &[u8]) -> Option<char> {
    match bytes {
        [byte] if byte.is_ascii_digit() => Some(char::from(*byte)),
        _ => None,
    }
}
