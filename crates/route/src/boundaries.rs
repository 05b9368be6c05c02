//! Where in a message a copied parameter value may start and end, and which
//! bytes it may never contain. Values are copied from these spans only, so a
//! value the user never wrote cannot appear.
//!
//! [`Boundaries::of`] runs one pass per rule, in order: word edges, then
//! Japanese particles, verbs in te-form, quotation brackets and question
//! words, honorifics, and English possessives.

use crate::script::{Script, script};
use crate::words::{CONTRACTIONS, HONORIFICS, POSTPOSITIONS, is_particle};

/// The byte positions of a message where a copied string value may start or
/// end, and the bytes it may not contain.
#[derive(Debug, Clone)]
pub struct Boundaries {
    /// `starts[i]`: a value may start at byte `i`.
    pub starts: Vec<bool>,
    /// `ends[i]`: a value may end just before byte `i`.
    pub ends: Vec<bool>,
    /// `blocked[i]`: no value may contain byte `i`.
    pub blocked: Vec<bool>,
}

/// What kind of character a position holds, for word boundaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Space,
    /// Brackets and quotes that open: a value starts after them.
    Opening,
    /// Sentence punctuation and closing brackets: a value ends before them.
    Closing,
    Han,
    Hiragana,
    Katakana,
    /// Letters, digits and anything else that forms words with spaces.
    Word,
}

impl Class {
    fn of(c: char) -> Self {
        match c {
            c if c.is_whitespace() || c == '\u{3000}' => Class::Space,
            '(' | '[' | '{' | '"' | '\'' | '«' | '“' | '‘' | '「' | '『' | '【' | '（' | '《' => {
                Class::Opening
            }
            ')' | ']' | '}' | '»' | '”' | '’' | '」' | '』' | '】' | '）' | '》' | '?' | '!'
            | ',' | ';' | ':' | '.' | '？' | '！' | '、' | '。' | '，' | '；' | '：' => {
                Class::Closing
            }
            _ => match script(c) {
                Script::Han => Class::Han,
                Script::Hiragana => Class::Hiragana,
                Script::Katakana => Class::Katakana,
                Script::Hangul | Script::Other => Class::Word,
            },
        }
    }

    fn is_cjk(self) -> bool {
        matches!(self, Class::Han | Class::Hiragana | Class::Katakana)
    }

    /// Space and punctuation: not part of any word.
    fn is_separator(self) -> bool {
        matches!(self, Class::Space | Class::Opening | Class::Closing)
    }

    /// A word that a particle or honorific can follow: a name or noun.
    fn is_noun_like(self) -> bool {
        matches!(self, Class::Han | Class::Katakana | Class::Word)
    }
}

/// One character of the message with its byte offset and class.
#[derive(Debug, Clone, Copy)]
struct Char {
    at: usize,
    c: char,
    class: Class,
}

impl Char {
    fn end(self) -> usize {
        self.at + self.c.len_utf8()
    }
}

/// Quotation marks and CJK brackets: they enclose a value, never sit in one.
const QUOTES: &str = "「」『』“”《》【】";

/// The Japanese question word "what" (何マイル, 何日): it asks, it names nothing.
const QUESTION_WORD: char = '何';

/// Chinese question words of amount and kind (多少英里, 几点, 什么): they ask,
/// they name nothing.
const CHINESE_QUESTION_WORDS: [&str; 4] = ["多少", "几", "什么", "哪"];

impl Boundaries {
    /// Word starts and ends for spaced scripts; for Japanese, changes of
    /// script (東京|の|天気), which separate words from particles; for
    /// Chinese, which has neither spaces nor kana, every character.
    pub fn of(message: &str) -> Self {
        let chars = classify(message);
        let has_kana = chars
            .iter()
            .any(|ch| matches!(ch.class, Class::Hiragana | Class::Katakana));
        let mut bounds = Boundaries {
            starts: vec![false; message.len() + 1],
            ends: vec![false; message.len() + 1],
            blocked: vec![false; message.len()],
        };
        bounds.mark_word_edges(&chars, has_kana, message.len());
        bounds.split_at_particles(&chars);
        bounds.block_te_form_verbs(&chars);
        bounds.block_quotes_and_question_words(message, &chars, has_kana);
        bounds.block_honorifics(message, &chars);
        bounds.end_names_at_possessives(message, &chars);
        bounds
    }

