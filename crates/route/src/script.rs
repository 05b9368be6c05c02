//! Which writing system a character belongs to: the one place that knows the
//! Unicode ranges of Chinese characters, kana and hangul.

/// The scripts whose words are not separated by spaces (hangul aside, which
/// is spaced but still counted as CJK text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Script {
    /// Chinese characters (kanji in Japanese).
    Han,
    Hiragana,
    /// Katakana, full- and half-width.
    Katakana,
    Hangul,
    /// Everything else: Latin letters, digits, punctuation, spaces.
    Other,
}

pub fn script(c: char) -> Script {
    match c {
        '\u{3040}'..='\u{309F}' => Script::Hiragana,
        '\u{30A0}'..='\u{30FF}' | '\u{FF66}'..='\u{FF9F}' => Script::Katakana,
        '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}' => Script::Han,
        '\u{AC00}'..='\u{D7AF}' => Script::Hangul,
        _ => Script::Other,
    }
}

/// Chinese, Japanese or Korean text.
pub fn is_cjk(c: char) -> bool {
    script(c) != Script::Other
}

/// Whether `text` holds kana: Japanese, where CJK text without it reads
/// as Chinese.
pub fn has_kana(text: &str) -> bool {
    text.chars()
        .any(|c| matches!(script(c), Script::Hiragana | Script::Katakana))
}

/// Whether at least a third of the text's letters are CJK.
pub fn mostly_cjk(text: &str) -> bool {
    let letters = text.chars().filter(|c| c.is_alphanumeric()).count();
    let cjk = text.chars().filter(|&c| is_cjk(c)).count();
    letters > 0 && cjk * 3 >= letters
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_script_is_told_apart() {
        let scripts: Vec<Script> = "東の天ｶ한a".chars().map(script).collect();
        assert_eq!(
            scripts,
            [
                Script::Han,
                Script::Hiragana,
                Script::Han,
                Script::Katakana,
                Script::Hangul,
                Script::Other
            ]
        );
    }

    #[test]
    fn a_third_of_cjk_letters_makes_a_text_cjk() {
        assert!(mostly_cjk("ロンドンは今何時？"));
        assert!(mostly_cjk("TSLA的股价"));
        assert!(!mostly_cjk("What time is it in 東京?"));
        assert!(!mostly_cjk("?!"));
    }
}
