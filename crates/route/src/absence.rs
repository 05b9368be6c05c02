//! A word that one will not be somewhere ("can't make rehearsal tomorrow",
//! "I'll miss Thursday's session", 这周三的排练要请假, 明日の練習は欠席します):
//! a statement in form that asks for the absence to be told, or for what
//! one would have attended to be cancelled or moved, and asks nothing to
//! be read.

use crate::faults::holds_cjk_term;

/// English phrases that say one will not attend.
const ABSENCE_PHRASES: &[&str] = &[
    "can't make",
    "cant make",
    "cannot make",
    "can not make",
    "won't make",
    "won't be able to make",
    "won't be able to come",
    "won't be able to attend",
    "can't come",
    "cant come",
    "cannot come",
    "can't attend",
    "cannot attend",
    "unable to attend",
    "unable to come",
    "unable to make",
    "not able to attend",
    "not able to come",
    "will miss",
    "i'll miss",
    "ill miss",
    "we'll miss",
    "going to miss",
    "gonna miss",
    "have to miss",
    "won't be at",
    "won't be there",
    "off sick",
];

/// Words after a phrase's last word that tell of something else than
/// not attending: making ("can't make sense of it", "can't make a
/// booking"), or a farewell ("I'll miss you all").
const NOT_ATTENDING_AFTER: &[(&str, &[&str])] = &[
    (
        "make",
        &[
            "sense", "out", "up", "any", "a", "an", "payment", "payments", "changes",
        ],
    ),
    (
        "miss",
        &[
            "you",
            "u",
            "ya",
            "y'all",
            "him",
            "her",
            "them",
            "us",
            "everyone",
            "everybody",
            "this",
            "home",
        ],
    ),
];

/// Chinese and Japanese terms that say one will not attend.
const CJK_ABSENCE_TERMS: &[&str] = &[
    "请假",
    "請假",
    "缺席",
    "来不了",
    "去不了",
    "参加不了",
    "欠席",
    "休みます",
    "行けません",
    "行けない",
    "参加できません",
    "出られません",
];

/// Whether `message` says the user (or someone they speak for) will not
/// attend something (see the module's documentation).
pub fn reports_absence(message: &str) -> bool {
    let lower = message.to_lowercase().replace('’', "'");
    if holds_cjk_term(&lower, CJK_ABSENCE_TERMS) {
        return true;
    }
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|word| !word.is_empty())
        .collect();
    let text = format!(" {} ", words.join(" "));
    ABSENCE_PHRASES.iter().any(|phrase| {
        let padded = format!(" {phrase} ");
        text.match_indices(&padded).any(|(at, _)| {
            let next = text[at + padded.len()..].split_whitespace().next();
            !NOT_ATTENDING_AFTER.iter().any(|(last, others)| {
                phrase.ends_with(last) && next.is_some_and(|next| others.contains(&next))
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saying_one_will_not_attend_is_an_absence() {
        for message in [
            "Sorry, can't make practice tonight, my car broke down",
            "I won't be able to attend the Thursday workshop",
            "Priya will miss Saturday's lesson, she's ill",
            "明日の練習は欠席します",
            "周五的课我要请假",
        ] {
            assert!(reports_absence(message), "{message}");
        }
        for message in [
            "I can't make a booking on the website",
            "can't make sense of the invoice",
            "I'll miss you all, thanks for everything",
            "what time does the class start?",
            "the dismissal bell is at three",
            "明日の練習は何時から？",
        ] {
            assert!(!reports_absence(message), "{message}");
        }
    }
}