    /// Every word's first byte may start a value and its end may end one,
    /// except that hiragana right after a kanji or katakana word is its
    /// ending or a particle (休|む, 山田|さん): a value never starts there.
    fn mark_word_edges(&mut self, chars: &[Char], has_kana: bool, len: usize) {
        for (index, ch) in chars.iter().enumerate() {
            if ch.class.is_separator() {
                continue;
            }
            let previous = index.checked_sub(1).map(|i| chars[i].class);
            let boundary_before = previous.is_none_or(|left| separates(left, ch.class, has_kana));
            let okurigana = ch.class == Class::Hiragana
                && matches!(previous, Some(Class::Han | Class::Katakana));
            if boundary_before && !okurigana {
                self.starts[ch.at] = true;
            }
            let next = chars.get(index + 1);
            let boundary_after = next.is_none_or(|next| {
                next.class.is_separator() || separates(ch.class, next.class, has_kana)
            });
            if boundary_after {
                self.ends[next.map_or(len, |next| next.at)] = true;
            }
        }
    }

    /// A Japanese particle between two words (東京|の|天気, パリ|は|今) ends
    /// one phrase and starts another: no value starts or ends on it, and
    /// none spans it. Between hiragana it is part of a word (かける).
    fn split_at_particles(&mut self, chars: &[Char]) {
        let noun_like =
            |neighbour: Option<&Char>| neighbour.is_some_and(|n| n.class.is_noun_like());
        for (index, ch) in chars.iter().enumerate() {
            if !is_particle(ch.c) {
                continue;
            }
            let after_word = noun_like(index.checked_sub(1).and_then(|i| chars.get(i)));
            let before_word = noun_like(chars.get(index + 1));
            if after_word {
                self.ends[ch.end()] = false;
            }
            if before_word {
                self.starts[ch.at] = false;
            }
            if after_word && before_word {
                self.blocked[ch.at..ch.end()].fill(true);
            }
        }
    }

    /// Blocks Japanese verbs in te-form (検索して, 読んで, 教えて, 見て): the
    /// stem and its ending. Requests end in one ("... を検索して"), and a
    /// value copied from it would be the action instead of its object. The
    /// particle で after a noun (東京で) is a single で and is left alone.
    fn block_te_form_verbs(&mut self, chars: &[Char]) {
        let runs = class_runs(chars);
        for pair in runs.windows(2) {
            let [stem, tail] = pair else { continue };
            if tail.class != Class::Hiragana || !matches!(stem.class, Class::Han | Class::Katakana)
            {
                continue;
            }
            let ending: Vec<char> = chars[tail.from..tail.to].iter().map(|ch| ch.c).collect();
            let te_form = match ending.as_slice() {
                ['て'] => true,
                [.., 'て' | 'で'] => ending.len() >= 2,
                _ => false,
            };
            if te_form {
                let from = chars[stem.from].at;
                let to = chars[tail.to - 1].end();
                self.blocked[from..to].fill(true);
            }
        }
    }

    /// Quotation marks and CJK brackets enclose a value, never sit in one
    /// (「猫」を英語に: the value is 猫). In Japanese, 何 asks a question
    /// (何マイル, 何日): it is not part of the value either.
    fn block_quotes_and_question_words(&mut self, message: &str, chars: &[Char], has_kana: bool) {
        for ch in chars {
            if QUOTES.contains(ch.c) || (has_kana && ch.c == QUESTION_WORD) {
                self.blocked[ch.at..ch.end()].fill(true);
                self.starts[ch.at] = false;
            }
            if has_kana {
                continue;
            }
            if let Some(word) = CHINESE_QUESTION_WORDS
                .iter()
                .find(|word| message[ch.at..].starts_with(*word))
            {
                let end = ch.at + word.len();
                self.blocked[ch.at..end].fill(true);
                self.starts[ch.at..end].fill(false);
                self.ends[end] = true;
            }
        }
    }

