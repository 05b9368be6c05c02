//! Checking a generated reply before anyone reads it: a model this small
//! apologises, refuses, invents links and numbers, and runs on.

use crate::tuning::REPLY_MAX_CHARS;

/// What is wrong with a generated reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Flaw {
    Empty,
    /// More than two sentences or [`REPLY_MAX_CHARS`] characters.
    TooLong,
    /// It apologises, refuses or speaks of itself as a program.
    Apology(&'static str),
    /// A number, link, address or name that the sources do not hold.
    Invented(String),
    /// A value of a tool result that the reply does not state.
    Missing(String),
}

/// Phrases of a reply that apologises, refuses, talks about being a model
/// or narrates the exchange ("The user asked…"): never an answer to
/// anything a user asked. Lower case.
const APOLOGIES: &[&str] = &[
    "sorry",
    "apolog",
    "i can't",
    "i cannot",
    "i'm unable",
    "i am unable",
    "unable to",
    "i'm not able",
    "i don't have access",
    "as an ai",
    "as a chatbot",
    "as a language model",
    "as a tool",
    "designed to",
    "the user",
    "the tool provided",
];

/// Checks `reply` against `sources` (the question, and the tool results
/// when there are any) and `values`, the values it must state.
pub(crate) fn check(reply: &str, sources: &[&str], values: &[String]) -> Result<(), Flaw> {
    let reply = reply.trim();
    if reply.is_empty() {
        return Err(Flaw::Empty);
    }
    if reply.chars().count() > REPLY_MAX_CHARS || sentence_count(reply) > 2 {
        return Err(Flaw::TooLong);
    }
    let lower = reply.to_lowercase();
    let known = sources.join("\n").to_lowercase();
    if let Some(apology) = APOLOGIES
        .iter()
        .find(|phrase| lower.contains(**phrase) && !known.contains(**phrase))
    {
        return Err(Flaw::Apology(apology));
    }
    let known_numbers = numbers(&known);
    if let Some(number) = numbers(&lower)
        .into_iter()
        .find(|number| !known_numbers.contains(number))
    {
        return Err(Flaw::Invented(number));
    }
    if let Some(word) = reply.split_whitespace().find(|word| {
        let word = word.trim_matches(|c: char| !c.is_alphanumeric());
        looks_like_address(word) && !known.contains(&word.to_lowercase())
    }) {
        return Err(Flaw::Invented(word.to_owned()));
    }
    if let Some(name) = names(reply).find(|name| !known.contains(&name.to_lowercase())) {
        return Err(Flaw::Invented(name.to_owned()));
    }
    let said = simplified(&lower);
    if let Some(value) = values
        .iter()
        .find(|value| !said.contains(&simplified(&value.to_lowercase())))
    {
        return Err(Flaw::Missing(value.clone()));
    }
    Ok(())
}

/// The values a reply to `result` must state: its numbers as written
/// (`17:32`, `5.58`, `2026-12-01`) when it has any, else its words.
pub(crate) fn key_values(result: &str) -> Vec<String> {
    let tokens: Vec<&str> = result
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')' | '=' | '"'))
        .map(|token| token.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|token| !token.is_empty())
        .collect();
    let numeric: Vec<String> = tokens
        .iter()
        .filter(|token| token.chars().any(|c| c.is_ascii_digit()))
        .map(|token| (*token).to_owned())
        .collect();
    if numeric.is_empty() {
        tokens.iter().map(|token| (*token).to_owned()).collect()
    } else {
        numeric
    }
}

/// Sentences: text ending in `.`, `!` or `?` (not a decimal point), plus
/// what follows the last one.
fn sentence_count(text: &str) -> usize {
    let chars: Vec<char> = text.chars().collect();
    let ends = chars
        .iter()
        .enumerate()
        .filter(|&(index, &c)| {
            matches!(c, '.' | '!' | '?' | '。' | '！' | '？')
                && !chars
                    .get(index + 1)
                    .is_some_and(|next| next.is_alphanumeric())
                && !chars
                    .get(index + 1)
                    .is_some_and(|next| matches!(next, '.' | '!' | '?'))
        })
        .count();
    let open_end = !chars
        .last()
        .is_some_and(|c| matches!(c, '.' | '!' | '?' | '。' | '！' | '？'));
    ends + usize::from(open_end)
}

