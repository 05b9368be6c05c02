//! Everything about one message that decoding a parameter value consults:
//! where values may start and end, the numbers, and the words that carry no
//! value of their own.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use riverse_tool::ToolManifest;

use crate::boundaries::Boundaries;
use crate::numbers::{NumberSpan, numbers};
use crate::script::is_cjk;
use crate::words::{FUNCTION_WORDS, PREPOSITIONS};

/// A message read for one tool's parameters.
#[derive(Debug, Clone)]
pub struct MessageSpans<'a> {
    pub text: &'a str,
    pub boundaries: Boundaries,
    pub numbers: Vec<NumberSpan>,
    /// `action[i]`: the word starting at byte `i` is one the tool's own
    /// manifest keeps using (`search`, `timer`, `convert`): it names the
    /// action, and a value starting there is probably the instruction
    /// copied whole ("Search for the best trails").
    pub action: Vec<bool>,
    /// The Latin-script words of the message (byte ranges) that carry no
    /// value of their own: action words, prepositions and function words. A
    /// copied value made of these only ("Set a timer for") is dropped.
    filler: Vec<Range<usize>>,
}

impl<'a> MessageSpans<'a> {
    /// Reads `text` for the parameters of `tool`. A value never starts on a
    /// preposition: it is what follows one ("in London").
    pub fn new(text: &'a str, tool: &ToolManifest) -> Self {
        let recurring = recurring_words(tool);
        let mut boundaries = Boundaries::of(text);
        let mut action = vec![false; text.len() + 1];
        let mut filler = Vec::new();
        for word in latin_words(text) {
            let lower = text[word.clone()].to_lowercase();
            action[word.start] = recurring.contains(&lower);
            let preposition = PREPOSITIONS.contains(&lower);
            if preposition {
                boundaries.starts[word.start] = false;
            }
            if action[word.start] || preposition || FUNCTION_WORDS.contains(&lower) {
                filler.push(word);
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
    pub fn only_filler(&self, span: Range<usize>) -> bool {
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

/// The byte ranges of the words of `text` written in a spaced script:
/// letters, digits and apostrophes, outside CJK text.
fn latin_words(text: &str) -> Vec<Range<usize>> {
    let mut words = Vec::new();
    let mut start = None;
    for (at, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        let in_word = (c.is_alphanumeric() || c == '\'') && !is_cjk(c);
        match (in_word, start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                words.push(from..at);
                start = None;
            }
            _ => {}
        }
    }
    words
}

/// Words (Latin script, lowercased) found in at least two of the tool's name,
/// description and examples. Values differ from example to example; the
/// words for the action recur.
fn recurring_words(tool: &ToolManifest) -> HashSet<String> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for text in tool_texts(tool) {
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

/// The texts a tool is recognised by: its description, its name with
/// separators as spaces (`convert_units` reads "convert units"), and its
/// examples.
pub fn tool_texts(tool: &ToolManifest) -> Vec<String> {
    let mut texts = vec![tool.description.clone(), tool.name.replace(['_', '-'], " ")];
    texts.extend(tool.examples.iter().cloned());
    texts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timer() -> ToolManifest {
        serde_json::from_value(serde_json::json!({
            "name": "set_timer",
            "description": "Start a countdown timer",
            "parameters": {"label": "What it is for"},
            "examples": ["Set a timer for 10 minutes"]
        }))
        .unwrap()
    }

    #[test]
    fn action_words_are_those_the_manifest_repeats() {
        let message = "Set a timer for the tea";
        let spans = MessageSpans::new(message, &timer());
        assert!(spans.action[message.find("timer").unwrap()]);
        assert!(spans.action[0], "set is in the name and an example");
        assert!(!spans.action[message.find("tea").unwrap()]);
    }

    #[test]
    fn a_span_of_filler_words_only_carries_no_value() {
        let message = "Set a timer for the tea";
        let spans = MessageSpans::new(message, &timer());
        assert!(spans.only_filler(0..message.find(" the").unwrap()));
        assert!(!spans.only_filler(0..message.len()));
    }

    #[test]
    fn no_value_starts_on_a_preposition() {
        let message = "weather in London";
        let spans = MessageSpans::new(message, &timer());
        assert!(!spans.boundaries.starts[message.find("in").unwrap()]);
        assert!(spans.boundaries.starts[message.find("London").unwrap()]);
    }
}
