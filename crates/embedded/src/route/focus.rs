//! What a "what's the …", "who's the …" or "tell me the …" question asks
//! for: the head word of its noun phrase ("What's the battery level on
//! Luna's feeder?": level). A tool that reads its subject's data answers
//! it only when its texts name that thing (see
//! [`crate::route::reach::Asked::focus`]).

use crate::route::speech::OBJECT_END;

/// Words after "what's the" that end its focus ("the time over in
/// Mumbai", "the weather like in Paris").
const FOCUS_END: &[&str] = &[
    "over",
    "like",
    "going",
    "gonna",
    "right",
    "here",
    "there",
    "currently",
    "today",
    "tonight",
    "doing",
    "looking",
    "now",
    "these",
    "this",
    "been",
];

/// Auxiliaries that end a "what …" question's noun phrase.
const AUXILIARIES: &[&str] = &[
    "does", "do", "did", "is", "are", "was", "were", "has", "have", "had", "can", "will", "should",
];

/// What a "what's the …" or "who's the …" question asks for: the head
/// word of its noun phrase ("What's the battery level on Luna's feeder?":
/// level; "who's the rescuer coming out…": rescuer), lowercase; `None` for
/// any other question, or one whose phrase is a name or a number.
pub(crate) fn question_focus(message: &str) -> Option<String> {
    let lower = message.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| c.is_whitespace() || c == '?' || c == ',')
        .filter(|word| !word.is_empty())
        .collect();
    // "Can you tell me the GPS coordinates of plot B-27?" asks for the
    // coordinates as "what are the…" does.
    if let Some(told) = without_telling(&words) {
        return match told {
            ["the" | "my" | "our", rest @ ..] => focus_head(rest),
            _ => None,
        };
    }
    let rest = match words.as_slice() {
        ["what's" | "whats", "the" | "my" | "our", rest @ ..] => rest,
        [
            "what",
            "is" | "are" | "were",
            "the" | "my" | "our",
            rest @ ..,
        ] => rest,
        ["who's" | "whos", "the" | "my" | "our", rest @ ..] => rest,
        [
            "who",
            "is" | "was" | "will" | "are",
            "the" | "my" | "our",
            rest @ ..,
        ] => rest,
        // "What interest rate does my savings account earn?"
        [wh @ ("what" | "which"), rest @ ..] => {
            let aux = rest
                .iter()
                .take(4)
                .position(|word| AUXILIARIES.contains(word))?;
            // "what meds is…" may name its thing by a short form: only a
            // phrase of two words or more is read. "which" picks one of a
            // kind, named in full ("Which technician is coming…").
            let shortest = if *wh == "which" { 1 } else { 2 };
            if aux < shortest {
                return None;
            }
            &rest[..aux]
        }
        _ => return None,
    };
    focus_head(rest)
}

/// Heads that name no thing of their own ("the list of…", "the details
/// of…", "what youth group things…"): what they hold is named around
/// them.
const GENERAL_HEADS: &[&str] = &[
    "list",
    "details",
    "info",
    "information",
    "rest",
    "whole",
    "full",
    "thing",
    "things",
    "stuff",
    "ones",
    "bits",
    "kind",
    "kinds",
    "sort",
    "sorts",
    "type",
    "types",
];

/// The words after a request to be told ("can you tell me", "please give
/// us"), or `None` when `words` open with none.
fn without_telling<'a>(words: &'a [&'a str]) -> Option<&'a [&'a str]> {
    let mut rest = words;
    if let ["can" | "could" | "would", "you" | "u", tail @ ..] = rest {
        rest = tail;
    }
    if let ["please" | "pls", tail @ ..] = rest {
        rest = tail;
    }
    match rest {
        ["tell" | "give" | "send", "me" | "us", tail @ ..] => Some(tail),
        _ => None,
    }
}

/// The head word of a question's noun phrase: its last word before a word
/// that ends it (see [`question_focus`]); `None` for a head that names no
/// thing of its own.
fn focus_head(rest: &[&str]) -> Option<String> {
    let mut head = None;
    for word in rest.iter().take(4) {
        if OBJECT_END.contains(word) || FOCUS_END.contains(word) {
            break;
        }
        if !word.chars().all(|c| c.is_ascii_alphabetic()) {
            break;
        }
        // A participle after the head opens what is said of it ("the
        // rescuer coming out for…").
        if head.is_some() && word.ends_with("ing") {
            break;
        }
        head = Some((*word).to_owned());
    }
    head.filter(|head| !GENERAL_HEADS.contains(&head.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_what_question_asks_for_its_head_word() {
        let focus = |message: &str| question_focus(message);
        assert_eq!(
            focus("What's the battery level on Luna's feeder?").as_deref(),
            Some("level")
        );
        assert_eq!(
            focus("What's the time over in Mumbai at the moment?").as_deref(),
            Some("time")
        );
        assert_eq!(
            focus("What's the current time in New York?").as_deref(),
            Some("time")
        );
        assert_eq!(focus("What time is it?"), None);
        assert_eq!(focus("what meds is Biscuit on?"), None);
        assert_eq!(
            focus("What interest rate does my savings account earn?").as_deref(),
            Some("rate")
        );
        assert_eq!(focus("What did I weigh?"), None);
        assert_eq!(
            focus("who's the rescuer coming out for case WR-3318?").as_deref(),
            Some("rescuer")
        );
        assert_eq!(
            focus("Who is the lead mechanic on BW-3302").as_deref(),
            Some("mechanic")
        );
        assert_eq!(focus("who's on call tonight?"), None);
        assert_eq!(
            focus("Which technician is coming on Friday?").as_deref(),
            Some("technician")
        );
        assert_eq!(
            focus("Can you tell me the GPS coordinates of plot B-27?").as_deref(),
            Some("coordinates")
        );
        assert_eq!(
            focus("what are the opening hours on Sunday").as_deref(),
            Some("hours")
        );
        assert_eq!(focus("give me the list of wreck sites"), None);
        assert_eq!(focus("what climbing club things are on this week?"), None);
        assert_eq!(focus("tell me a joke"), None);
    }
}
