//! Boolean parameters a message implies: one it speaks of ("hold it there"
//! for `hold`, "don't send me notifications" for `notify`, 一日中 for
//! `all_day` through the glossary) is true, or false when negated; one it
//! does not speak of is left out. A word of the tool's own name or
//! description is no mention of a flag: "Deploy the branch" does not speak
//! of `dry_run` ("Only show what would change, without deploying"), nor
//! "print slides.pdf" of `duplex` ("Print on both sides") for a printer.

use crate::glossary::glosses;
use crate::script::mostly_cjk;
use crate::words::{FUNCTION_WORDS, NEGATIONS};

/// Shortest word of a parameter's description that counts as a mention:
/// shorter ones are too common ("Mark as favorite" is no mention of Mark).
const MIN_DESCRIPTION_WORD: usize = 5;

/// Prefixes that make a word the negation of the word it is put before.
const NEGATING_PREFIXES: [&str; 3] = ["un", "non", "dis"];

/// Words each of which says the other is false ("keep it private" of
/// `is_public`).
const OPPOSITES: &[(&str, &str)] = &[
    ("public", "private"),
    ("visible", "hidden"),
    ("show", "hide"),
    ("enable", "disable"),
    ("enabled", "disabled"),
    ("open", "closed"),
    ("include", "exclude"),
    ("automatic", "manual"),
    ("automatically", "manually"),
    ("active", "inactive"),
    ("upcoming", "past"),
    ("upcoming", "old"),
    ("future", "past"),
];

/// The value a description labels with words the message writes: "true
/// for colour, false for black and white" is false for "A4, black and
/// white". Every word of a label but the tool's own (`own`) and function
/// words must be written; `None` when no label, or both, are.
fn labelled_flag(words: &[String], description: &str, own: &[String]) -> Option<bool> {
    let lower = description.to_lowercase();
    let written = |value: &str| {
        let label = lower
            .match_indices(value)
            .filter_map(|(at, _)| {
                let rest = &lower[at + value.len()..];
                let rest = ["for ", "to ", "if ", "when "]
                    .iter()
                    .find_map(|lead| rest.strip_prefix(lead))?;
                Some(rest.split([',', ';', '.', '(']).next().unwrap_or(rest))
            })
            .next()?;
        let wanted: Vec<String> = english_words(label)
            .into_iter()
            .filter(|word| !FUNCTION_WORDS.contains(word.as_str()) && word != "and")
            .filter(|word| !own.iter().any(|own| mentions(word, own)))
            .collect();
        Some(!wanted.is_empty() && wanted.iter().all(|word| words.contains(word)))
    };
    match (written("true ")?, written("false ")?) {
        (true, false) => Some(true),
        (false, true) => Some(false),
        _ => None,
    }
}

/// Words of a flag's name that others stand for ("old ones too" for
/// `include_past`).
const SYNONYMS: &[(&str, &[&str])] = &[
    ("past", &["old", "older", "previous", "earlier", "ended"]),
    ("colour", &["color", "colours", "colors"]),
    ("color", &["colour", "colours", "colors"]),
];

/// Whether message word `word` stands for `named` (see [`SYNONYMS`]).
fn stands_for(word: &str, named: &str) -> bool {
    SYNONYMS
        .iter()
        .any(|(name, others)| *name == named && others.contains(&word))
}

/// Whether message word `word` is the opposite of `named`.
fn opposes(word: &str, named: &str) -> bool {
    OPPOSITES
        .iter()
        .any(|&(one, other)| (word == one && named == other) || (word == other && named == one))
}

/// English words before a mention that can negate it.
const NEGATION_REACH: usize = 3;

/// The value `message` implies for boolean parameter `name` described by
/// `description`, or `None` when it does not speak of it; `tool_texts` is
/// the tool's own name and description, whose words name the tool, not the
/// flag.
pub fn implied_flag(
    message: &str,
    name: &str,
    description: &str,
    tool_texts: &str,
) -> Option<bool> {
    let own = english_words(&tool_texts.replace(['_', '-'], " "));
    // A Japanese or Chinese message meets English names through the
    // glossary; an English one is read as written.
    let words = match mostly_cjk(message) {
        true => english_words(&glosses(message)),
        false => english_words(message),
    };
    if let Some(labelled) = labelled_flag(&words, description, &own) {
        return Some(labelled);
    }
    let named: Vec<String> = english_words(name)
        .into_iter()
        .filter(|word| word.chars().count() >= 3)
        .chain(english_words(description).into_iter().filter(|word| {
            word.chars().count() >= MIN_DESCRIPTION_WORD
                && !own.iter().any(|own| mentions(word, own))
        }))
        .filter(|word| !FUNCTION_WORDS.contains(word))
        .collect();
    // A mention, and whether its word is a negated form ("unfavourite").
    let (at, negated_word) = words.iter().enumerate().find_map(|(at, word)| {
        named.iter().find_map(|named| {
            if mentions(word, named) || stands_for(word, named) {
                return Some((at, false));
            }
            if opposes(word, named) {
                return Some((at, true));
            }
            NEGATING_PREFIXES
                .iter()
                .any(|prefix| {
                    word.strip_prefix(prefix)
                        .is_some_and(|rest| mentions(rest, named))
                })
                .then_some((at, true))
        })
    })?;
    let negated = if mostly_cjk(message) {
        NEGATIONS
            .entries()
            .iter()
            .any(|negation| !negation.is_ascii() && message.contains(negation))
    } else {
        // Function words do not count towards the reach ("no need for
        // the privacy add-on").
        let mut before: Vec<&String> = words[..at]
            .iter()
            .rev()
            .filter(|word| !FUNCTION_WORDS.contains(word) || NEGATIONS.contains(word))
            .take(NEGATION_REACH)
            .collect();
        before.reverse();
        // A negated opposite is the flag itself ("don't keep it private").
        negated_word
            != NEGATIONS.entries().iter().any(|negation| {
                let wanted: Vec<&str> = negation.split_whitespace().collect();
                before
                    .windows(wanted.len())
                    .any(|window| window.iter().zip(&wanted).all(|(w, n)| w == n))
            })
    };
    Some(!negated)
}

