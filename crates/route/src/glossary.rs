//! A small bilingual glossary that lets the similarity match cross languages
//! and synonyms: a text containing a known term gains the English words of
//! its concept, so "札幌は雨が降っていますか" also reads "rain weather" and
//! meets a manifest written in English.
//!
//! The data is `data/glossary.txt`, compiled in. Tool manifests are mostly
//! English while people ask in their own language; n-grams alone cannot see
//! that 天気 and "weather" are one thing, and the model is too small to
//! translate.
//!
//! A concept marked `[action]` names what is done ("cancel", キャンセル), not
//! what about: [`glosses`] gives its words, for the similarity match, but
//! [`subject_glosses`] and [`related_words`] leave them out, as the subject
//! of an English request leaves out the verb it opens with ("Cancel the
//! order" is about an order, not about everything that can be cancelled).

use std::ops::Range;
use std::sync::OnceLock;

use crate::words::data_lines;

/// The mark a line of the data opens with when its concept is an action.
const ACTION_MARK: &str = "[action]";

/// One concept: the English words added, the terms that call for them, and
/// whether it names an action rather than a subject.
#[derive(Debug)]
struct Concept {
    words: String,
    terms: Vec<String>,
    action: bool,
}

static CONCEPTS: OnceLock<Vec<Concept>> = OnceLock::new();

fn concepts() -> &'static [Concept] {
    CONCEPTS.get_or_init(|| parse(include_str!("../data/glossary.txt")))
}

fn parse(data: &str) -> Vec<Concept> {
    data_lines(data)
        .filter_map(|line| {
            let (words, terms) = line.split_once(':')?;
            let words = words.trim();
            let (words, action) = match words.strip_prefix(ACTION_MARK) {
                Some(rest) => (rest.trim(), true),
                None => (words, false),
            };
            Some(Concept {
                words: words.to_owned(),
                terms: terms.split_whitespace().map(str::to_lowercase).collect(),
                action,
            })
        })
        .collect()
}

/// The English words of every concept `text` mentions, space-separated
/// (empty when it mentions none). `text` should be lowercase.
pub fn glosses(text: &str) -> String {
    glosses_of(text, |_| true)
}

/// The English words of every concept `text` mentions that names a
/// subject, not an action (see the module's documentation).
pub fn subject_glosses(text: &str) -> String {
    glosses_of(text, |concept| !concept.action)
}

fn glosses_of(text: &str, keep: impl Fn(&Concept) -> bool) -> String {
    let mut found: Vec<&str> = Vec::new();
    for concept in concepts().iter().filter(|concept| keep(concept)) {
        if concept.terms.iter().any(|term| mentions(text, term)) {
            found.push(&concept.words);
        }
    }
    found.join(" ")
}

/// The byte ranges of `text` where a term occurs whose concept's English
/// words pass `wanted`. `text` should be lowercase (or caseless, as CJK).
pub fn term_spans(text: &str, wanted: impl Fn(&str) -> bool) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    for concept in concepts() {
        if !concept.words.split_whitespace().any(&wanted) {
            continue;
        }
        for term in &concept.terms {
            spans.extend(occurrences(text, term).map(|at| at..at + term.len()));
        }
    }
    spans
}

/// The length in bytes of the longest term `text` starts with whose
/// concept's English words pass `wanted`.
pub fn term_at(text: &str, wanted: impl Fn(&str) -> bool) -> Option<usize> {
    concepts()
        .iter()
        .filter(|concept| concept.words.split_whitespace().any(&wanted))
        .flat_map(|concept| &concept.terms)
        .filter(|term| text.starts_with(term.as_str()))
        .map(String::len)
        .max()
}

/// The English words of every subject concept whose own English words
/// include `word` (lowercase): "sunny" gives "sunny sun weather", so a word
/// of a concept meets the concept's other words.
pub fn related_words(word: &str) -> impl Iterator<Item = &'static str> {
    concepts()
        .iter()
        .filter(|concept| !concept.action)
        .filter(move |concept| concept.words.split_whitespace().any(|own| own == word))
        .flat_map(|concept| concept.words.split_whitespace())
}

/// Every term of the glossary, in file order.
pub fn terms() -> impl Iterator<Item = &'static str> {
    concepts()
        .iter()
        .flat_map(|concept| concept.terms.iter().map(String::as_str))
}

/// Whether `term` occurs in `text`; a term starting or ending with an ASCII
/// letter or digit must do so at a word boundary ("cat" is not in "catch").
pub(crate) fn mentions(text: &str, term: &str) -> bool {
    occurrences(text, term).next().is_some()
}

/// Where `term` occurs in `text`, by the rule of [`mentions`].
fn occurrences<'a>(text: &'a str, term: &'a str) -> impl Iterator<Item = usize> + 'a {
    let word_char = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    let starts_word = word_char(term.chars().next());
    let ends_word = word_char(term.chars().next_back());
    text.match_indices(term).filter_map(move |(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + term.len()..].chars().next();
        let glued_before = starts_word && word_char(before);
        let glued_after = ends_word && word_char(after);
        (!glued_before && !glued_after).then_some(at)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn japanese_and_chinese_terms_gain_english_words() {
        assert!(glosses("札幌は雨が降っていますか").contains("rain"));
        assert!(glosses("上海今天天气怎么样").contains("weather"));
        assert!(glosses("5ポンドをキログラムに変換して").contains("convert"));
    }

    #[test]
    fn latin_terms_match_whole_words_only() {
        assert!(glosses("google the opening hours").contains("search"));
        assert!(!glosses("a reprint of the book").contains("print"));
        assert!(glosses("print notes.txt").contains("print"));
    }

    #[test]
    fn terms_are_found_where_their_concept_is_wanted() {
        let text = "ロンドンの今の時間は？";
        let spans = term_spans(text, |word| word == "clock");
        assert_eq!(spans.len(), 1);
        assert_eq!(&text[spans[0].clone()], "時間");
        assert!(term_spans(text, |word| word == "weather").is_empty());
    }

    #[test]
    fn an_action_concept_names_no_subject() {
        let text = "注文をキャンセルしたい";
        assert!(glosses(text).contains("cancel"));
        assert!(glosses(text).contains("order"));
        assert!(!subject_glosses(text).contains("cancel"));
        assert!(subject_glosses(text).contains("order"));
        assert!(related_words("order").any(|word| word == "order"));
        assert_eq!(related_words("cancel").count(), 0);
    }

    #[test]
    fn the_action_mark_is_no_word_of_its_concept() {
        let concepts = parse("[action] cancel: キャンセル\norder: 注文\n");
        assert!(concepts[0].action && concepts[0].words == "cancel");
        assert!(!concepts[1].action && concepts[1].words == "order");
    }

    #[test]
    fn text_without_terms_gains_nothing() {
        assert_eq!(glosses("hello there"), "");
    }

    #[test]
    fn every_line_of_the_data_is_a_concept() {
        let data = include_str!("../data/glossary.txt");
        let lines = data_lines(data).count();
        assert_eq!(concepts().len(), lines, "a line lacks its colon");
        assert!(concepts().iter().all(|concept| !concept.terms.is_empty()));
    }
}
