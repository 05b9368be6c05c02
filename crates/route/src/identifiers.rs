//! Parameters that name a record by an identifier, and the text that can
//! be one.
//!
//! A parameter whose meaning is an identifier (its description's words, or
//! its name's when it has no description, say it is an ID, a number, a
//! reference, a code, a registration, an email address or a phone number:
//! "the parcel's tracking number", "the booking reference, e.g. BK12345",
//! `task_id`) takes only text shaped like one: tokens with a digit in each
//! ("QZ-5520", "BK12345"), capitals ("LHR", "ABCXYZ"), an address with an
//! `@` for an email, at least five digits for a phone. A phrase of ordinary
//! words ("I need a customs declaration form") is never a tracking number,
//! and "AB123 pls" gives a booking reference "AB123", not the whole span.
//!
//! The words are closed-class, read from the manifest only: "number of
//! guests" is a count, not an identifier, and a description that names a
//! standard whose codes are rewritten from names ("ISO 4217 code", "IATA
//! code") or that gives an example code of letters ("Carrier code, e.g.
//! ups, fedex") keeps its ordinary values. A description that offers a name
//! beside the identifier ("name or ID") does too.

use riverse_tool::ToolManifest;

use crate::meaning::split_identifier;

/// What kind of identifier a parameter asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdentifierKind {
    /// An ID, number, reference, registration or digits: tokens with digits
    /// or capitals.
    Record,
    /// A code: one token of digits or capitals.
    Code,
    /// An email address.
    Email,
    /// A phone number.
    Phone,
}

/// Words that name an identifier (head nouns of a description or a name).
const RECORD_WORDS: [&str; 10] = [
    "id",
    "ids",
    "identifier",
    "number",
    "reference",
    "ref",
    "registration",
    "plate",
    "digits",
    "serial",
];

/// Words that offer a name or a free text beside the identifier.
const ALTERNATIVES: [&str; 6] = ["name", "title", "note", "message", "description", "text"];

/// Standards whose codes are written from names by other rules.
const STANDARDS: [&str; 4] = ["iso", "iata", "icao", "currency"];

/// The kind of identifier parameter `name` (described by `description`)
/// asks for, or `None` when it asks for ordinary text.
pub fn identifier_kind(name: &str, description: &str) -> Option<IdentifierKind> {
    let source = match description.trim().is_empty() {
        true => split_identifier(name),
        false => description.to_owned(),
    };
    let lower = source.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .collect();
    if words.iter().any(|word| STANDARDS.contains(word)) {
        return None;
    }
    // Only the first clause says what the value is ("the hotel's ID as
    // shown in search results").
    let clause_end = lower.find([',', ';', '(']).unwrap_or(lower.len());
    let head: Vec<&str> = lower[..clause_end]
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|word| !word.is_empty() && *word != "optional")
        .collect();
    if head.iter().any(|word| ALTERNATIVES.contains(word)) {
        return None;
    }
    // The name says it too when the description does not (`email`: "send
    // to this address instead"): by its last word, or the one before
    // "address" or "number" (`email_subject` is text).
    let named = split_identifier(name).to_lowercase();
    let mut named: Vec<&str> = named.split_whitespace().collect();
    if named.len() >= 2 && matches!(named.last(), Some(&"address" | &"number")) {
        named.pop();
    }
    let last = named.last().copied();
    let says = |words: &[&str]| {
        head.iter().any(|word| words.contains(word)) || last.is_some_and(|w| words.contains(&w))
    };
    if says(&["email", "e-mail"]) {
        return Some(IdentifierKind::Email);
    }
    if says(&["phone", "telephone", "mobile"]) {
        return Some(IdentifierKind::Phone);
    }
    let record = head.iter().enumerate().any(|(at, word)| {
        RECORD_WORDS.contains(word) && !(*word == "number" && head.get(at + 1) == Some(&"of"))
    });
    if record {
        return Some(IdentifierKind::Record);
    }
    if head.contains(&"code") && !letters_example(&lower) {
        return Some(IdentifierKind::Code);
    }
    None
}