fn english_words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '\''))
        .filter(|word| !word.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Whether message word `word` is a form of `named` ("notifications" of
/// "notify", "holds" of "hold"): the same word, one of four letters or more
/// starting the other, or the two sharing their first five letters ("set"
/// is no form of "setting").
fn mentions(word: &str, named: &str) -> bool {
    if word.is_empty() || named.is_empty() {
        return false;
    }
    let shared = word
        .chars()
        .zip(named.chars())
        .take_while(|(a, b)| a == b)
        .count();
    let shorter = word.chars().count().min(named.chars().count());
    word == named || (shared == shorter && shorter >= 4) || shared >= 5
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_spoken_of_is_true_or_negated() {
        let notify = ("notify", "Send status updates");
        assert_eq!(
            implied_flag("track it and notify me", notify.0, notify.1, ""),
            Some(true)
        );
        assert_eq!(
            implied_flag("track it, no notifications please", notify.0, notify.1, ""),
            Some(false)
        );
        let privacy = (
            "privacy",
            "optional; whether WHOIS privacy protection is turned on",
        );
        assert_eq!(
            implied_flag("No need for the privacy add-on.", privacy.0, privacy.1, ""),
            Some(false)
        );
        assert_eq!(implied_flag("track it", notify.0, notify.1, ""), None);
        let hold = ("hold", "Keep setting until changed manually");
        assert_eq!(implied_flag("set it to 20", hold.0, hold.1, ""), None);
        assert_eq!(
            implied_flag("set it to 20 and hold", hold.0, hold.1, ""),
            Some(true)
        );
        assert_eq!(
            implied_flag("Delete Mark", "favorite", "Mark as favorite", ""),
            None
        );
        assert_eq!(
            implied_flag("make her a favourite", "favourite", "Starred contact", ""),
            Some(true)
        );
        assert_eq!(
            implied_flag("unfavourite her", "favourite", "Starred contact", ""),
            Some(false)
        );
        let past = ("include_past", "optional; true to include past visits");
        assert_eq!(
            implied_flag("show my visits, old ones too", past.0, past.1, ""),
            Some(true)
        );
        let upcoming = ("upcoming_only", "optional; true to leave out past ones");
        assert_eq!(
            implied_flag(
                "all my tickets, including past ones",
                upcoming.0,
                upcoming.1,
                ""
            ),
            Some(false)
        );
        let public = ("is_public", "Whether anyone can see it");
        assert_eq!(
            implied_flag("keep it private though", public.0, public.1, ""),
            Some(false)
        );
        assert_eq!(
            implied_flag("don't keep it private", public.0, public.1, ""),
            Some(true)
        );
    }

    #[test]
    fn a_flag_takes_the_value_whose_label_is_written() {
        let color = ("color", "true for colour, false for black and white");
        let printer = "create_print_order Send a file to print.";
        assert_eq!(
            implied_flag("3 copies, A4, black and white", color.0, color.1, printer),
            Some(false)
        );
        assert_eq!(
            implied_flag("20 colour copies of flyer.png", color.0, color.1, printer),
            Some(true)
        );
        assert_eq!(
            implied_flag("print flyer.png", color.0, color.1, printer),
            None
        );
    }

    #[test]
    fn the_tools_own_words_are_no_mention_of_a_flag() {
        let deploy = "deploy Deploy a git branch of a service to an environment.";
        let dry_run = ("dry_run", "Only show what would change, without deploying");
        assert_eq!(
            implied_flag("Deploy main of billing", dry_run.0, dry_run.1, deploy),
            None
        );
        assert_eq!(
            implied_flag(
                "Do a dry run of deploying search",
                dry_run.0,
                dry_run.1,
                deploy
            ),
            Some(true)
        );
        let printer = "print_document Send a document to the office printer.";
        let duplex = ("duplex", "Print on both sides of the page");
        assert_eq!(
            implied_flag("print slides.pdf in colour", duplex.0, duplex.1, printer),
            None
        );
        assert_eq!(
            implied_flag("print it on both sides", duplex.0, duplex.1, printer),
            Some(true)
        );
    }
}
