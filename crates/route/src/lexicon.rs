//! Chinese and Japanese words read as English, so a request written in
//! those languages meets a tool described in English: 搬家 reads "move
//! house relocate", 順位表 "ranking table", 財布 "purse wallet".
//!
//! The [`glossary`] is hand-written and small: the concepts routing's
//! rules name. A request names whatever its app is about (yarn, standings,
//! kilns), far more words than any hand-written list holds. This is a
//! general dictionary instead, one per language: `data/lexicon_zh.txt`
//! from CC-CEDICT and `data/lexicon_ja.txt` from JMdict, written by
//! `scripts/build-lexicon.py` (their licence, CC BY-SA 4.0, is the
//! files'), a term of two to six characters and the first English words
//! of its first senses. Text with kana is read as Japanese, other CJK text
//! as Chinese: one term means different things in each (需要 is "need" in
//! Chinese, "demand" of a market in Japanese).
//!
//! CJK text has no spaces, so a run of it is read left to right, taking at
//! each place the longest term that starts there; a character that starts
//! none is passed by. Single characters are not terms: alone they mean too
//! many things (的, 了, 点) to name a subject.

use std::collections::HashSet;
use std::sync::LazyLock;

use crate::glossary;
use crate::script::{Script, has_kana, is_cjk, script};
use crate::words::data_lines;

/// The longest term, in characters.
const LONGEST_TERM: usize = 6;

/// A lexicon: each term and its English words, space-separated, in the
/// order of the terms (the data files are sorted), looked up by binary
/// search: loading it is one pass over its lines, where a hash map would
/// cost ten times as much on the first CJK message.
struct Lexicon {
    entries: Vec<(&'static str, &'static str)>,
}

impl Lexicon {
    fn parse(data: &'static str) -> Self {
        Lexicon {
            entries: data_lines(data)
                .filter_map(|line| line.split_once('\t'))
                .collect(),
        }
    }

    /// The English words of `term`, if it is one.
    fn get(&self, term: &str) -> Option<&'static str> {
        self.entries
            .binary_search_by(|(entry, _)| (*entry).cmp(term))
            .ok()
            .map(|at| self.entries[at].1)
    }
}

static CHINESE: LazyLock<Lexicon> =
    LazyLock::new(|| Lexicon::parse(include_str!("../data/lexicon_zh.txt")));
static JAPANESE: LazyLock<Lexicon> =
    LazyLock::new(|| Lexicon::parse(include_str!("../data/lexicon_ja.txt")));

/// Every English word the lexicons' senses use: a vocabulary of English
/// that tells a word from a contraction of one ("part" is a word, "appt"
/// is none).
static ENGLISH: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    CHINESE
        .entries
        .iter()
        .chain(&JAPANESE.entries)
        .flat_map(|(_, words)| words.split_whitespace())
        .collect()
});

/// Whether `word` (lowercase) is an English word the lexicons know.
pub fn is_english_word(word: &str) -> bool {
    ENGLISH.contains(word)
}

/// The English words of the terms `text` holds, in order, space-separated
/// (empty when it holds no CJK term).
pub fn english_words(text: &str) -> String {
    let lexicon = lexicon_of(text);
    let mut found: Vec<String> = Vec::new();
    for run in cjk_runs(text) {
        found.extend(terms_of(lexicon, run).map(|(_, words)| words.to_owned()));
    }
    found.extend(katakana_compounds(text));
    found.join(" ")
}

/// Whether the CJK text `text` is nothing but terms of its language's
/// lexicon, read left to right (线上票 is 线上 and 票 is no term, so not;
/// 水下时间 is 水下 and 时间).
pub fn is_all_terms(text: &str) -> bool {
    let lexicon = lexicon_of(text);
    let mut runs = cjk_runs(text).peekable();
    runs.peek().is_some()
        && runs.all(|run| {
            terms_of(lexicon, run)
                .map(|(term, _)| term.len())
                .sum::<usize>()
                == run.len()
        })
}

/// The English compounds of the katakana runs of `text` (see
/// [`katakana_compound`]).
fn katakana_compounds(text: &str) -> Vec<String> {
    let lexicon = lexicon_of(text);
    text.split(|c: char| script(c) != Script::Katakana)
        .filter(|run| !run.is_empty())
        .filter_map(|run| katakana_compound(lexicon, run))
        .collect()
}

/// The English compound a katakana run writes as one word when it reads
/// as several terms: ウォッチリスト (ウォッチ, リスト) is "watchlist",
/// ゲストパス "guestpass", as a tool's texts may write them.
fn katakana_compound(lexicon: &Lexicon, run: &str) -> Option<String> {
    let terms: Vec<(&str, &str)> = terms_of(lexicon, run).collect();
    let whole = terms.iter().map(|(term, _)| term.len()).sum::<usize>() == run.len();
    if !whole || terms.len() < 2 {
        return None;
    }
    terms
        .iter()
        .map(|(_, words)| words.split_whitespace().next())
        .collect()
}

/// The English words of `term` as one whole term of the lexicon of the
/// language `context` is written in (住所 is "address residence
/// domicile"); `None` when the lexicon lists no such term.
pub fn senses_of(term: &str, context: &str) -> Option<&'static str> {
    lexicon_of(context).get(term)
}