/// Whether a description's example ("e.g. ups, fedex") is a code of
/// lowercase letters only.
fn letters_example(description: &str) -> bool {
    let Some(at) = description
        .find("e.g.")
        .or_else(|| description.find("such as"))
    else {
        return false;
    };
    description[at..]
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|word| !word.is_empty() && !matches!(*word, "e.g." | "such" | "as"))
        .take(1)
        .any(|word| word.chars().all(|c| c.is_ascii_lowercase()))
}

/// Whether `tool` takes a record by its identifier or code (a parameter
/// of [`IdentifierKind::Record`] or [`IdentifierKind::Code`]).
pub fn takes_record(tool: &ToolManifest) -> bool {
    tool.parameters
        .iter()
        .any(|(name, description)| takes_identifier(name, description))
}

/// Whether the parameter `name` described by `description` takes a
/// record's identifier or a code.
pub fn takes_identifier(name: &str, description: &str) -> bool {
    matches!(
        identifier_kind(name, description),
        Some(IdentifierKind::Record | IdentifierKind::Code)
    )
}

/// Whether `message` writes a record's identifier: a token of four
/// characters or more with a digit and a capital letter and no lowercase
/// letter ("INC-20931", "PX1180"), or of four digits or more that is not a
/// year ("4471", not "2025"). A number with a lowercase unit ("500ml",
/// "6pm") is a measure, and a date's digits are joined by its dashes.
pub fn names_record(message: &str) -> bool {
    message
        .split(|c: char| !(c.is_ascii_alphanumeric() || "-_/".contains(c)))
        .map(|token| token.trim_matches(|c: char| !c.is_ascii_alphanumeric()))
        .any(|token| {
            let digits = token.chars().filter(char::is_ascii_digit).count();
            let capitals = token.chars().any(|c| c.is_ascii_uppercase());
            let lowercase = token.chars().any(|c| c.is_ascii_lowercase());
            let number = digits == token.len();
            let year =
                number && token.len() == 4 && (token.starts_with("19") || token.starts_with("20"));
            token.len() >= 4 && digits > 0 && !lowercase && (capitals || number && !year)
        })
}

/// Whether `value` is text of the identifier `kind`.
pub fn identifier_shaped(kind: IdentifierKind, value: &str) -> bool {
    let tokens: Vec<&str> = value
        .split_whitespace()
        .map(|token| token.trim_matches(|c: char| ",.;:!?()\"'".contains(c)))
        .filter(|token| !token.is_empty())
        .collect();
    if tokens.is_empty() {
        return false;
    }
    match kind {
        IdentifierKind::Email => tokens.len() == 1 && is_email(tokens[0]),
        IdentifierKind::Phone => {
            let digits = value.chars().filter(char::is_ascii_digit).count();
            let others = value
                .chars()
                .filter(|c| !(c.is_ascii_digit() || " +-().".contains(*c)))
                .count();
            digits >= 5 && others == 0
        }
        IdentifierKind::Code => tokens.len() == 1 && record_token(tokens[0]),
        // A list of identifiers is joined by "and" or "or".
        IdentifierKind::Record => tokens
            .iter()
            .all(|token| record_token(token) || matches!(*token, "and" | "or" | "&")),
    }
}

/// Whether parameter `name` (described by `description`) asks for a name:
/// its name's last word or its description's first clause says so
/// (`customer_name`, "name the booking is under").
pub fn asks_for_name(name: &str, description: &str) -> bool {
    let named = split_identifier(name).to_lowercase();
    let lower = description.to_lowercase();
    let clause = lower
        .split([',', ';', '('])
        .find(|clause| clause.trim() != "optional");
    named.split_whitespace().last() == Some("name")
        || clause.is_some_and(|clause| clause.split_whitespace().any(|word| word == "name"))
}

