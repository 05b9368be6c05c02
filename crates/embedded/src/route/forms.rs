//! The forms a parameter's description gives its values, beyond those
//! `riverse-route` reads: a value written as the description writes it
//! ("Repository as owner/name" takes `acme/web`, never "flaky"), a list's
//! items each on their own ("John and Alice" is two attendees), and a
//! number said to change something by an amount ("by -1.5 degrees") for a
//! parameter of a change, not of a target.

use riverse_route::words::REQUEST_LEAD_INS;
use riverse_route::{is_past_tense, requested_actions};

/// What separates a list's items inside one copied value.
const ITEM_SEPARATORS: &[&str] = &[", and ", ", or ", ",", " and ", " & ", "、", "，", ";"];

/// Words of a parameter that takes an amount of change rather than a
/// level.
const CHANGE_WORDS: &[&str] = &[
    "change",
    "relative",
    "delta",
    "offset",
    "difference",
    "increment",
    "adjustment",
    "shift",
];

/// Whether `value` is written in the form `description` gives its values
/// as two words joined by a slash ("Repository as owner/name",
/// "org/repo"): such a value holds a slash. Any value answers a
/// description that writes no such form.
pub(crate) fn written_as_described(description: &str, value: &str) -> bool {
    let slashed_form = description.split_whitespace().any(|word| {
        let word = word.trim_matches(|c: char| !c.is_alphanumeric() && c != '/');
        let mut parts = word.split('/');
        matches!(
            (parts.next(), parts.next(), parts.next()),
            (Some(a), Some(b), None)
                if a.len() >= 3 && b.len() >= 3
                    && a.chars().all(|c| c.is_ascii_lowercase() || c == '_' || c == '-')
                    && b.chars().all(|c| c.is_ascii_lowercase() || c == '_' || c == '-')
        )
    });
    !slashed_form || value.contains('/')
}

/// Whether a value copied from `message` at byte `start` opens with the
/// verb the request opens with ("post in #team …", "bump db to 4
/// replicas") or the one its report opens with ("Turned Pepper out…"):
/// that verb is what is asked or told, never a value.
pub(crate) fn opens_with_request_verb(message: &str, start: usize) -> bool {
    let mut offset = 0;
    for word in message.split_inclusive(char::is_whitespace) {
        let at = offset;
        offset += word.len();
        let bare = word
            .trim()
            .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
            .to_lowercase();
        if bare.is_empty() || REQUEST_LEAD_INS.contains(&bare) {
            continue;
        }
        // Only an English verb: a CJK message is one "word" up to its
        // first space, and its action term may stand anywhere in it.
        let lead = word.len() - word.trim_start().len();
        return at + lead == start
            && bare.chars().all(|c| c.is_ascii_alphabetic())
            && (!requested_actions(&bare).is_empty() || is_past_tense(&bare));
    }
    false
}

/// Whether the span `bytes` of `message` starts or ends inside a token its
/// joiners hold together ("4" and "release" of "release-2.4", "acme" of
/// "api.acme.io"): a value is never part of such a token.
pub(crate) fn inside_token(message: &str, bytes: &std::ops::Range<usize>) -> bool {
    let joined = |joint: Option<char>, beyond: Option<char>| {
        matches!(joint, Some('-' | '.' | '/' | '_' | '@' | ':'))
            && beyond.is_some_and(char::is_alphanumeric)
    };
    let (Some(before), Some(after)) = (message.get(..bytes.start), message.get(bytes.end..)) else {
        return false;
    };
    let mut back = before.chars().rev();
    let mut ahead = after.chars();
    joined(back.next(), back.next()) || joined(ahead.next(), ahead.next())
}

/// Numbers written as words, and their values.
const NUMBER_WORDS: &[(&str, f64)] = &[
    ("a", 1.0),
    ("an", 1.0),
    ("one", 1.0),
    ("two", 2.0),
    ("three", 3.0),
    ("four", 4.0),
    ("five", 5.0),
    ("six", 6.0),
    ("seven", 7.0),
    ("eight", 8.0),
    ("nine", 9.0),
    ("ten", 10.0),
    ("eleven", 11.0),
    ("twelve", 12.0),
];

