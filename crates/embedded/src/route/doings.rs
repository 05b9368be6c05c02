//! A report of a doing ("I just watered the fig with about 500 ml", "Spent
//! 18 euros on cinema tickets", "Gave Pepper 85 grams of wet food", "trap
//! T-17 had 9 codling moth this morning", "Dave paid twenty quid today"):
//! a statement in form, but one that gives a tool that records such
//! doings all it needs, so it asks that tool to record it. Told by grammar
//! only: an optional subject of a few words (a pronoun, a name, a thing and
//! its code) and adverb, a verb in the past tense, and a measure after it
//! (a number with its unit, an amount of money, or a count of things), in
//! digits or words.
//!
//! Likewise a record said to be in the state a tool marks records with
//! ("L-33817 is sold!" beside `mark_sold`, "Marks a listing as sold"): the
//! news asks for the record to be marked. And a question whether a thing
//! was done asks to read, whatever verb it holds.

use riverse_route::words::{FUNCTION_WORDS, PREPOSITIONS};
use riverse_route::{
    MessageForm, currency_mentions, is_past_tense, names_record, numbers, requested_actions,
    script::mostly_cjk, spelled_numbers, writes_measure,
};
use riverse_tool::ToolManifest;

/// Words a report may open with before its verb.
const LEAD: &[&str] = &[
    "i",
    "we",
    "just",
    "already",
    "finally",
    "today",
    "tonight",
    "yesterday",
    "also",
];

/// Words that cannot stand in a report's subject: they open a question, a
/// request or a condition.
const NOT_SUBJECT: &[&str] = &[
    "what", "who", "which", "where", "when", "how", "why", "did", "do", "does", "have", "has",
    "is", "are", "was", "were", "can", "could", "will", "would", "should", "please", "if", "not",
    "never", "lol", "ugh",
];

/// Most words of a report's subject before its verb ("trap T-17 had…",
/// "Dave paid…").
const SUBJECT_WORDS: usize = 3;

/// Whether `message`, of `form`, reports a doing with its measure (see the
/// module's documentation).
pub(crate) fn reports_doing(message: &str, form: MessageForm) -> bool {
    if !matches!(form, MessageForm::Statement | MessageForm::Fragment) || mostly_cjk(message) {
        return false;
    }
    let lower = message.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-'))
        .filter(|word| !word.is_empty())
        .skip_while(|word| LEAD.contains(word))
        .collect();
    let Some(verb) = words
        .iter()
        .take(SUBJECT_WORDS + 1)
        .position(|word| is_past_tense(word))
    else {
        return false;
    };
    let subject = &words[..verb];
    if subject.iter().any(|word| {
        NOT_SUBJECT.contains(word) || LEAD.contains(word) || !requested_actions(word).is_empty()
    }) {
        return false;
    }
    let after = &words[verb + 1..];
    let numbered = !numbers(message).is_empty() || !spelled_numbers(message).is_empty();
    let money = numbered && !currency_mentions(message).is_empty();
    writes_measure(message) || money || counts_a_thing(after)
}

/// Whether `words`, after a report's verb, open with a count of things
/// ("9 codling moth", "three bins"): a number and a word that is not a
/// function word.
fn counts_a_thing(words: &[&str]) -> bool {
    let number = |word: &str| {
        word.chars().all(|c| c.is_ascii_digit()) && word.len() <= 4
            || !spelled_numbers(word).is_empty() && !word.chars().any(|c| c.is_ascii_digit())
    };
    words.first().is_some_and(|word| number(word))
        && words.get(1).is_some_and(|thing| {
            thing.chars().all(char::is_alphabetic)
                && !FUNCTION_WORDS.contains(thing)
                && !PREPOSITIONS.contains(thing)
        })
}

/// Whether `message`, of `form`, asks whether something was done ("has
/// my fault report been fixed yet?", "did I ever work VK2DEF?", "have the
/// tiles arrived?"): a question opening with a perfect or past auxiliary
/// asks to read a record of the doing, not to do it.
pub(crate) fn asks_whether_done(message: &str, form: MessageForm) -> bool {
    if form != MessageForm::Question || mostly_cjk(message) {
        return false;
    }
    let lower = message.to_lowercase();
    let mut words = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|word| !word.is_empty());
    let opening = words.next().unwrap_or_default();
    // "did you…", "have you…" ask the assistant itself, often to do it.
    let asked = words.next().unwrap_or_default();
    matches!(
        opening,
        "has" | "have" | "did" | "hasn't" | "haven't" | "didn't"
    ) && !matches!(asked, "you" | "u")
}

