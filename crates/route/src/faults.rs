//! A report of something broken ("the kitchen sink is leaking", "the
//! heating won't turn on", 玄関の鍵が回らなくなりました, 空调坏了): a
//! statement in form that asks for the fault to be reported and fixed, so
//! it is about repairs, maintenance and problems whatever it names.

use crate::script::is_cjk;

/// English words that tell of a fault wherever they stand.
const FAULT_WORDS: &[&str] = &[
    "leak",
    "leaks",
    "leaking",
    "leaked",
    "broken",
    "broke",
    "cracked",
    "clogged",
    "jammed",
    "faulty",
    "damaged",
    "burst",
    "dripping",
    "overflowing",
    "flickering",
    "malfunctioning",
    "mould",
    "mold",
    "mouldy",
    "moldy",
    "dead",
    "torn",
    "ripped",
    "snapped",
    "shattered",
    "smashed",
    "bent",
    "frayed",
    "rusted",
    "dented",
    "punctured",
    "flooded",
    "flooding",
    "sparking",
    "blocked",
];

/// What a thing fails to do after "won't", "doesn't" or "stopped" ("won't
/// turn on", "stopped working").
const FAILED_DOINGS: &[&str] = &[
    "work",
    "working",
    "turn",
    "start",
    "open",
    "close",
    "lock",
    "unlock",
    "flush",
    "drain",
    "heat",
    "light",
    "run",
    "respond",
    "responding",
    "charge",
    "charging",
    "connect",
    "boot",
    "print",
    "spin",
    "move",
];

/// Words that say a thing fails at what follows.
const FAILING: &[&str] = &[
    "won't", "wont", "doesn't", "doesnt", "isn't", "isnt", "stopped", "can't", "cant",
];

/// Chinese and Japanese terms of a fault.
const CJK_FAULT_TERMS: &[&str] = &[
    "壊れ",
    "故障",
    "漏れ",
    "動かな",
    "回らな",
    "詰まっ",
    "開かな",
    "閉まらな",
    "つかな",
    "点かな",
    "割れ",
    "不具合",
    "坏了",
    "坏掉",
    "漏水",
    "漏了",
    "堵了",
    "堵塞",
    "打不开",
    "关不上",
    "不亮",
    "失灵",
    "不能用",
    "没有热水",
    "反応しな",
    "反応しませ",
    "動きませ",
    "止まっ",
    "破れ",
    "カビ",
    "卡住",
    "没反应",
    "不工作",
    "破了",
    "裂了",
    "断了",
    "发霉",
];

/// Whether `message` tells of something broken (see the module's
/// documentation).
pub fn reports_fault(message: &str) -> bool {
    let lower = message.to_lowercase().replace('’', "'");
    if lower.chars().any(is_cjk) && CJK_FAULT_TERMS.iter().any(|term| lower.contains(term)) {
        return true;
    }
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|word| !word.is_empty())
        .collect();
    words.iter().any(|word| FAULT_WORDS.contains(word))
        || words
            .windows(2)
            .any(|pair| FAILING.contains(&pair[0]) && FAILED_DOINGS.contains(&pair[1]))
        || FAULT_PHRASES.iter().any(|phrase| lower.contains(phrase))
}

/// Phrases that tell of a fault where their words alone may not: a thing
/// "is stuck", not a person ("I'm stuck choosing").
const FAULT_PHRASES: &[&str] = &[
    "out of order",
    "not working",
    " is stuck",
    " are stuck",
    "'s stuck",
    "stuck between",
];

/// Words a report of a fault is about, whatever it names.
pub const FAULT_SUBJECTS: [&str; 6] = ["repair", "maintenance", "problem", "issue", "fault", "fix"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_thing_is_a_fault() {
        for message in [
            "kitchen sink is leaking under the cabinet, urgent pls",
            "The heating in the bedroom won't turn on at all",
            "my laptop stopped working after the update",
            "the lift is out of order again",
            "玄関の鍵が回らなくなりました。緊急でお願いします。",
            "卫生间的灯不亮了",
            "lift 2 is stuck between floors",
            "the card reader is dead again",
            "the net on court 2 is torn",
            "ボタンが反応しません",
            "电梯卡住了",
        ] {
            assert!(reports_fault(message), "{message}");
        }
    }

    #[test]
    fn working_things_are_no_fault() {
        for message in [
            "book the party room for Friday",
            "I won't be home tomorrow",
            "we do not work on Fridays",
            "show my open tickets",
            "明日の午前9時に予約して",
            "I'm stuck choosing between two flats, which is cheaper?",
            "the deadline is Friday",
        ] {
            assert!(!reports_fault(message), "{message}");
        }
    }
}
