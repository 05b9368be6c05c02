//! Where in a message a parameter value may start and end, and which numbers
//! it contains. Values are copied from these spans only, so a value the user
//! never wrote cannot appear.

use std::ops::Range;

/// The byte positions of `message` where a copied string value may start or
/// end, and the bytes it may not contain.
#[derive(Debug, Clone)]
pub(crate) struct Boundaries {
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

fn class(c: char) -> Class {
    match c {
        c if c.is_whitespace() || c == '\u{3000}' => Class::Space,
        '(' | '[' | '{' | '"' | '\'' | '«' | '“' | '‘' | '「' | '『' | '【' | '（' | '《' => {
            Class::Opening
        }
        ')' | ']' | '}' | '»' | '”' | '’' | '」' | '』' | '】' | '）' | '》' | '?' | '!' | ','
        | ';' | ':' | '.' | '？' | '！' | '、' | '。' | '，' | '；' | '：' => Class::Closing,
        '\u{3040}'..='\u{309F}' => Class::Hiragana,
        '\u{30A0}'..='\u{30FF}' | '\u{FF66}'..='\u{FF9F}' => Class::Katakana,
        '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}' => Class::Han,
        _ => Class::Word,
    }
}

fn is_cjk(class: Class) -> bool {
    matches!(class, Class::Han | Class::Hiragana | Class::Katakana)
}

impl Boundaries {
    /// Word starts and ends for spaced scripts; for Japanese, changes of
    /// script (東京|の|天気), which separate words from particles; for
    /// Chinese, which has neither spaces nor kana, every character.
    pub fn of(message: &str) -> Self {
        let mut chars: Vec<(usize, char, Class)> = message
            .char_indices()
            .map(|(at, c)| (at, c, class(c)))
            .collect();
        // An apostrophe between letters (what's, O'Brien) is part of the
        // word, not a quote.
        for index in 1..chars.len().saturating_sub(1) {
            if matches!(chars[index].1, '\'' | '’')
                && chars[index - 1].1.is_alphanumeric()
                && chars[index + 1].1.is_alphanumeric()
            {
                chars[index].2 = Class::Word;
            }
        }
        let has_kana = chars
            .iter()
            .any(|(_, _, class)| matches!(class, Class::Hiragana | Class::Katakana));
        let len = message.len();
        let mut starts = vec![false; len + 1];
        let mut ends = vec![false; len + 1];
        for (index, &(at, _, this)) in chars.iter().enumerate() {
            let previous = index.checked_sub(1).map(|i| chars[i].2);
            let content = !matches!(this, Class::Space | Class::Opening | Class::Closing);
            if !content {
                continue;
            }
            let boundary_before = match previous {
                None => true,
                Some(previous) => separates(previous, this, has_kana),
            };
            // Hiragana right after a kanji or katakana word is its ending
            // or a particle (休|む, 山田|さん): a value never starts there.
            let okurigana =
                this == Class::Hiragana && matches!(previous, Some(Class::Han | Class::Katakana));
            if boundary_before && !okurigana {
                starts[at] = true;
            }
            let next = chars.get(index + 1).map(|&(_, _, class)| class);
            let end_at = chars.get(index + 1).map_or(len, |&(at, _, _)| at);
            let boundary_after = match next {
                None => true,
                Some(next) => {
                    matches!(next, Class::Space | Class::Closing | Class::Opening)
                        || separates(this, next, has_kana)
                }
            };
            if boundary_after {
                ends[end_at] = true;
            }
        }
        let mut blocked = vec![false; len];
        // A Japanese particle between two words (東京|の|天気, パリ|は|今) ends
        // one phrase and starts another: no value starts or ends on it, and
        // none spans it. Between hiragana it is part of a word (かける).
        for (index, &(at, c, _)) in chars.iter().enumerate() {
            if !is_particle(c) {
                continue;
            }
            let word = |neighbour: Option<&(usize, char, Class)>| {
                neighbour.is_some_and(|&(_, _, class)| {
                    matches!(class, Class::Han | Class::Katakana | Class::Word)
                })
            };
            let after_word = word(index.checked_sub(1).and_then(|i| chars.get(i)));
            let before_word = word(chars.get(index + 1));
            let end = at + c.len_utf8();
            if after_word {
                ends[end] = false;
            }
            if before_word {
                starts[at] = false;
            }
            if after_word && before_word {
                blocked[at..end].fill(true);
            }
        }
        block_verbs(&chars, &mut blocked);
        // Quotation marks and CJK brackets enclose a value, never sit in one
        // (「猫」を英語に: the value is 猫). In Japanese, 何 asks a question
        // (何マイル, 何日): it is not part of the value either.
        for &(at, c, _) in &chars {
            if "「」『』“”《》【】".contains(c) || (has_kana && c == '何') {
                blocked[at..at + c.len_utf8()].fill(true);
                starts[at] = false;
            }
        }
        block_honorifics(message, &chars, &mut starts, &mut blocked);
        // A possessive ends the name it follows: "IBM's share price" holds
        // the value "IBM". Contractions (what's, it's) are words of their own.
        for (index, window) in chars.windows(3).enumerate() {
            let [
                (_, letter, _),
                (apostrophe, '\'' | '’', Class::Word),
                (_, 's' | 'S', _),
            ] = *window
            else {
                continue;
            };
            let after_s = apostrophe + window[1].1.len_utf8() + 1;
            let word_ends = message[after_s..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric());
            let word_start = chars[..=index]
                .iter()
                .rposition(|&(_, c, _)| !c.is_alphanumeric())
                .map_or(0, |before| chars[before + 1].0);
            let word = message[word_start..apostrophe].to_lowercase();
            if letter.is_alphanumeric() && word_ends && !CONTRACTED.contains(&word.as_str()) {
                ends[apostrophe] = true;
            }
        }
        Boundaries {
            starts,
            ends,
            blocked,
        }
    }
}

/// Blocks Japanese honorifics after a name (山田さん, 田中様): the name is
/// the value, the honorific and what follows it are not part of it.
fn block_honorifics(
    message: &str,
    chars: &[(usize, char, Class)],
    starts: &mut [bool],
    blocked: &mut [bool],
) {
    const HONORIFICS: &[&str] = &["さん", "さま", "様", "ちゃん", "くん", "君"];
    for (index, &(at, _, _)) in chars.iter().enumerate().skip(1) {
        let after_name = matches!(
            chars[index - 1].2,
            Class::Han | Class::Katakana | Class::Word
        );
        let found = HONORIFICS
            .iter()
            .find(|honorific| message[at..].starts_with(**honorific));
        if let (true, Some(honorific)) = (after_name, found) {
            let to = at + honorific.len();
            blocked[at..to].fill(true);
            starts[at..to].fill(false);
        }
    }
}

/// Words whose `'s` is "is" or "us", not a possessive.
const CONTRACTED: &[&str] = &[
    "it", "that", "what", "who", "where", "when", "how", "there", "here", "he", "she", "let",
];

/// Blocks Japanese verbs in te-form (検索して, 読んで, 教えて, 見て): the
/// stem and its ending. Requests end in one ("... を検索して"), and a
/// value copied from it would be the action instead of its object. The
/// particle で after a noun (東京で) is a single で and is left alone.
fn block_verbs(chars: &[(usize, char, Class)], blocked: &mut [bool]) {
    let mut runs: Vec<(usize, usize, Class)> = Vec::new();
    for (index, &(_, _, class)) in chars.iter().enumerate() {
        match runs.last_mut() {
            Some(run) if run.2 == class => run.1 = index + 1,
            _ => runs.push((index, index + 1, class)),
        }
    }
    for pair in runs.windows(2) {
        let [(stem_from, _, stem), (tail_from, tail_to, Class::Hiragana)] = *pair else {
            continue;
        };
        if !matches!(stem, Class::Han | Class::Katakana) {
            continue;
        }
        let tail: Vec<char> = chars[tail_from..tail_to]
            .iter()
            .map(|&(_, c, _)| c)
            .collect();
        let te_form = match tail.as_slice() {
            ['て'] => true,
            [.., 'て' | 'で'] => tail.len() >= 2,
            _ => false,
        };
        if te_form {
            let from = chars[stem_from].0;
            let (last_at, last, _) = chars[tail_to - 1];
            blocked[from..last_at + last.len_utf8()].fill(true);
        }
    }
}

/// Japanese case particles, which follow the word they mark.
fn is_particle(c: char) -> bool {
    matches!(
        c,
        'は' | 'が' | 'を' | 'に' | 'で' | 'と' | 'へ' | 'も' | 'の' | 'や' | 'か'
    )
}

/// Whether a word boundary lies between two adjacent characters' classes.
fn separates(left: Class, right: Class, has_kana: bool) -> bool {
    if matches!(left, Class::Space | Class::Opening | Class::Closing) {
        return true;
    }
    if is_cjk(left) || is_cjk(right) {
        return left != right || (!has_kana && left == Class::Han);
    }
    false
}

/// Bytes a copied string value may not contain: JSON would need them escaped,
/// and no parameter value spans lines.
pub(crate) fn is_forbidden(byte: u8) -> bool {
    byte == b'"' || byte == b'\\' || byte < 0x20
}

/// A number written in the message.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NumberSpan {
    pub bytes: Range<usize>,
    /// As JSON writes it: ASCII digits, `-`, `.`.
    pub text: String,
    pub is_integer: bool,
}

