//! Enumerations in a message ("coffee and oat milk", "TSLA, AMZN, GOOGL",
//! 牛乳と卵と食パン): the values of a list parameter.

use std::ops::Range;

use crate::candidates::Candidate;
use crate::script::is_cjk;

/// What may stand between two items of an enumeration, spaces aside.
const SEPARATORS: &[&str] = &[
    ",", ", and", ", or", "and", "or", "&", "/", "、", "，", "と", "や", "和", "及", "与", "跟",
];

/// What an item never holds: a separator between words ("oat milk and
/// basil" is two items, not one).
const INNER_SEPARATORS: &[&str] = &[",", " and ", " or ", " & ", "、", "，"];

/// Japanese particles that mark a clause's object, subject or topic: an
/// item ends before them (シューズとチョークバッグを借りたい lists two
/// things, not チョークバッグを借りたい).
const CLAUSE_PARTICLES: [char; 3] = ['を', 'が', 'は'];

/// Most items of one enumeration.
const MAX_ITEMS: usize = 12;

/// An enumeration: candidates joined by separators.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enumeration {
    /// From the first item's start to the last one's end.
    pub bytes: Range<usize>,
    pub items: Vec<String>,
}

/// The enumerations of `text` made of `found`, its candidate values: from
/// every candidate, the chain that takes the longest next item each time,
/// and each of that chain's prefixes of two items or more. An item holds no
/// separator itself.
pub fn enumerations(text: &str, found: &[Candidate]) -> Vec<Enumeration> {
    let item = |candidate: &Candidate| {
        !INNER_SEPARATORS
            .iter()
            .any(|separator| candidate.value.contains(separator))
            && !candidate.value.contains(CLAUSE_PARTICLES)
            && !leads_into_latin(&candidate.value)
    };
    let found: Vec<&Candidate> = found.iter().filter(|c| item(c)).collect();
    // Where a message lists with 、, its full-width comma ends a clause
    // (T-902，队员有 Ayu、Bing: the roster is no list with the event).
    let clause_comma = text.contains('、');
    let joins = |before: &Candidate, after: &Candidate| {
        let separator = (before.bytes.end <= after.bytes.start)
            .then(|| text[before.bytes.end..after.bytes.start].trim());
        separator.is_some_and(|separator| {
            SEPARATORS.contains(&separator) && !(clause_comma && separator == "，")
        })
    };
    let mut enumerations: Vec<Enumeration> = Vec::new();
    for &first in &found {
        let mut chain = vec![first];
        while chain.len() < MAX_ITEMS {
            let last = chain[chain.len() - 1];
            let next = found
                .iter()
                .copied()
                .filter(|candidate| joins(last, candidate))
                .max_by_key(|candidate| candidate.bytes.len());
            match next {
                Some(next) => chain.push(next),
                None => break,
            }
        }
        for length in 2..=chain.len() {
            let items = &chain[..length];
            let enumeration = Enumeration {
                bytes: items[0].bytes.start..items[length - 1].bytes.end,
                items: items.iter().map(|item| item.value.clone()).collect(),
            };
            if !enumerations.contains(&enumeration) {
                enumerations.push(enumeration);
            }
        }
    }
    enumerations
}

/// Whether `value` runs from Chinese or Japanese words into a spaced Latin
/// one (队员有 Ayu: "the players are Ayu"): a clause's lead-in and its
/// first item, not one item.
fn leads_into_latin(value: &str) -> bool {
    value.split_once(' ').is_some_and(|(head, tail)| {
        head.chars().any(is_cjk) && tail.starts_with(|c: char| c.is_ascii_alphabetic())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Candidates at the given words of `text`.
    fn at(text: &str, words: &[&str]) -> Vec<Candidate> {
        words
            .iter()
            .map(|word| {
                let start = text.find(word).unwrap();
                Candidate {
                    bytes: start..start + word.len(),
                    value: (*word).to_owned(),
                    shape: None,
                }
            })
            .collect()
    }

    fn items(found: &[Enumeration]) -> Vec<Vec<&str>> {
        found
            .iter()
            .map(|e| e.items.iter().map(String::as_str).collect())
            .collect()
    }

    #[test]
    fn a_full_width_comma_beside_the_list_mark_joins_no_items() {
        let text = "青龙队报名 T-902，队员有 Ayu、Bing、Chen";
        let found = at(text, &["T-902", "队员有 Ayu", "Ayu", "Bing", "Chen"]);
        let found = enumerations(text, &found);
        let lists = items(&found);
        assert!(lists.contains(&vec!["Ayu", "Bing", "Chen"]));
        assert!(!lists.iter().any(|list| list.contains(&"队员有 Ayu")));
        assert!(!lists.iter().any(|list| list.contains(&"T-902")));
        let commas = "买苹果，香蕉，橙子";
        let fruit = at(commas, &["苹果", "香蕉", "橙子"]);
        let fruit = enumerations(commas, &fruit);
        assert!(items(&fruit).contains(&vec!["苹果", "香蕉", "橙子"]));
    }

    #[test]
    fn items_joined_by_separators_make_enumerations() {
        let text = "buy pears, figs and dates";
        let found = at(text, &["pears", "figs", "dates", "buy"]);
        assert_eq!(
            items(&enumerations(text, &found)),
            [
                vec!["pears", "figs"],
                vec!["pears", "figs", "dates"],
                vec!["figs", "dates"]
            ]
        );
        let text = "りんごとみかんを買う";
        let found = at(text, &["りんご", "みかん"]);
        assert_eq!(
            items(&enumerations(text, &found)),
            [vec!["りんご", "みかん"]]
        );
    }

    #[test]
    fn the_longest_next_item_is_taken() {
        let text = "tea and oat milk";
        let found = at(text, &["tea", "oat", "oat milk"]);
        assert_eq!(
            items(&enumerations(text, &found)),
            [vec!["tea", "oat milk"]]
        );
    }

    #[test]
    fn an_item_holds_no_separator() {
        let text = "add eggs, oat milk and basil";
        let found = at(text, &["eggs", "oat milk and basil", "oat milk", "basil"]);
        assert!(
            items(&enumerations(text, &found)).contains(&vec!["eggs", "oat milk", "basil"]),
            "{:?}",
            enumerations(text, &found)
        );
        assert!(!items(&enumerations(text, &found)).contains(&vec!["eggs", "oat milk and basil"]));
    }

    #[test]
    fn a_japanese_item_ends_before_its_clause_particle() {
        let text = "シューズとチョークバッグを借りたいです";
        let found = at(
            text,
            &["シューズ", "チョークバッグ", "チョークバッグを借りたいです"],
        );
        assert_eq!(
            items(&enumerations(text, &found)),
            [vec!["シューズ", "チョークバッグ"]]
        );
    }

    #[test]
    fn words_between_items_break_the_chain() {
        let text = "pears are better than figs";
        let found = at(text, &["pears", "figs"]);
        assert!(enumerations(text, &found).is_empty());
    }
}
