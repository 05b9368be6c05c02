//! Splitting a text into the runs where a test holds: the one splitter behind
//! spaced-script words, shaped tokens and marked terms.

use std::ops::Range;

/// The byte ranges of the maximal runs of characters for which
/// `inside(at, c)` holds, `at` being where `c` starts.
pub(crate) fn runs(text: &str, inside: impl Fn(usize, char) -> bool) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    let mut start = None;
    for (at, c) in text.char_indices() {
        match (inside(at, c), start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                found.push(from..at);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(from) = start {
        found.push(from..text.len());
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_maximal_and_one_may_end_the_text() {
        let text = "ab  cd東e";
        let words = runs(text, |_, c| c.is_ascii_alphabetic());
        let words: Vec<&str> = words.into_iter().map(|run| &text[run]).collect();
        assert_eq!(words, ["ab", "cd", "e"]);
        assert!(runs("", |_, _| true).is_empty());
        assert!(runs("   ", |_, c| c != ' ').is_empty());
    }
}
