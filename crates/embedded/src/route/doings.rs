//! A report of the person's own doing ("I just watered the fig with about
//! 500 ml", "Spent 18 euros on cinema tickets", "Gave Pepper 85 grams of
//! wet food"): a statement in form, but one that gives a tool that records
//! such doings all it needs, so it asks that tool to record it. Told by
//! grammar only: an optional subject and adverb, a verb in the past tense
//! opening the message, and a measure (a number with its unit, or an
//! amount of money) after it.
//!
//! Likewise a record said to be in the state a tool marks records with
//! ("L-33817 is sold!" beside `mark_sold`, "Marks a listing as sold"): the
//! news asks for the record to be marked. And a question whether a thing
//! was done asks to read, whatever verb it holds.

use riverse_route::{
    MessageForm, currency_mentions, names_record, script::mostly_cjk, writes_measure,
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

/// Common English verbs whose past tense does not end in "-ed".
const IRREGULAR_PAST: &[&str] = &[
    "ate", "drank", "ran", "did", "gave", "spent", "fed", "paid", "bought", "sold", "took", "made",
    "rode", "swam", "went", "slept", "wrote", "got", "had", "put", "sent", "brought", "lost",
    "won", "lent", "drove", "flew", "read", "grew", "threw", "caught", "left", "saw", "heard",
    "found", "met", "built", "kept",
];

/// Whether `message`, of `form`, reports a doing of the person's own with
/// its measure (see the module's documentation).
pub(crate) fn reports_doing(message: &str, form: MessageForm) -> bool {
    if !matches!(form, MessageForm::Statement | MessageForm::Fragment) || mostly_cjk(message) {
        return false;
    }
    let lower = message.to_lowercase();
    let Some(verb) = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .find(|word| !word.is_empty() && !LEAD.contains(word))
    else {
        return false;
    };
    let past = IRREGULAR_PAST.contains(&verb)
        || verb.len() >= 5 && verb.ends_with("ed") && !verb.ends_with("eed");
    let money =
        message.chars().any(|c| c.is_ascii_digit()) && !currency_mentions(message).is_empty();
    past && (writes_measure(message) || money)
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
        ] {
            assert!(!reports(not), "{not}");
        }
    }
}