/// Every number in `message`, in order; full-width digits (１０) count.
pub(crate) fn numbers(message: &str) -> Vec<NumberSpan> {
    let digit = |c: char| -> Option<char> {
        match c {
            '0'..='9' => Some(c),
            '０'..='９' => char::from_u32(c as u32 - '０' as u32 + '0' as u32),
            _ => None,
        }
    };
    let chars: Vec<(usize, char)> = message.char_indices().collect();
    let mut found = Vec::new();
    let mut index = 0;
    while index < chars.len() {
        let (at, c) = chars[index];
        if digit(c).is_none() {
            index += 1;
            continue;
        }
        if index > 0 && chars[index - 1].1.is_ascii_alphabetic() {
            // Digits inside a word (B12, mp3) are part of a name; after an
            // ideograph (華氏100度) they are a number.
            while index < chars.len() && chars[index].1.is_alphanumeric() {
                index += 1;
            }
            continue;
        }
        let negative = index > 0
            && matches!(chars[index - 1].1, '-' | '−' | '－')
            && (index < 2 || !chars[index - 2].1.is_alphanumeric());
        let start = if negative { chars[index - 1].0 } else { at };
        let mut text = String::from(if negative { "-" } else { "" });
        let mut is_integer = true;
        while index < chars.len() {
            let c = chars[index].1;
            if let Some(d) = digit(c) {
                text.push(d);
            } else if matches!(c, '.' | '．')
                && is_integer
                && chars
                    .get(index + 1)
                    .is_some_and(|&(_, next)| digit(next).is_some())
            {
                text.push('.');
                is_integer = false;
            } else if c == ','
                && is_integer
                && chars
                    .get(index + 1..index + 4)
                    .is_some_and(|group| group.iter().all(|&(_, g)| digit(g).is_some()))
                && chars
                    .get(index + 4)
                    .is_none_or(|&(_, after)| digit(after).is_none())
            {
                // A thousands separator (1,000): part of the number, not of
                // the JSON.
            } else {
                break;
            }
            index += 1;
        }
        let end = chars.get(index).map_or(message.len(), |&(at, _)| at);
        found.push(NumberSpan {
            bytes: start..end,
            text,
            is_integer,
        });
    }
    found
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
    fn chinese_splits_at_every_character() {
        assert_eq!(words("北京天气"), ["北", "京", "天", "气"]);
    }

    #[test]
    fn numbers_are_found_with_signs_decimals_and_full_width_digits() {
        let found: Vec<(String, bool)> =
            numbers("Convert -40 F, 2.5 kg, １０ km and 1,000 m; room B12; 華氏100度")
                .into_iter()
                .map(|n| (n.text, n.is_integer))
                .collect();
        assert_eq!(
            found,
            [
                ("-40".to_owned(), true),
                ("2.5".to_owned(), false),
                ("10".to_owned(), true),
                ("1000".to_owned(), true),
                ("100".to_owned(), true),
            ]
        );
    }

    #[test]
    fn number_spans_cover_the_written_text() {
        let message = "about 3.5 miles";
        let span = &numbers(message)[0];
        assert_eq!(&message[span.bytes.clone()], "3.5");
    }
}