    /// Japanese honorifics after a name (山田さん, 田中様) and particles of
    /// more than one character after a noun (ケンより): the name is the
    /// value, the honorific or particle is not part of it.
    fn block_honorifics(&mut self, message: &str, chars: &[Char]) {
        for pair in chars.windows(2) {
            let [name, ch] = pair else { continue };
            if !name.class.is_noun_like() {
                continue;
            }
            let rest = &message[ch.at..];
            if let Some(honorific) = HONORIFICS
                .prefix_of(rest)
                .or_else(|| POSTPOSITIONS.prefix_of(rest))
            {
                let to = ch.at + honorific.len();
                self.blocked[ch.at..to].fill(true);
                self.starts[ch.at..to].fill(false);
            }
        }
    }

    /// A possessive ends the name it follows: "IBM's share price" holds the
    /// value "IBM". Contractions (what's, it's) are words of their own.
    fn end_names_at_possessives(&mut self, message: &str, chars: &[Char]) {
        for (index, window) in chars.windows(3).enumerate() {
            let [letter, apostrophe, s] = window else {
                continue;
            };
            let possessive_shape = letter.c.is_alphanumeric()
                && matches!(apostrophe.c, '\'' | '’')
                && apostrophe.class == Class::Word
                && matches!(s.c, 's' | 'S');
            if !possessive_shape {
                continue;
            }
            let word_ends = message[s.end()..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric());
            let word_start = chars[..=index]
                .iter()
                .rposition(|ch| !ch.c.is_alphanumeric())
                .map_or(0, |before| chars[before + 1].at);
            let word = message[word_start..apostrophe.at].to_lowercase();
            if word_ends && !CONTRACTIONS.contains(&word) {
                self.ends[apostrophe.at] = true;
            }
        }
    }
}

/// The message's characters with their classes. An apostrophe between
/// letters (what's, O'Brien) is part of the word, not a quote.
fn classify(message: &str) -> Vec<Char> {
    let mut chars: Vec<Char> = message
        .char_indices()
        .map(|(at, c)| Char {
            at,
            c,
            class: Class::of(c),
        })
        .collect();
    for index in 1..chars.len().saturating_sub(1) {
        if matches!(chars[index].c, '\'' | '’')
            && chars[index - 1].c.is_alphanumeric()
            && chars[index + 1].c.is_alphanumeric()
        {
            chars[index].class = Class::Word;
        }
    }
    chars
}

/// A maximal run of characters of one class: `chars[from..to]`.
#[derive(Debug, Clone, Copy)]
struct Run {
    from: usize,
    to: usize,
    class: Class,
}

fn class_runs(chars: &[Char]) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for (index, ch) in chars.iter().enumerate() {
        match runs.last_mut() {
            Some(run) if run.class == ch.class => run.to = index + 1,
            _ => runs.push(Run {
                from: index,
                to: index + 1,
                class: ch.class,
            }),
        }
    }
    runs
}

/// Whether a word boundary lies between two adjacent characters' classes.
fn separates(left: Class, right: Class, has_kana: bool) -> bool {
    if left.is_separator() {
        return true;
    }
    if left.is_cjk() || right.is_cjk() {
        return left != right || (!has_kana && left == Class::Han);
    }
    false
}

