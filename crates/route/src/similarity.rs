//! Character n-gram similarity between a message and each candidate's texts.
//!
//! Character n-grams need no word segmentation, so the same measure works
//! for English (trigrams inside words, which also tolerate plurals and typos)
//! and for Japanese and Chinese (single ideographs and bigrams, since words
//! are mostly one or two characters and are not separated by spaces).
//! Weights are TF-IDF over every text of every candidate, so words that all
//! examples share ("what", "the", "は") count little.

use std::collections::HashMap;

use crate::glossary;
use crate::script::{Script, is_cjk, script};

/// A weighted bag of n-grams.
type Vector = HashMap<String, f32>;

/// The texts of every candidate, ready to be compared with messages.
#[derive(Debug, Clone)]
pub struct SimilarityIndex {
    /// Per candidate, the vectors of its texts.
    candidates: Vec<Vec<Vector>>,
    /// Inverse document frequency of each n-gram over all texts.
    idf: HashMap<String, f32>,
    /// Weight of n-grams no text contains.
    unseen_idf: f32,
}

impl SimilarityIndex {
    /// `candidates[i]` holds the texts (description, examples, ...) of
    /// candidate `i`.
    pub fn new(candidates: &[Vec<String>]) -> Self {
        let counts: Vec<Vec<HashMap<String, f32>>> = candidates
            .iter()
            .map(|texts| texts.iter().map(|text| ngram_counts(text)).collect())
            .collect();
        let mut document_frequency: HashMap<String, usize> = HashMap::new();
        let mut documents = 0usize;
        for text in counts.iter().flatten() {
            documents += 1;
            for gram in text.keys() {
                *document_frequency.entry(gram.clone()).or_default() += 1;
            }
        }
        let idf_of =
            |frequency: usize| ((1 + documents) as f32 / (1 + frequency) as f32).ln() + 1.0;
        let idf: HashMap<String, f32> = document_frequency
            .into_iter()
            .map(|(gram, frequency)| (gram, idf_of(frequency)))
            .collect();
        let unseen_idf = idf_of(0);
        let mut index = SimilarityIndex {
            candidates: Vec::new(),
            idf,
            unseen_idf,
        };
        index.candidates = counts
            .into_iter()
            .map(|texts| texts.into_iter().map(|text| index.weigh(text)).collect())
            .collect();
        index
    }

    /// For each candidate, the best cosine similarity between `message` and
    /// one of its texts, in `0.0..=1.0`.
    pub fn scores(&self, message: &str) -> Vec<f32> {
        let message = self.weigh(ngram_counts(message));
        self.candidates
            .iter()
            .map(|texts| {
                texts
                    .iter()
                    .map(|text| cosine(&message, text))
                    .fold(0.0, f32::max)
            })
            .collect()
    }

    /// Sublinear term frequency times IDF, normalized to unit length.
    fn weigh(&self, counts: HashMap<String, f32>) -> Vector {
        let mut vector: Vector = counts
            .into_iter()
            .map(|(gram, count)| {
                let idf = self.idf.get(&gram).copied().unwrap_or(self.unseen_idf);
                (gram, (1.0 + count.ln()) * idf)
            })
            .collect();
        let norm = vector.values().map(|w| w * w).sum::<f32>().sqrt();
        if norm > 0.0 {
            for w in vector.values_mut() {
                *w /= norm;
            }
        }
        vector
    }
}

fn cosine(a: &Vector, b: &Vector) -> f32 {
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    small
        .iter()
        .filter_map(|(gram, weight)| large.get(gram).map(|other| weight * other))
        .sum()
}

/// Counts the n-grams of `text` and of the English words the glossary gives
/// its terms: trigrams of each alphanumeric word padded with spaces (so short
/// words like "km" still yield grams), and for runs of CJK characters every
/// bigram plus each ideograph or katakana on its own.
fn ngram_counts(text: &str) -> HashMap<String, f32> {
    let mut counts: HashMap<String, f32> = HashMap::new();
    let mut add = |gram: String| *counts.entry(gram).or_default() += 1.0;
    let text = normalize(text);
    let glossed = format!("{text} {}", glossary::glosses(&text));
    for token in tokens(&glossed) {
        match token {
            Token::Word(word) => {
                let padded: Vec<char> = format!(" {word} ").chars().collect();
                for window in padded.windows(3) {
                    add(window.iter().collect());
                }
            }
            Token::Cjk(run) => {
                for &c in &run {
                    if !is_kana_particle(c) {
                        add(c.to_string());
                    }
                }
                for pair in run.windows(2) {
                    add(pair.iter().collect());
                }
            }
        }
    }
    counts
}