/// Whether `message`, of `form`, says that a record it names by its
/// number is in a state one of `tools` marks records with (see the
/// module's documentation).
pub(crate) fn reports_marked_state(
    message: &str,
    form: MessageForm,
    tools: &[ToolManifest],
) -> bool {
    if !matches!(form, MessageForm::Statement | MessageForm::Fragment) || !names_record(message) {
        return false;
    }
    let words: Vec<String> = message
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_owned)
        .collect();
    tools
        .iter()
        .flat_map(marked_states)
        .any(|state| words.contains(&state))
}

/// The states `tool` marks records with: the words after "mark" in its
/// name (`mark_sold`, `mark_as_paid`), and the word after "as" in a
/// description that opens with "Marks" ("Marks a listing as sold").
fn marked_states(tool: &ToolManifest) -> Vec<String> {
    let mut states = Vec::new();
    let name = tool.name.to_lowercase();
    if let Some(rest) = name.strip_prefix("mark_") {
        states.extend(
            rest.split('_')
                .filter(|word| !matches!(*word, "as" | "is" | "listing" | "item"))
                .map(str::to_owned),
        );
    }
    let description = tool.description.to_lowercase();
    if description.starts_with("mark") {
        let words: Vec<&str> = description
            .split(|c: char| !c.is_alphanumeric())
            .filter(|word| !word.is_empty())
            .collect();
        states.extend(
            words
                .windows(2)
                .filter(|pair| pair[0] == "as")
                .map(|pair| pair[1].to_owned()),
        );
    }
    states.retain(|state| state.len() >= 3);
    states
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_whether_a_thing_was_done_asks_to_read() {
        let asks = |message: &str| asks_whether_done(message, MessageForm::Question);
        assert!(asks("has my fault report about the lathe been fixed yet?"));
        assert!(asks("did I ever work VK2DEF?"));
        assert!(!asks("did you book it?"));
        assert!(!asks("can you book the bandsaw?"));
        assert!(!asks_whether_done("has been fixed", MessageForm::Fragment));
    }
    use crate::test_tools::tool;
    use riverse_route::message_form;

    fn reports(message: &str) -> bool {
        reports_doing(message, message_form(message))
    }

    #[test]
    fn a_record_in_the_state_a_tool_marks_asks_for_the_mark() {
        let sold = tool(
            "mark_sold",
            "Marks one of your listings as sold.",
            &[("listing_id", "id of the listing")],
        );
        let paid = tool(
            "close_invoice",
            "Marks an invoice as paid.",
            &[("id", "invoice id")],
        );
        let tools = [sold, paid];
        let reports = |message: &str| reports_marked_state(message, message_form(message), &tools);
        assert!(reports("L-33817 is sold!"));
        assert!(reports("invoice 20417 got paid yesterday"));
        assert!(!reports("Is L-33817 sold?"), "a question");
        assert!(!reports("my bike is sold"), "no record named");
        assert!(!reports("L-33817 is broken"), "no state a tool marks");
    }

    #[test]
    fn a_past_doing_with_its_measure_is_a_report() {
        for report in [
            "I just watered the fiddle leaf fig with about 500 ml",
            "Gave Pepper 85 grams of wet food",
            "Spent 18 euros on cinema tickets on 2026-11-28",
            "ran 5 km this morning",
            "trap T-17 had 9 codling moth this morning",
            "Dave paid twenty quid today",
            "We sprayed Mancozeb on A2 on Thursday at two litres per hectare",
            "cow 4471 gave 31.5 L at morning milking",
        ] {
            assert!(reports(report), "{report}");
        }
        for not in [
            "I finally cleaned up my Downloads folder, there were like 3000 files in it.",
            "How much did I spend on food last month?",
            "Log 5 km of running",
            "I need 500 ml of water",
            "The weather has been lovely lately",
            "昨日は5キロ走った",
            "the 42 was 20 min late this morning",
            "what did Dave pay in november",
            "the kids had a blast in the pool this summer haha",
            "lol my teenager used 30 gigs in a week",
            "the new hydrant wrench set arrived, finally",
        ] {
            assert!(!reports(not), "{not}");
        }
    }
}
