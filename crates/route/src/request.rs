//! A copied value that is the whole request rather than something taken
//! from it.

use crate::actions::is_action_verb;
use crate::script::is_cjk;

/// How long a message copied whole must be to count as a request: a bare
/// value sent alone ("AAPL", "Paris") is shorter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestLength {
    /// Words, in a spaced script.
    pub words: usize,
    /// CJK characters, in a script without spaces.
    pub cjk_chars: usize,
}

/// Whether `value` is `message` itself (but for its final punctuation), a
/// sentence of at least `length` words of letters: a request, not a
/// value taken from one ("What's today's date" is no time zone).
///
/// So is the question a message opens with, copied from its start ("How
/// many calories did I burn" of "How many calories did I burn on my
/// run?"): it asks, it is no value.
pub fn is_whole_request(message: &str, value: &str, length: RequestLength) -> bool {
    let request = message
        .trim()
        .trim_end_matches(|c: char| c.is_ascii_punctuation() || "？！。".contains(c));
    if opening_question(request, value) && value.split_whitespace().count() >= length.words {
        return true;
    }
    if value != request.trim() {
        return false;
    }
    // Only words of letters count: an expression ("12 * (3 + 4)") is a
    // value whole, a sentence with a number in it ("cancel member 40217's
    // card") is not.
    let words = value
        .split_whitespace()
        .filter(|word| word.chars().any(|c| c.is_alphabetic() && !is_cjk(c)))
        .count();
    let cjk = value.chars().filter(|&c| is_cjk(c)).count();
    words >= length.words || cjk >= length.cjk_chars
}

/// Whether `value` opens `request` and opens with a question word or with
/// a verb that names an action ("Find me a quick recipe"): the request's
/// own opening.
fn opening_question(request: &str, value: &str) -> bool {
    const QUESTION_WORDS: [&str; 9] = [
        "how", "what", "what's", "whats", "which", "who", "when", "where", "why",
    ];
    let first = value.split_whitespace().next().unwrap_or("").to_lowercase();
    request.trim_start().starts_with(value)
        && (QUESTION_WORDS.contains(&first.as_str()) || is_action_verb(&first))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LENGTH: RequestLength = RequestLength {
        words: 3,
        cjk_chars: 6,
    };

    #[test]
    fn a_sentence_copied_whole_is_a_request_not_a_value() {
        for (message, value) in [
            ("What's today's date?", "What's today's date"),
            ("上海今天天气怎么样？", "上海今天天气怎么样"),
            (
                "How many calories did I burn on this run?",
                "How many calories did I burn",
            ),
            (
                "Find me a quick vegetarian recipe, under 30 minutes",
                "Find me a quick vegetarian recipe",
            ),
            (
                "Move the 3 o'clock call to Friday",
                "Move the 3 o'clock call to Friday",
            ),
            ("帮我取消订单58231的配送", "帮我取消订单58231的配送"),
        ] {
            assert!(is_whole_request(message, value, LENGTH), "{message}");
        }
    }

    #[test]
    fn a_bare_value_a_number_or_a_part_is_no_request() {
        for (message, value) in [
            ("AAPL", "AAPL"),
            ("12かける8", "12かける8"),
            ("12 * (3 + 4) / 2", "12 * (3 + 4) / 2"),
            ("AAPL 2024 Q3", "AAPL 2024 Q3"),
            ("Weather in Paris", "Paris"),
            ("Weather in Paris", "Weather in Paris 2"),
        ] {
            assert!(!is_whole_request(message, value, LENGTH), "{message}");
        }
    }
}