/// The lexicon of the language `text` is written in: Japanese when it has
/// kana, else Chinese.
fn lexicon_of(text: &str) -> &'static Lexicon {
    match has_kana(text) {
        true => &JAPANESE,
        false => &CHINESE,
    }
}

/// The English words of the terms `text` holds where the glossary knows
/// none: the glossary's reading of a term stands (取消 is its action
/// "cancel", which names no subject), and the lexicon reads the rest.
/// `text` should be lowercase.
pub fn unglossed_english_words(text: &str) -> String {
    if !text.chars().any(is_cjk) {
        return String::new();
    }
    let spans = glossary::term_spans(text, |_| true);
    if spans.is_empty() {
        return english_words(text);
    }
    let unglossed: String = text
        .char_indices()
        .map(
            |(at, c)| match spans.iter().any(|span| span.contains(&at)) {
                true => ' ',
                false => c,
            },
        )
        .collect();
    // A compound is read whole, though the glossary knows a part of it
    // (リスト of ウォッチリスト).
    let mut words = english_words(&unglossed);
    for compound in katakana_compounds(text) {
        if !words.split_whitespace().any(|word| word == compound) {
            words.push(' ');
            words.push_str(&compound);
        }
    }
    words
}

/// The runs of CJK characters in `text`.
fn cjk_runs(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !is_cjk(c))
        .filter(|run| !run.is_empty())
}

/// The terms of a CJK run, read longest first from the left, each with its
/// English words.
fn terms_of<'a>(
    lexicon: &'a Lexicon,
    run: &'a str,
) -> impl Iterator<Item = (&'a str, &'static str)> {
    let starts: Vec<usize> = run
        .char_indices()
        .map(|(at, _)| at)
        .chain([run.len()])
        .collect();
    let chars = starts.len() - 1;
    let mut at = 0;
    std::iter::from_fn(move || {
        while at + 2 <= chars {
            let longest = LONGEST_TERM.min(chars - at);
            let term = (2..=longest).rev().find_map(|chars| {
                let term = &run[starts[at]..starts[at + chars]];
                lexicon.get(term).map(|words| (chars, term, words))
            });
            match term {
                Some((chars, term, words)) => {
                    at += chars;
                    return Some((term, words));
                }
                None => at += 1,
            }
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chinese_and_japanese_words_read_as_english() {
        assert!(english_words("取消搬家订单 M-9012").contains("move"));
        assert!(english_words("一部リーグの順位表を見せて").contains("league"));
        assert!(english_words("財布が届いていないか").contains("wallet"));
        assert!(
            english_words("我的雨傘丟了").contains("umbrella"),
            "traditional characters too"
        );
    }

    #[test]
    fn a_katakana_compound_reads_as_its_english_compound_too() {
        let words = english_words("ウォッチリストに追加して");
        assert!(words.contains("watchlist"), "{words}");
        assert!(english_words("ドローンを登録").contains("drone"));
        assert_eq!(
            katakana_compound(&JAPANESE, "ドローン"),
            None,
            "one term is no compound"
        );
    }

    #[test]
    fn the_longest_term_is_taken_where_terms_overlap() {
        let terms: Vec<&str> = terms_of(&JAPANESE, "進行中")
            .map(|(term, _)| term)
            .collect();
        assert_eq!(terms, ["進行中"], "進行 is a term, but 進行中 is longer");
    }

    #[test]
    fn the_glossary_reads_the_terms_it_knows() {
        assert!(english_words("取消搬家订单").contains("cancel"));
        let unglossed = unglossed_english_words("取消搬家订单");
        assert!(!unglossed.contains("cancel"), "{unglossed}");
        assert!(unglossed.contains("move"), "{unglossed}");
    }

    #[test]
    fn single_characters_and_latin_text_name_nothing() {
        assert_eq!(english_words("的"), "");
        assert_eq!(english_words("cancel order 42"), "");
    }

    #[test]
    fn a_term_is_read_in_the_language_of_its_text() {
        // CC-CEDICT: "to need; to want; to demand"; JMdict: "demand; request".
        assert!(english_words("我需要帮助").contains("need"));
        let japanese = english_words("需要が高い");
        assert!(japanese.contains("demand"), "{japanese}");
        assert!(!japanese.contains("need"), "read as Chinese: {japanese}");
    }

    #[test]
    fn every_line_of_the_data_is_a_term_and_its_words() {
        for (lexicon, data) in [
            (&*CHINESE, include_str!("../data/lexicon_zh.txt")),
            (&*JAPANESE, include_str!("../data/lexicon_ja.txt")),
        ] {
            let entries = &lexicon.entries;
            assert_eq!(
                entries.len(),
                data_lines(data).count(),
                "a line lacks its tab"
            );
            let sorted = entries.windows(2).all(|pair| pair[0].0 < pair[1].0);
            assert!(sorted, "the terms are sorted, once each");
            for (term, words) in entries {
                assert!(term.chars().all(is_cjk), "{term:?} is not CJK");
                assert!(
                    (2..=LONGEST_TERM).contains(&term.chars().count()),
                    "{term:?}"
                );
                assert!(!words.trim().is_empty(), "{term:?} has no words");
            }
        }
    }
}