/// Bytes a copied string value may not contain: JSON would need them escaped,
/// and no parameter value spans lines.
pub fn is_forbidden(byte: u8) -> bool {
    byte == b'"' || byte == b'\\' || byte < 0x20
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// The spans a value could take: every start paired with every later end
    /// inside the same stretch of allowed bytes.
    fn words(message: &str) -> Vec<&str> {
        let bounds = Boundaries::of(message);
        let mut out = Vec::new();
        for start in 0..=message.len() {
            if !bounds.starts[start] {
                continue;
            }
            for end in start + 1..=message.len() {
                if bounds.ends[end] {
                    out.push(&message[start..end]);
                    break;
                }
            }
        }
        out
    }

    #[test]
    fn english_words_end_before_punctuation() {
        assert_eq!(
            words("What's the weather in New York?"),
            ["What's", "the", "weather", "in", "New", "York"]
        );
        assert_eq!(words("open (notes.txt)"), ["open", "notes", "txt"]);
    }

    #[test]
    fn japanese_splits_at_changes_of_script() {
        assert_eq!(words("東京の天気は？"), ["東京", "天気"]);
        assert_eq!(
            words("ロンドンは何時"),
            ["ロンドン"],
            "何時 asks, it names nothing"
        );
    }

    #[test]
    fn japanese_particles_between_words_are_never_part_of_a_value() {
        let message = "パリは今何時？";
        let bounds = Boundaries::of(message);
        let particle = message.find('は').unwrap();
        assert!(bounds.blocked[particle]);
        assert!(!bounds.starts[particle]);
        assert!(!bounds.ends[particle + 'は'.len_utf8()]);
        let verb = Boundaries::of("12かける8は？");
        assert!(
            !verb.blocked.iter().any(|&b| b),
            "か inside かける is part of a word"
        );
        let end = "12かける8は".len();
        assert!(
            !verb.ends[end],
            "a value does not end on a trailing particle"
        );
        assert!(verb.ends["12かける8".len()]);
    }

    #[test]
    fn an_apostrophe_inside_a_word_does_not_split_it() {
        assert_eq!(
            words("Show me what's in it"),
            ["Show", "me", "what's", "in", "it"]
        );
        assert_eq!(
            words("Translate 'good morning'"),
            ["Translate", "good", "morning"]
        );
    }

    #[test]
    fn a_japanese_request_verb_is_never_part_of_a_value() {
        for (message, object, verb) in [
            ("Rustを検索して", "Rust", "検索して"),
            ("ファイルを読んで", "ファイル", "読んで"),
            ("30分後に教えて", "30分後", "教えて"),
        ] {
            let bounds = Boundaries::of(message);
            let at = message.find(verb).unwrap();
            assert!(bounds.blocked[at..].iter().all(|&b| b), "{message}");
            assert!(
                !bounds.blocked[..object.len()].iter().any(|&b| b),
                "{message}"
            );
        }
        let place = Boundaries::of("東京で");
        assert!(
            !place.blocked.iter().any(|&b| b),
            "で after a noun is a particle"
        );
    }

    #[test]
    fn a_possessive_ends_a_name() {
        let message = "Check IBM's share price";
        let bounds = Boundaries::of(message);
        assert!(bounds.ends[message.find('\'').unwrap()]);
        assert!(bounds.ends[message.find(" share").unwrap()]);
        let plain = Boundaries::of("what's up");
        assert!(!plain.ends[4], "what's is no possessive");
    }

    #[test]
    fn no_value_starts_on_a_kanji_words_ending() {
        let message = "山田さんに明日休むとメール";
        let bounds = Boundaries::of(message);
        assert!(bounds.starts[0]);
        assert!(!bounds.starts[message.find('さ').unwrap()]);
        assert!(!bounds.starts[message.find('む').unwrap()]);
        assert!(
            Boundaries::of("12かける8").starts[2],
            "after digits it does"
        );
        let name_end = message.find('さ').unwrap();
        assert!(bounds.ends[name_end], "山田 is a value");
        assert!(
            bounds.blocked[name_end..name_end + "さん".len()]
                .iter()
                .all(|&b| b)
        );
        let signed = "欠席します。ケンより";
        let bounds = Boundaries::of(signed);
        let from = signed.find('よ').unwrap();
        assert!(bounds.ends[from], "ケン is a value");
        assert!(bounds.blocked[from], "より is not part of it");
    }

    #[test]
    fn brackets_and_question_words_are_never_part_of_a_value() {
        let message = "「猫」を英語に翻訳して";
        let bounds = Boundaries::of(message);
        let close = message.find('」').unwrap();
        assert!(bounds.blocked[close]);
        assert!(bounds.ends[close], "猫 ends before the bracket");
        let message = "10キロは何マイル？";
        let bounds = Boundaries::of(message);
        let what = message.find('何').unwrap();
        assert!(bounds.blocked[what] && !bounds.starts[what]);
        assert!(
            bounds.starts[what + '何'.len_utf8()],
            "マイル starts after it"
        );
    }

    #[test]
    fn chinese_question_words_are_never_part_of_a_value() {
        let message = "10公里是多少英里？";
        let bounds = Boundaries::of(message);
        let how_many = message.find("多少").unwrap();
        assert!(
            bounds.blocked[how_many..how_many + "多少".len()]
                .iter()
                .all(|&b| b)
        );
        assert!(bounds.starts[message.find("英").unwrap()]);
    }

    #[test]
    fn chinese_splits_at_every_character() {
        assert_eq!(words("北京天气"), ["北", "京", "天", "气"]);
    }
}
