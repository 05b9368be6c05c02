//! A report of the person's own doing ("I just watered the fig with about
//! 500 ml", "Spent 18 euros on cinema tickets", "Gave Pepper 85 grams of
//! wet food"): a statement in form, but one that gives a tool that records
//! such doings all it needs, so it asks that tool to record it. Told by
//! grammar only: an optional subject and adverb, a verb in the past tense
//! opening the message, and a measure (a number with its unit, or an
//! amount of money) after it.

use riverse_route::{MessageForm, currency_mentions, script::mostly_cjk, writes_measure};

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
    "won", "lent", "drove", "flew", "read", "grew", "threw", "caught", "left",
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

#[cfg(test)]
mod tests {
    use super::*;
    use riverse_route::message_form;

    fn reports(message: &str) -> bool {
        reports_doing(message, message_form(message))
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
