//! Everything about one message that decoding a parameter value consults:
//! where values may start and end, the numbers, and the words that carry no
//! value of their own.

use std::ops::Range;

use riverse_tool::ToolManifest;

use crate::boundaries::Boundaries;
use crate::numbers::{NumberSpan, numbers};
use crate::runs::runs;
use crate::script::is_cjk;
use crate::triggers::Triggers;
use crate::words::{FUNCTION_WORDS, PREPOSITIONS, is_particle};

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
    /// `trigger[i]`: byte `i` belongs to a word that names the tool (an
    /// action word, or a glossary term of the tool's concept: 天気, 検索).
    pub trigger: Vec<bool>,
    /// The Latin-script words of the message (byte ranges) that carry no
    /// value of their own: action words, prepositions and function words. A
    /// copied value made of these only ("Set a timer for") is dropped.
    filler: Vec<Range<usize>>,
}

impl<'a> MessageSpans<'a> {
    /// Reads `text` for the parameters of `tool`. A value never starts on a
    /// preposition: it is what follows one ("in London").
    pub fn new(text: &'a str, tool: &ToolManifest) -> Self {
        let triggers = Triggers::of(tool);
        let mut boundaries = Boundaries::of(text);
        let mut action = vec![false; text.len() + 1];
        let mut trigger = triggers.glossary_mask(text);
        let mut filler = Vec::new();
        let mut previous: Option<Range<usize>> = None;
        for word in latin_words(text) {
            let lower = text[word.clone()].to_lowercase();
            let names_letter = is_name_letter(text, &word, previous.replace(word.clone()));
            action[word.start] = triggers.recurring.contains(&lower);
            if action[word.start] {
                trigger[word.clone()].fill(true);
            }
            let preposition = PREPOSITIONS.contains(&lower);
            if preposition {
                boundaries.starts[word.start] = false;
            }
            if action[word.start]
                || preposition
                || (FUNCTION_WORDS.contains(&lower) && !names_letter)
            {
                filler.push(word);
            }
        }
        MessageSpans {
            text,
            boundaries,
            numbers: numbers(text),
            action,
            trigger,
            filler,
        }
    }

    /// Whether `span` holds nothing but filler words (and spaces or
    /// punctuation between them).
    pub fn only_filler(&self, span: Range<usize>) -> bool {
        self.holds_nothing_but(span, |_| false)
    }

    /// Whether `span` holds nothing but filler words and words that name
    /// the tool: no value.
    pub fn only_filler_or_triggers(&self, span: Range<usize>) -> bool {
        self.holds_nothing_but(span, |at| self.trigger[at])
    }

    /// Whether every letter of `span` is in a filler word, or at a byte
    /// `also` accepts, or a Japanese particle.
    fn holds_nothing_but(&self, span: Range<usize>, also: impl Fn(usize) -> bool) -> bool {
        self.outside_filler(span).all(|(at, c)| {
            !c.is_alphanumeric() || also(at) || (self.boundaries.blocked[at] && is_particle(c))
        })
    }

    /// The characters of `span`, with where each starts, that no filler
    /// word holds.
    fn outside_filler(&self, span: Range<usize>) -> impl Iterator<Item = (usize, char)> + '_ {
        let mut at = span.start;
        std::iter::from_fn(move || {
            while let Some(word) = self.filler.iter().find(|word| word.start == at) {
                at = word.end;
            }
            if at >= span.end {
                return None;
            }
            let c = self.text[at..].chars().next()?;
            let here = at;
            at += c.len_utf8();
            Some((here, c))
        })
    }

    /// Whether `span` holds a word that names the tool (a function word
    /// aside): "大阪のラーメン屋をネット" and "我搜索一下北京的烤鸭店" are the
    /// request, not a value taken from it.
    pub fn holds_trigger(&self, span: Range<usize>) -> bool {
        span.filter(|&at| self.text.is_char_boundary(at))
            .any(|at| self.trigger[at] && !self.function_word_at(at))
    }

    fn function_word_at(&self, at: usize) -> bool {
        self.filler.iter().any(|word| {
            word.contains(&at) && {
                let lower = self.text[word.clone()].to_lowercase();
                PREPOSITIONS.contains(&lower) || FUNCTION_WORDS.contains(&lower)
            }
        })
    }

    /// How much content `span` holds: one unit per word that is neither
    /// filler nor the tool's own, half a unit per CJK character that is
    /// neither (a CJK word is mostly two characters).
    pub fn content_units(&self, span: Range<usize>) -> f32 {
        self.outside_filler(span)
            .filter(|&(at, c)| {
                c.is_alphanumeric() && !self.trigger[at] && !self.boundaries.blocked[at]
            })
            .map(|(at, c)| {
                if is_cjk(c) {
                    0.5
                } else if prev_in_word(self.text, at) {
                    0.0
                } else {
                    1.0
                }
            })
            .sum()
    }

    /// Whether the Latin-script word ending at `end` is a preposition or
    /// function word: a value does not end on one ("call mom at").
    pub fn ends_on_function_word(&self, end: usize) -> bool {
        self.filler
            .iter()
            .any(|word| word.end == end && !self.action[word.start])
    }
}

