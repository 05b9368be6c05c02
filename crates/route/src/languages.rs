//! Languages a value names, written as a parameter about a language asks
//! (`data/languages.txt`): 日本語 is "Japanese" where the description wants
//! the English name, "ja" where it wants a code. A value that names no
//! language ("我的", "TR-8901") is none: the parameter stays unfilled.

use std::sync::LazyLock;

use crate::meaning::split_identifier;
use crate::named::NameTable;

/// Keys are `English name code`.
static LANGUAGES: LazyLock<NameTable> =
    LazyLock::new(|| NameTable::parse(include_str!("../data/languages.txt")));

/// Whether parameter `name`, described by `description`, takes a language:
/// its name says so (`target_language`, `lang`), or its description opens
/// with the word ("Language to translate into").
pub fn wants_language(name: &str, description: &str) -> bool {
    let named = split_identifier(name).to_lowercase();
    if named
        .split_whitespace()
        .any(|word| matches!(word, "language" | "languages" | "lang"))
    {
        return true;
    }
    let lower = description.trim().to_lowercase();
    let lower = lower.strip_prefix("optional").unwrap_or(&lower);
    lower
        .trim_start_matches([';', ',', ':', ' '])
        .split(|c: char| !c.is_alphanumeric())
        .find(|word| !word.is_empty() && !matches!(*word, "the" | "a"))
        == Some("language")
}

/// The English name of the first language `text` names.
pub fn language_named(text: &str) -> Option<&'static str> {
    let (_, key) = LANGUAGES.mentions(text).into_iter().next()?;
    key.rsplit_once(' ').map(|(english, _)| english)
}

/// The first language `value` names, as `description` asks for it: its
/// ISO 639-1 code where the description asks for a code, else its
/// English name. A value the table does not know but written as a
/// language's name is ("エルフ語", "Elvish") stays as written, for the
/// tool to accept or refuse; `None` when `value` names no language.
pub fn as_language(value: &str, description: &str) -> Option<String> {
    let Some((_, key)) = LANGUAGES.mentions(value).into_iter().next() else {
        return shaped_as_language(value).then(|| value.trim().to_owned());
    };
    let (english, code) = key.rsplit_once(' ')?;
    let lower = description.to_lowercase();
    let wants_code = lower.contains("639")
        || lower
            .split(|c: char| !c.is_alphanumeric())
            .any(|word| word == "code");
    Some(if wants_code { code } else { english }.to_owned())
}

/// English endings of a language's name ("Elvish", "Javanese").
const NAME_ENDINGS: [&str; 4] = ["ish", "ese", "ian", "ic"];

/// Whether `value` is written as a language's name: one word ending as
/// English names of languages end, or a few Chinese or Japanese characters
/// ending in 語 or 语.
fn shaped_as_language(value: &str) -> bool {
    let value = value.trim();
    let english = !value.contains(char::is_whitespace)
        && value.chars().next().is_some_and(char::is_uppercase)
        && value.chars().all(char::is_alphabetic)
        && NAME_ENDINGS.iter().any(|ending| value.ends_with(ending));
    let cjk = value.chars().count() <= 8
        && value.chars().all(|c| c.is_alphanumeric())
        && value.ends_with(['語', '语']);
    english || cjk
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_language_is_written_as_its_english_name_or_its_code() {
        let english = "language to translate into, English name of the language";
        assert_eq!(as_language("日本語", english).as_deref(), Some("Japanese"));
        assert_eq!(as_language("英语", english).as_deref(), Some("English"));
        assert_eq!(
            as_language("in Mandarin", english).as_deref(),
            Some("Chinese")
        );
        assert_eq!(
            as_language("Brazilian Portuguese", english).as_deref(),
            Some("Portuguese")
        );
        assert_eq!(
            as_language("スペイン語", "ISO 639-1 code").as_deref(),
            Some("es")
        );
        assert_eq!(
            as_language("German", "Language code, e.g. fr").as_deref(),
            Some("de")
        );
        assert_eq!(
            as_language("エルフ語", english).as_deref(),
            Some("エルフ語")
        );
        assert_eq!(as_language("Elvish", english).as_deref(), Some("Elvish"));
    }

    #[test]
    fn a_value_that_names_no_language_is_none() {
        for value in [
            "我的",
            "TR-8901",
            "is google translate good enough",
            "Kundenkonto",
            "Englishman",
        ] {
            assert_eq!(
                as_language(value, "language of the original"),
                None,
                "{value}"
            );
        }
    }

    #[test]
    fn parameters_about_a_language_are_known_by_name_or_description() {
        assert!(wants_language(
            "target_language",
            "Language to translate into"
        ));
        assert!(wants_language("lang", ""));
        assert!(wants_language(
            "to",
            "optional; language the instructor should speak"
        ));
        assert!(wants_language("into", "The language to translate into"));
        assert!(!wants_language("text", "the text, in any language"));
        assert!(!wants_language("title", "title of the job"));
    }
}