enum Token {
    Word(String),
    Cjk(Vec<char>),
}

fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut run: Vec<char> = Vec::new();
    let flush_word = |word: &mut String, out: &mut Vec<Token>| {
        if !word.is_empty() {
            out.push(Token::Word(std::mem::take(word)));
        }
    };
    let flush_run = |run: &mut Vec<char>, out: &mut Vec<Token>| {
        if !run.is_empty() {
            out.push(Token::Cjk(std::mem::take(run)));
        }
    };
    for c in text.chars() {
        if is_cjk(c) {
            flush_word(&mut word, &mut out);
            run.push(c);
        } else if c.is_alphanumeric() {
            flush_run(&mut run, &mut out);
            word.push(c);
        } else {
            flush_word(&mut word, &mut out);
            flush_run(&mut run, &mut out);
        }
    }
    flush_word(&mut word, &mut out);
    flush_run(&mut run, &mut out);
    out
}

/// Lowercase, with full-width ASCII folded to ASCII so `ＰＤＦ` meets `pdf`.
fn normalize(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
            '\u{3000}' => ' ',
            _ => c,
        })
        .flat_map(char::to_lowercase)
        .collect()
}

/// Hiragana alone are mostly particles and endings (の, は, を, です): as
/// single characters they say nothing about the topic.
fn is_kana_particle(c: char) -> bool {
    script(c) == Script::Hiragana
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(candidates: &[&[&str]]) -> SimilarityIndex {
        let candidates: Vec<Vec<String>> = candidates
            .iter()
            .map(|texts| texts.iter().map(|text| (*text).to_owned()).collect())
            .collect();
        SimilarityIndex::new(&candidates)
    }

    fn best(index: &SimilarityIndex, message: &str) -> usize {
        let scores = index.scores(message);
        (0..scores.len())
            .max_by(|&a, &b| scores[a].total_cmp(&scores[b]))
            .unwrap()
    }

    #[test]
    fn an_english_message_is_closest_to_the_tool_with_matching_words() {
        let index = index(&[
            &[
                "Get the current weather of a city",
                "Is it raining in London?",
            ],
            &["Convert a value between units", "How many miles is 10 km?"],
        ]);
        assert_eq!(best(&index, "will it rain in paris tomorrow"), 0);
        assert_eq!(best(&index, "convert 3 miles to kilometers"), 1);
    }

    #[test]
    fn japanese_and_chinese_match_without_spaces() {
        let index = index(&[
            &["東京の天気を教えて", "明天北京天气怎么样"],
            &["東京は今何時？", "现在几点了"],
        ]);
        assert_eq!(best(&index, "大阪の天気は？"), 0);
        assert_eq!(best(&index, "上海天气"), 0);
        assert_eq!(best(&index, "ロンドンは何時ですか"), 1);
    }

    #[test]
    fn the_glossary_carries_a_request_across_languages() {
        let index = index(&[
            &[
                "Get the current weather of a city",
                "Is it raining in London?",
            ],
            &["Convert a value between units", "How many miles is 10 km?"],
        ]);
        assert_eq!(best(&index, "札幌は雨が降っていますか？"), 0);
        assert_eq!(best(&index, "5ポンドをキログラムに変換して"), 1);
        assert!(index.scores("札幌は雨が降っていますか？")[0] > 0.1);
    }

    #[test]
    fn unrelated_text_scores_near_zero() {
        let index = index(&[&["Get the current weather of a city"]]);
        let scores = index.scores("xyzzy");
        assert!(scores[0] < 0.05, "{scores:?}");
    }

    #[test]
    fn full_width_letters_fold_to_ascii() {
        assert_eq!(normalize("ＰＤＦ　Ｆｉｌｅ"), "pdf file");
    }
}