/// Whether `value` is a record's code and nothing else: capitals, an
/// optional hyphen, then digits ("T-2291", "OBS5521"). A name is never
/// one.
pub fn is_record_code(value: &str) -> bool {
    let value = value.trim();
    let letters = value.chars().take_while(char::is_ascii_uppercase).count();
    let rest = value[letters..]
        .strip_prefix('-')
        .unwrap_or(&value[letters..]);
    (1..=5).contains(&letters) && rest.len() >= 2 && rest.chars().all(|c| c.is_ascii_digit())
}

/// The pattern of a record's code: its opening letters, uppercase, and
/// the lengths of its runs of digits ("RQ-12345": `RQ` and 5;
/// "AP-2026-80142": `AP`, 4 and 5). Separators are not kept: "GD4470088"
/// and "GD-1234567" share one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodePattern {
    letters: String,
    digit_runs: Vec<usize>,
}

impl CodePattern {
    /// The pattern of `token` when it is a code: one to five letters, then
    /// runs of digits (three in all at least) with hyphens, slashes or
    /// nothing between.
    pub fn of(token: &str) -> Option<Self> {
        let token = token.trim_matches(|c: char| !c.is_ascii_alphanumeric());
        let letters: String = token
            .chars()
            .take_while(char::is_ascii_alphabetic)
            .collect();
        let rest = &token[letters.len()..];
        let mut digit_runs = Vec::new();
        for (at, run) in rest.split(['-', '/']).enumerate() {
            if run.is_empty() && at == 0 {
                continue;
            }
            if run.is_empty() || !run.chars().all(|c| c.is_ascii_digit()) {
                return None;
            }
            digit_runs.push(run.len());
        }
        let digits: usize = digit_runs.iter().sum();
        ((1..=5).contains(&letters.len()) && digits >= 3).then(|| CodePattern {
            letters: letters.to_ascii_uppercase(),
            digit_runs,
        })
    }

    /// The patterns of the example codes `description` writes ("quote
    /// reference, e.g. RQ-12345"), or the formats it gives, where N, X, Y
    /// and # after the letters stand for digits ("format FOI-YYYY-NNNN").
    pub fn examples_in(description: &str) -> Vec<Self> {
        description
            .split(|c: char| c.is_whitespace() || ",;()".contains(c))
            .filter(|token| token.chars().any(|c| c.is_ascii_uppercase()))
            .filter_map(|token| {
                let letters = token.chars().take_while(char::is_ascii_alphabetic).count();
                let (head, rest) = token.split_at(letters);
                let digits: String = rest
                    .chars()
                    .map(|c| match c {
                        'N' | 'X' | 'Y' | '#' => '0',
                        c => c,
                    })
                    .collect();
                CodePattern::of(&format!("{head}{digits}"))
            })
            .collect()
    }

    /// Whether `message` writes a code of this pattern, in any case.
    pub fn written_in(&self, message: &str) -> bool {
        message
            .split(|c: char| !(c.is_ascii_alphanumeric() || "-/".contains(c)))
            .filter_map(CodePattern::of)
            .any(|written| written == *self)
    }
}

/// A token with a digit, or of two capitals or more and no lowercase letter
/// ("QZ-5520", "#4411", "LHR", "ABC-DEF").
fn record_token(token: &str) -> bool {
    let token = token.trim_start_matches('#');
    let digit = token.chars().any(|c| c.is_ascii_digit());
    let capitals = token.chars().filter(|c| c.is_uppercase()).count();
    let lowercase = token.chars().any(char::is_lowercase);
    let foreign = token
        .chars()
        .any(|c| !(c.is_ascii_alphanumeric() || "-_/.".contains(c)));
    !foreign && (digit || (capitals >= 2 && !lowercase))
}

