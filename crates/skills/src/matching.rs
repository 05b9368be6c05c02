//! Text compared as a person reads it: in any script, any case, any width.

use unicode_normalization::UnicodeNormalization;

/// `text` made comparable: NFKC (full-width `ＡＢＣ` and half-width `ﾃﾝｷ`
/// become `ABC` and `テンキ`), then lower case letter by letter, with the
/// final sigma read as sigma. Japanese and Chinese keywords have no spaces
/// around them, so matching is by containment of folded text.
pub fn fold(text: &str) -> String {
    text.nfkc()
        .flat_map(char::to_lowercase)
        .map(|c| if c == 'ς' { 'σ' } else { c })
        .collect()
}

/// `("NAME", "rest")` when `message` starts with `/NAME` (or the full-width
/// `／NAME` a Japanese or Chinese keyboard writes); the rest is trimmed.
pub fn slash_command(message: &str) -> Option<(&str, &str)> {
    let message = message.trim_start();
    let rest = message
        .strip_prefix('/')
        .or_else(|| message.strip_prefix('／'))?;
    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let (name, args) = rest.split_at(end);
    match name.is_empty() {
        true => None,
        false => Some((name, args.trim())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_ignores_case_and_width() {
        assert_eq!(fold("Explain CODE"), "explain code");
        assert_eq!(fold("ＥＸＰＬＡＩＮ"), "explain");
        assert_eq!(fold("ｺｰﾄﾞ解説"), "コード解説");
        assert_eq!(fold("ΟΔΟΣ"), fold("οδος"));
    }

    #[test]
    fn a_slash_command_is_a_name_and_the_rest() {
        assert_eq!(
            slash_command("/explain_code fn main() {}"),
            Some(("explain_code", "fn main() {}"))
        );
        assert_eq!(
            slash_command("  /weekly_summary"),
            Some(("weekly_summary", ""))
        );
        assert_eq!(
            slash_command("／コード解説　これは何"),
            Some(("コード解説", "これは何"))
        );
        assert_eq!(slash_command("/ nothing"), None);
        assert_eq!(slash_command("what is /etc/hosts"), None);
        assert_eq!(slash_command(""), None);
    }
}
