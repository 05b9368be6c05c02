//! A report of something broken ("the kitchen sink is leaking", "the
//! heating won't turn on", 玄関の鍵が回らなくなりました, 空调坏了): a
//! statement in form that asks for the fault to be reported and fixed, so
//! it is about repairs, maintenance and problems whatever it names.
//!
//! A report of something lost or stolen ("I lost my passport in Spain",
//! 我的SIM卡丢了, 財布を盗まれました) asks the same way for the loss to be
//! reported: it is about losses and thefts whatever it names. So does a
//! visit nobody came to ("the carer never turned up"): a missed visit.

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
    "drip",
    "drips",
    "seeping",
    "peeling",
    "seized",
    "crashed",
    "sheared",
    "collapsed",
    "cracking",
    "crumbling",
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
    "漏り",
    "ひび",
    "剥がれ",
    "停電",
    "停电",
    "断电",
    "渗水",
    "漏雨",
];

/// Whether `message` tells of something broken (see the module's
/// documentation).
pub fn reports_fault(message: &str) -> bool {
    let lower = message.to_lowercase().replace('’', "'");
    if holds_cjk_term(&lower, CJK_FAULT_TERMS) {
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
    " is split",
    " are split",
    " is down",
    " are down",
    "'s down",
    " went down",
    "no power",
    "power is out",
    "power's out",
    "power cut",
    "blackout",
    "came off",
    "fell off",
    "fallen off",
    "come off",
    "come loose",
];

/// Words a report of a fault is about, whatever it names.
const FAULT_SUBJECTS: &[&str] = &[
    "repair",
    "maintenance",
    "problem",
    "issue",
    "fault",
    "fix",
    "damage",
    "defect",
    "outage",
];

/// Phrases that tell of someone who was to come and did not.
const NO_SHOW_PHRASES: &[&str] = &[
    "no-show",
    "didn't show",
    "did not show",
    "never showed",
    "didn't turn up",
    "did not turn up",
    "never turned up",
    "nobody turned up",
    "no one turned up",
    "nobody showed",
    "no one showed",
    "nobody came",
    "no one came",
    "来なかった",
    "来ませんでした",
];

/// Words a report of a missed visit is about.
const NO_SHOW_SUBJECTS: &[&str] = &["missed", "absence", "absent", "noshow"];

/// Whether `message` tells of someone who was to come and did not ("the
/// carer never turned up"): a missed visit to report.
pub fn reports_no_show(message: &str) -> bool {
    let lower = message.to_lowercase().replace('’', "'");
    NO_SHOW_PHRASES.iter().any(|phrase| lower.contains(phrase))
}

/// Words a report of a loss is about, whatever it names.
const LOSS_SUBJECTS: &[&str] = &["lost", "loss", "stolen", "theft", "missing"];

/// What follows "lost" when a thing was lost ("lost my keys", "lost a
/// glove"), not a game, a chance or track of time.
const LOST_THINGS: &[&str] = &[
    "my", "our", "his", "her", "their", "a", "an", "the", "one", "two", "both",
];

/// Phrases that tell of a thing lost or stolen.
const LOSS_PHRASES: &[&str] = &[
    " went missing",
    " gone missing",
    " is missing",
    " are missing",
    " was lost",
    " were lost",
    " got stolen",
];

/// Chinese and Japanese terms of a loss or a theft.
const CJK_LOSS_TERMS: &[&str] = &[
    "丢了",
    "丢失",
    "弄丢",
    "遗失",
    "被偷",
    "被盗",
    "失窃",
    "挂失",
    "なくし",
    "無くし",
    "失くし",
    "紛失",
    "盗まれ",
    "盗難",
    "落としまし",
    "落としてしま",
];

/// Whether `message` tells of something lost or stolen (see the module's
/// documentation).
pub fn reports_loss(message: &str) -> bool {
    let lower = message.to_lowercase();
    if holds_cjk_term(&lower, CJK_LOSS_TERMS) {
        return true;
    }
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .filter(|word| !word.is_empty())
        .collect();
    let lost_thing =
        |next: &str| LOST_THINGS.contains(&next) || next.contains(|c: char| c.is_ascii_digit());
    words.contains(&"stolen")
        || words
            .windows(2)
            .any(|pair| pair[0] == "lost" && lost_thing(pair[1]))
        || LOSS_PHRASES.iter().any(|phrase| lower.contains(phrase))
}

/// Whether Chinese or Japanese `text` holds one of `terms`.
pub(crate) fn holds_cjk_term(text: &str, terms: &[&str]) -> bool {
    text.chars().any(is_cjk) && terms.iter().any(|term| text.contains(term))
}

/// Whether `message` reports a fault, a loss or a missed visit: a
/// statement that asks for a report to be made.
pub fn reports_trouble(message: &str) -> bool {
    reports_fault(message) || reports_loss(message) || reports_no_show(message)
}

/// The subjects a report of trouble is about, whatever it names: repairs
/// for a fault, losses for a loss, a missed visit for a no-show; none for
/// a message that reports no trouble.
pub fn trouble_subjects(message: &str) -> Vec<&'static str> {
    let mut subjects = Vec::new();
    if reports_fault(message) {
        subjects.extend(FAULT_SUBJECTS);
    }
    if reports_loss(message) {
        subjects.extend(LOSS_SUBJECTS);
    }
    if reports_no_show(message) {
        subjects.extend(NO_SHOW_SUBJECTS);
    }
    subjects
}

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
            "Small drip coming in at the corner of the kitchen",
            "the main valve has seized",
            "backscene on board 6 is peeling off",
            "寝室で雨漏りがしています",
            "中央区で停電しています",
            "电梯卡住了",
            "FL-03's left front tyre is split",
            "the power's out on the whole street",
        ] {
            assert!(reports_fault(message), "{message}");
        }
    }

    #[test]
    fn a_lost_or_stolen_thing_is_a_loss() {
        for message in [
            "I lost my passport X1234567 in Spain yesterday",
            "Lost my keys on tram line 3 on thursday",
            "flyaway!! lost SN-30077 over the quarry",
            "my bike was stolen from outside the station",
            "our cat went missing on Sunday",
            "我的SIM卡丢了",
            "昨日、財布を盗まれました",
            "社員証を紛失しました",
        ] {
            assert!(reports_loss(message), "{message}");
            assert!(trouble_subjects(message).contains(&"lost"), "{message}");
        }
    }

    #[test]
    fn a_visit_nobody_came_to_is_missed() {
        let message = "Nobody turned up for my dad's visit this morning";
        assert!(reports_no_show(message) && reports_trouble(message));
        assert!(trouble_subjects(message).contains(&"missed"));
        assert!(!reports_no_show("the carer turned up at nine"));
    }

    #[test]
    fn losing_a_game_or_track_is_no_loss() {
        for message in [
            "what's the date today? I've completely lost track",
            "drop Spider-Boy from my list, lost interest",
            "white lost on time",
            "I'm lost, which form do I need?",
            "book the party room for Friday",
        ] {
            assert!(!reports_loss(message), "{message}");
            assert!(trouble_subjects(message).is_empty(), "{message}");
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
            "it's pouring outside, stay dry",
            "my friend is coming in on Friday",
        ] {
            assert!(!reports_fault(message), "{message}");
        }
    }
}