/// The runs of digits of `text`, without leading zeros and with the commas
/// of thousands joined (`393,600` is `393600`).
fn numbers(text: &str) -> Vec<String> {
    let joined: String = text
        .char_indices()
        .filter(|&(at, c)| {
            let between_digits = text[..at].ends_with(|c: char| c.is_ascii_digit())
                && text[at + c.len_utf8()..].starts_with(|c: char| c.is_ascii_digit());
            !(c == ',' && between_digits)
        })
        .map(|(_, c)| c)
        .collect();
    joined
        .split(|c: char| !c.is_ascii_digit())
        .filter(|run| !run.is_empty())
        .map(|run| {
            let trimmed = run.trim_start_matches('0');
            if trimmed.is_empty() { "0" } else { trimmed }.to_owned()
        })
        .collect()
}

fn looks_like_address(word: &str) -> bool {
    word.contains("://")
        || word.starts_with("www.")
        || (word.contains('@') && word.contains('.'))
        || [".com", ".org", ".net", ".io"]
            .iter()
            .any(|ending| word.ends_with(ending))
}

/// The capitalised words of `text` that do not open a sentence (and are
/// not "I"): the names it uses.
fn names(text: &str) -> impl Iterator<Item = &str> {
    let mut sentence_start = true;
    text.split_whitespace().filter_map(move |word| {
        let opens = sentence_start;
        sentence_start = word.ends_with(['.', '!', '?', ':']);
        let bare = word.trim_matches(|c: char| !c.is_alphanumeric());
        let capitalised = bare.chars().next().is_some_and(char::is_uppercase);
        let pronoun = matches!(bare, "I" | "I'm" | "I'll" | "I've" | "I'd");
        (capitalised && !opens && !pronoun).then_some(bare)
    })
}

/// Text compared for stating a value: letters and digits only, so "Dov'è il
/// bagno" matches "dov'è il bagno?" and "393,600" matches "393600".
fn simplified(text: &str) -> String {
    text.chars().filter(|c| c.is_alphanumeric()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUESTION: &str = "What time is it in Tokyo?";
    const RESULT: &str = "Tokyo: 17:32, Tuesday 1 December 2026";

    fn checked(reply: &str) -> Result<(), Flaw> {
        check(reply, &[QUESTION, RESULT], &["17:32".to_owned()])
    }

    #[test]
    fn an_answer_that_states_the_result_passes() {
        assert_eq!(checked("It is 17:32 on Tuesday in Tokyo."), Ok(()));
    }

    #[test]
    fn the_answers_of_the_issue_fail() {
        assert!(matches!(
            checked(
                "I'm sorry for any confusion, but as a tool designed to provide information \
                 about Tokyo's time zone and UTC+0900."
            ),
            Err(Flaw::Apology(_))
        ));
        assert_eq!(
            checked("It is 17:32 in Tokyo, see https://mapserver.com/en_us/ for more."),
            Err(Flaw::Invented("https://mapserver.com/en_us/".to_owned()))
        );
        assert_eq!(
            checked("It is 17:32 on 2 December."),
            Err(Flaw::Invented("2".to_owned()))
        );
        assert_eq!(
            checked("Tokyo is a lovely city."),
            Err(Flaw::Missing("17:32".to_owned()))
        );
        assert_eq!(
            checked("It is 17:32. Tokyo is big. It is in Japan."),
            Err(Flaw::TooLong)
        );
        assert_eq!(
            checked("It is 17:32 in Tokyo, near Osaka."),
            Err(Flaw::Invented("Osaka".to_owned()))
        );
    }

    #[test]
    fn key_values_are_numbers_else_words() {
        assert_eq!(key_values(RESULT), ["17:32", "1", "2026"]);
        assert_eq!(key_values("Dov'è il bagno?"), ["Dov'è", "il", "bagno"]);
        assert_eq!(sentence_count("It is 5.58 ft. Done!"), 2);
        assert_eq!(numbers("393,600 and 007"), ["393600", "7"]);
    }
}