/// Whether the span `bytes` of `message` is a number of digits alone that a
/// capitalised word follows: the number of a street or a postcode beside
/// its town ("5 King Road", "28013 Madrid"), part of an address, not an
/// identifier of its own.
pub fn number_before_name(message: &str, bytes: &std::ops::Range<usize>) -> bool {
    let value = &message[bytes.clone()];
    let digits = !value.is_empty() && value.chars().all(|c| c.is_ascii_digit());
    let next = message[bytes.end..].split_whitespace().next().unwrap_or("");
    digits
        && message[bytes.end..].starts_with(' ')
        && next.chars().next().is_some_and(char::is_uppercase)
        && next.chars().skip(1).all(char::is_lowercase)
}

/// Words before a number that make it a year ("the 1911 census", "a
/// certificate from 1890").
const YEAR_LEADS: [&str; 10] = [
    "in", "from", "since", "the", "of", "circa", "around", "until", "before", "after",
];

/// Whether the span `bytes` of `message` is a year, four digits from 1000
/// to 2199 after a word that dates ("from 1890"): a date, not an
/// identifier.
pub fn written_as_year(message: &str, bytes: &std::ops::Range<usize>) -> bool {
    let value = &message[bytes.clone()];
    let year = value.len() == 4
        && value.chars().all(|c| c.is_ascii_digit())
        && value
            .parse::<u32>()
            .is_ok_and(|year| (1000..2200).contains(&year));
    let before = message[..bytes.start]
        .split_whitespace()
        .next_back()
        .unwrap_or("")
        .to_lowercase();
    year && YEAR_LEADS.contains(&before.as_str())
}