/// Whether `word` is a capital letter that ends a name ("Greenhouse A",
/// "Gate A"), not the article: it follows a capitalised word.
fn is_name_letter(text: &str, word: &Range<usize>, previous: Option<Range<usize>>) -> bool {
    &text[word.clone()] == "A"
        && previous.is_some_and(|previous| {
            text[previous.clone()].starts_with(|c: char| c.is_uppercase())
                && text[previous.end..word.start].trim().is_empty()
        })
}

/// Whether the character before `at` continues the same spaced-script word.
fn prev_in_word(text: &str, at: usize) -> bool {
    text[..at]
        .chars()
        .next_back()
        .is_some_and(|c| (c.is_alphanumeric() || c == '\'') && !is_cjk(c))
}

/// The byte ranges of the words of `text` written in a spaced script:
/// letters, digits and apostrophes, outside CJK text.
fn latin_words(text: &str) -> Vec<Range<usize>> {
    runs(text, |_, c| {
        (c.is_alphanumeric() || c == '\'') && !is_cjk(c)
    })
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
    fn a_capital_letter_after_a_name_is_part_of_it() {
        let vents = crate::test_tools::tool(
            "set_vent_opening",
            "Moves roof vents to given position",
            &[("zone", "Greenhouse zone")],
        );
        let message = "open the vents in Greenhouse A to 25%";
        let spans = MessageSpans::new(message, &vents);
        let end = message.find(" to").unwrap();
        assert!(!spans.ends_on_function_word(end), "Greenhouse A");
        let article = "open a vent";
        assert!(MessageSpans::new(article, &vents).ends_on_function_word(6));
    }

    #[test]
    fn a_span_of_filler_words_only_carries_no_value() {
        let message = "Set a timer for the tea";
        let spans = MessageSpans::new(message, &timer());
        assert!(spans.only_filler(0..message.find(" the").unwrap()));
        assert!(!spans.only_filler(0..message.len()));
    }

    #[test]
    fn words_naming_the_tool_carry_no_value() {
        let clock: ToolManifest = serde_json::from_value(serde_json::json!({
            "name": "clock",
            "description": "Get the current time",
            "parameters": {"timezone": "a time zone"},
        }))
        .unwrap();
        let message = "ロンドンの今の時間は？";
        let spans = MessageSpans::new(message, &clock);
        let time = message.find("時間").unwrap();
        assert!(spans.only_filler_or_triggers(time..time + "時間".len()));
        assert!(!spans.only_filler_or_triggers(0..time));
        let message = "Set a timer for the tea";
        let spans = MessageSpans::new(message, &timer());
        assert!(spans.only_filler_or_triggers(0..message.find(" the").unwrap()));
        assert!(spans.ends_on_function_word(message.find(" the").unwrap()));
    }

    #[test]
    fn content_is_counted_in_words_and_half_characters() {
        let message = "Set a timer for the green tea";
        let spans = MessageSpans::new(message, &timer());
        assert_eq!(spans.content_units(0..message.len()), 2.0);
        let message = "大阪のラーメン屋";
        let spans = MessageSpans::new(message, &timer());
        assert_eq!(
            spans.content_units(0..message.len()),
            3.5,
            "の is no content"
        );
    }

    #[test]
    fn no_value_starts_on_a_preposition() {
        let message = "weather in London";
        let spans = MessageSpans::new(message, &timer());
        assert!(!spans.boundaries.starts[message.find("in").unwrap()]);
        assert!(spans.boundaries.starts[message.find("London").unwrap()]);
    }
}