/// The quantities `message` writes as a number word and a unit ("an
/// hour", "three weeks", "an hour and a half"): each one's value and the byte after its number
/// word. `has_unit` tells whether the text after a number opens with a
/// unit.
pub(crate) fn word_quantities(message: &str, has_unit: impl Fn(&str) -> bool) -> Vec<(f64, usize)> {
    let mut found = Vec::new();
    let mut offset = 0;
    for word in message.split_inclusive(char::is_whitespace) {
        let end = offset + word.trim_end().len();
        offset += word.len();
        let bare = word.trim().to_lowercase();
        let Some((_, value)) = NUMBER_WORDS.iter().find(|(name, _)| *name == bare) else {
            continue;
        };
        if has_unit(&message[end..]) {
            found.push((value + fraction_after_unit(&message[end..]), end));
            continue;
        }
        // "two and a half hours"
        let rest = &message[end..];
        let skipped = rest.len() - rest.trim_start().len();
        let lower = rest.trim_start().to_lowercase();
        if let Some((words, fraction)) =
            FRACTIONS.iter().find(|(words, _)| lower.starts_with(words))
        {
            let fraction_end = end + skipped + words.len();
            if has_unit(&message[fraction_end..]) {
                found.push((value + fraction, fraction_end));
            }
        }
    }
    found
}

/// Words after a whole number that add a fraction to it ("one and a
/// quarter hours", "an hour and a half").
const FRACTIONS: [(&str, f64); 4] = [
    ("and a half", 0.5),
    ("and a quarter", 0.25),
    ("and three quarters", 0.75),
    ("and three-quarters", 0.75),
];

/// The fraction of [`FRACTIONS`] after the unit that opens `after` ("an
/// hour and a half"), else 0.
fn fraction_after_unit(after: &str) -> f64 {
    let rest = after.trim_start();
    let unit_end = rest
        .find(|c: char| !c.is_alphabetic())
        .unwrap_or(rest.len());
    let lower = rest[unit_end..].trim_start().to_lowercase();
    FRACTIONS
        .iter()
        .find(|(words, _)| lower.starts_with(words))
        .map_or(0.0, |(_, fraction)| *fraction)
}

/// The items of one copied value of a list: split at the separators an
/// item never holds ("John and Alice", "eggs, milk"), each trimmed.
pub(crate) fn list_items(value: &str) -> Vec<String> {
    let mut items = vec![value.to_owned()];
    for separator in ITEM_SEPARATORS {
        items = items
            .iter()
            .flat_map(|item| item.split(separator).map(str::to_owned).collect::<Vec<_>>())
            .collect();
    }
    let items: Vec<String> = items
        .into_iter()
        .map(|item| item.trim().to_owned())
        .filter(|item| !item.is_empty())
        .collect();
    match items.is_empty() {
        true => vec![value.trim().to_owned()],
        false => items,
    }
}

/// Whether a parameter, by its name and description, takes an amount of
/// change ("Relative change in degrees", `delta`) rather than a level.
pub(crate) fn takes_change(name: &str, description: &str) -> bool {
    let text = format!("{name} {description}").to_lowercase();
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .any(|word| CHANGE_WORDS.contains(&word))
}