fn is_email(token: &str) -> bool {
    match token.split_once('@') {
        Some((user, domain)) => !user.is_empty() && domain.contains('.') && !domain.contains('@'),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dated_year_is_no_identifier() {
        let message = "attach the 1911 census page to 3310, from 1890";
        let at = |text: &str| {
            let start = message.find(text).unwrap();
            start..start + text.len()
        };
        assert!(written_as_year(message, &at("1911")));
        assert!(written_as_year(message, &at("1890")));
        assert!(!written_as_year(message, &at("3310")));
    }

    #[test]
    fn a_record_code_is_no_name() {
        for value in ["T-2291", "OBS5521", "WC-4390"] {
            assert!(is_record_code(value), "{value}");
        }
        for value in ["Home-5G", "Jonas Weber", "R2D2", "7 Wonders", "T-"] {
            assert!(!is_record_code(value), "{value}");
        }
        assert!(asks_for_name("customer_name", "customer's full name"));
        assert!(asks_for_name("name", ""));
        assert!(asks_for_name(
            "under",
            "optional; name the booking is under"
        ));
        assert!(!asks_for_name("order_number", "order number"));
        assert!(!asks_for_name("title", "short title, not the file name"));
    }

    #[test]
    fn a_record_token_is_an_identifier_the_message_writes() {
        for message in [
            "add a note to INC-20931 saying I'll be out Friday",
            "保单TR-5567的缴费记录",
            "close 4471, the printer works again",
        ] {
            assert!(names_record(message), "{message}");
        }
        for message in [
            "Convert 200 euros to dollars",
            "remind me at 6pm, 500ml, the 3rd",
            "on 2025-01-18, about $2,300, in 2026",
            "ship to London NW1 6XE",
        ] {
            assert!(!names_record(message), "{message}");
        }
        let tickets = crate::test_tools::tool(
            "add_ticket_comment",
            "Adds a comment to a ticket.",
            &[("ticket_id", "the ticket ID"), ("comment", "the text")],
        );
        assert!(takes_record(&tickets));
        let notes = crate::test_tools::tool("add_note", "Adds a note.", &[("text", "the note")]);
        assert!(!takes_record(&notes));
    }

    #[test]
    fn identifiers_are_told_by_the_parameters_words() {
        use IdentifierKind::*;
        let kind = identifier_kind;
        assert_eq!(
            kind("tracking_number", "the parcel's tracking number"),
            Some(Record)
        );
        assert_eq!(
            kind("booking_reference", "the booking reference, e.g. BK12345"),
            Some(Record)
        );
        assert_eq!(
            kind("hotel_id", "the hotel's ID as shown in search results"),
            Some(Record)
        );
        assert_eq!(kind("task_id", ""), Some(Record));
        assert_eq!(
            kind("course_code", "the course code, e.g. SEC-101"),
            Some(Code)
        );
        assert_eq!(
            kind("code", "the code customers type at checkout"),
            Some(Code)
        );
        assert_eq!(
            kind("recipient_email", "email address of the person"),
            Some(Email)
        );
        assert_eq!(kind("phone", "Phone number"), Some(Phone));
        assert_eq!(
            kind("email", "optional; send to this address instead"),
            Some(Email),
            "the name says it"
        );
        assert_eq!(kind("email_subject", "optional; the subject line"), None);
        assert_eq!(
            kind("guests", "optional; number of guests, defaults to 1"),
            None
        );
        assert_eq!(
            kind("reference", "optional; note shown on the transfer"),
            None
        );
        assert_eq!(kind("carrier", "Carrier code, e.g. ups, fedex, dhl"), None);
        assert_eq!(
            kind("origin", "Departure airport, IATA code such as LHR"),
            None
        );
        assert_eq!(
            kind("from", "ISO 4217 code of the currency, e.g. USD"),
            None
        );
        assert_eq!(kind("employee", "name or ID of the employee"), None);
        assert_eq!(kind("city", "the city to search"), None);
    }

    #[test]
    fn only_identifier_shaped_text_is_an_identifier() {
        use IdentifierKind::*;
        assert!(identifier_shaped(Record, "QZ-5520"));
        assert!(identifier_shaped(Record, "#4411"));
        assert!(identifier_shaped(Record, "AB12 CDE"));
        assert!(identifier_shaped(Record, "BKXYZQ"));
        assert!(identifier_shaped(Record, "TASK-1 and TASK-2"));
        assert!(!identifier_shaped(
            Record,
            "I need a customs declaration form"
        ));
        assert!(!identifier_shaped(Record, "AB123 pls"));
        assert!(!identifier_shaped(Record, "my booking"));
        assert!(!identifier_shaped(Record, "I"));
        assert!(identifier_shaped(Code, "SPRING20"));
        assert!(!identifier_shaped(Code, "spring sale"));
        assert!(identifier_shaped(Email, "ana@example.com"));
        assert!(!identifier_shaped(Email, "Ana"));
        assert!(identifier_shaped(Phone, "+44 20 7946 0958"));
        assert!(!identifier_shaped(Phone, "mum"));
        let address = "send JD014600003 to 5 King Road, Leeds";
        assert!(number_before_name(address, &(20..21)));
        assert!(!number_before_name(address, &(5..16)));
        assert!(!number_before_name("card 9912 snapped", &(5..9)));
        assert!(!number_before_name("order 4411 UK", &(6..10)));
    }

    #[test]
    fn a_code_written_as_the_example_has_its_pattern() {
        let examples = CodePattern::examples_in("quote reference, e.g. RQ-12345");
        assert_eq!(examples.len(), 1);
        assert!(examples[0].written_in("Did you ever send a price through for RQ-19977?"));
        assert!(examples[0].written_in("what about rq19977"));
        assert!(!examples[0].written_in("RQ-1997 or XR-19977 or 19977"));
        let order = CodePattern::examples_in("order number, e.g. GD-1234567");
        assert!(order[0].written_in("Has order GD4470088 left the depot yet?"));
        let dated = CodePattern::examples_in("application number, e.g. AP-2026-12345");
        assert!(dated[0].written_in("单号AP-2026-80142"));
        assert!(CodePattern::examples_in("Carrier code, e.g. ups, fedex").is_empty());
        assert!(CodePattern::examples_in("YYYY-MM-DD").is_empty());
        let format = CodePattern::examples_in("request reference, format FOI-YYYY-NNNN");
        assert!(format[0].written_in("withdraw foi-2026-0433"));
    }
}