/// How the message says what a number is, by the word right before it:
/// `Some(true)` for an amount of change ("by 2", "by -1.5"), `Some(false)`
/// for a level ("to 19.5"), `None` when it does not say.
pub(crate) fn said_as_change(before: &str) -> Option<bool> {
    let last = before
        .split_whitespace()
        .next_back()?
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    match last.as_str() {
        "by" => Some(true),
        "to" | "at" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_written_in_the_form_its_description_gives() {
        let repo = "Repository as owner/name";
        assert!(written_as_described(repo, "acme/web"));
        assert!(!written_as_described(repo, "flaky"));
        assert!(!written_as_described("Repo, org/repo", "tests"));
        // No form given: any value.
        assert!(written_as_described("Service name", "billing"));
        assert!(written_as_described(
            "Path or name of the file",
            "slides.pdf"
        ));
        assert!(written_as_described("Full URL including https://", "x"));
        assert!(written_as_described("Date: YYYY/MM/DD", "2026/04/17"));
    }

    #[test]
    fn the_verb_a_request_opens_with_is_no_value() {
        let part = "post in #team that lunch is cancelled";
        assert!(opens_with_request_verb(part, 0));
        assert!(!opens_with_request_verb(part, part.find("#team").unwrap()));
        let bump = "and bump db to 4 replicas in staging";
        assert!(opens_with_request_verb(bump, bump.find("bump").unwrap()));
        let please = "Please send Tom the notes";
        assert!(opens_with_request_verb(
            please,
            please.find("send").unwrap()
        ));
        assert!(!opens_with_request_verb(
            please,
            please.find("Tom").unwrap()
        ));
        // A CJK message's start is no verb: 大阪 of 大阪の天気を教えて.
        assert!(!opens_with_request_verb("大阪の天気を教えて", 0));
        // A first word that names no action is a value like any other.
        let city = "Tokyo weather tomorrow";
        assert!(!opens_with_request_verb(city, 0));
    }

    #[test]
    fn a_value_is_never_part_of_a_joined_token() {
        let text = "Deploy the release-2.4 branch of billing";
        let at = |part: &str| {
            let start = text.find(part).unwrap();
            start..start + part.len()
        };
        assert!(inside_token(text, &(at("2.4").end - 1..at("2.4").end)));
        assert!(inside_token(text, &at("release")));
        assert!(!inside_token(text, &at("release-2.4")));
        assert!(!inside_token(text, &at("billing")));
        let end = "ends in a sentence. Then more";
        let sentence = end.find("sentence").unwrap();
        assert!(!inside_token(end, &(sentence..sentence + 8)));
    }

    #[test]
    fn a_quantity_may_be_written_in_words() {
        let has_unit = |after: &str| {
            let word = after.split_whitespace().next().unwrap_or("");
            ["hour", "hours", "weeks", "days"].contains(&word)
        };
        let text = "it'll take about an hour";
        assert_eq!(
            word_quantities(text, has_unit),
            [(1.0, text.find(" hour").unwrap())]
        );
        let text = "going to Brazil for three weeks";
        assert_eq!(
            word_quantities(text, has_unit),
            [(3.0, text.find(" weeks").unwrap())]
        );
        let text = "log two and a half hours";
        assert_eq!(
            word_quantities(text, has_unit),
            [(2.5, text.find(" hours").unwrap())]
        );
        let text = "book it for an hour and a half";
        assert_eq!(
            word_quantities(text, has_unit),
            [(1.5, text.find(" hour").unwrap())]
        );
        assert!(word_quantities("a table for a few days", has_unit).is_empty());
    }

    #[test]
    fn a_list_value_is_split_into_its_items() {
        assert_eq!(list_items("John and Alice"), ["John", "Alice"]);
        assert_eq!(
            list_items("eggs, oat milk and basil"),
            ["eggs", "oat milk", "basil"]
        );
        assert_eq!(list_items("牛乳、卵"), ["牛乳", "卵"]);
        assert_eq!(list_items("basil"), ["basil"]);
    }

    #[test]
    fn a_number_said_by_how_much_goes_to_a_change() {
        assert!(takes_change(
            "change",
            "Relative change in degrees; negative to lower"
        ));
        assert!(takes_change("delta_c", "Degrees to add"));
        assert!(!takes_change(
            "target",
            "Target temperature in degrees Celsius"
        ));
        assert_eq!(
            said_as_change("Change the bedroom temperature by "),
            Some(true)
        );
        assert_eq!(said_as_change("Set the office thermostat to "), Some(false));
        assert_eq!(said_as_change("Set a timer for "), None);
    }
}
