//! A question of what is required, allowed or advisable for anyone: "Do
//! syndicate members have to pay tax on winnings?", "What colour should
//! hydrant caps be painted?", "are swimsuits required?", 公墓允许撒骨灰吗？,
//! 消火栓の点検は何年ごとに必要ですか？. It asks for a rule, which no tool
//! that reads, records or computes its subject's data gives: a question of
//! advice (see [`crate::route::speech::asks_advice`]). Told by the
//! question's modal frame only, never by its topic; a question about a
//! record the message names ("Does group 37 need to come in on Monday?")
//! asks about that record, not a rule, and so does one that writes a
//! record's code.

/// Question words a "should" question opens with ("what colour should…",
/// "when should we prune…").
const OPENERS: &[&str] = &[
    "what", "what's", "whats", "which", "who", "where", "when", "how",
];

/// Words after "how" that make a "should" question ask for a quantity a
/// tool may work out ("how much should I tip on 84 dollars").
const QUANTITY: &[&str] = &["much", "many"];

/// Verbs after "should" that ask when a thing of one's own is due, which a
/// tool that tracks it answers ("when should I expect my refund?").
const DUE: &[&str] = &["expect", "arrive", "receive", "get"];

/// Words that ask whether a thing is required or allowed.
const NORM_WORDS: &[&str] = &[
    "legal",
    "legally",
    "illegal",
    "allowed",
    "permitted",
    "mandatory",
    "compulsory",
    "required",
    "obliged",
];

/// Words that open a yes-or-no question.
const YES_NO: &[&str] = &[
    "do", "does", "is", "are", "am", "can", "may", "must", "should", "will", "would",
];

/// Chinese and Japanese terms that ask what is required, allowed or
/// advisable, in a question.
const CJK_NORM_TERMS: &[&str] = &[
    "必要",
    "べき",
    "合法",
    "違法",
    "违法",
    "允许",
    "允許",
    "准许",
    "大丈夫",
    "应该",
    "應該",
    "必须",
    "必須",
    "ればいい",
    "たらいい",
];

/// Endings of a Chinese or Japanese question.
const CJK_QUESTION_ENDS: &[&str] = &["？", "?", "吗", "嗎", "か", "か。", "の"];

/// Whether `message` asks a rule (see the module's documentation).
pub(crate) fn asks_norm(message: &str) -> bool {
    if names_code(message) {
        return false;
    }
    let trimmed = message.trim_end();
    if trimmed.chars().any(riverse_route::script::is_cjk) {
        return CJK_QUESTION_ENDS.iter().any(|end| trimmed.ends_with(end))
            && CJK_NORM_TERMS.iter().any(|term| message.contains(term));
    }
    let lower = trimmed.to_lowercase().replace('’', "'");
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|word| !word.is_empty())
        .collect();
    let question = lower.ends_with('?') || words.first().is_some_and(|word| YES_NO.contains(word));
    question && (should_question(&words) || names_norm(&words) || needs_to(&words))
}

/// Whether `message` writes a record's code: letters with digits
/// ("H-3307", "group37") or a long number ("771203558"), not a measure
/// ("1500 gpm").
fn names_code(message: &str) -> bool {
    message
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .any(|token| {
            let digits = token.chars().filter(char::is_ascii_digit).count();
            let capitals = token.chars().any(|c| c.is_ascii_uppercase());
            digits > 0 && capitals || digits >= 5
        })
}

/// "What colour should hydrant caps be painted", "when should we prune":
/// a question word, then "should" within a few words.
fn should_question(words: &[&str]) -> bool {
    let Some(opener) = words.first().filter(|word| OPENERS.contains(word)) else {
        return false;
    };
    if *opener == "how" && words.get(1).is_some_and(|word| QUANTITY.contains(word)) {
        return false;
    }
    words
        .iter()
        .take(6)
        .position(|word| *word == "should")
        .is_some_and(|at| !words[at..].iter().take(4).any(|word| DUE.contains(word)))
}

/// "Is it legal to…", "are swimsuits required".
fn names_norm(words: &[&str]) -> bool {
    words.iter().any(|word| NORM_WORDS.contains(word))
}

/// "Do syndicate members have to pay tax", "do I need to bring ID": "do"
/// or "does", a subject without a number, and "have to" or "need to".
fn needs_to(words: &[&str]) -> bool {
    if !words
        .first()
        .is_some_and(|word| matches!(*word, "do" | "does"))
    {
        return false;
    }
    let Some(modal) = words
        .windows(2)
        .position(|pair| matches!(pair[0], "have" | "has" | "need" | "needs") && pair[1] == "to")
    else {
        return false;
    };
    modal > 1
        && words[1..modal]
            .iter()
            .all(|word| !word.chars().any(|c| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_of_what_is_required_or_allowed_asks_a_rule() {
        for asks in [
            "What colour should hydrant caps be painted for a 1500 gpm rating?",
            "when should we prune the apricots after harvest?",
            "Do syndicate members have to pay tax on winnings in the UK?",
            "do I need to bring two forms of ID?",
            "are swimsuits required or is it textile-free?",
            "Is it legal to keep a wild rabbit as a pet",
            "公墓允许撒骨灰吗？",
            "消火栓の点検は何年ごとに必要ですか？",
            "お墓参りにお花を持って行っても大丈夫ですか？",
            "桑拿之后应该马上冲冷水吗？",
        ] {
            assert!(asks_norm(asks), "{asks}");
        }
        for not in [
            "Does group 37 need to come in on Monday?",
            "How much should I tip on 84 dollars?",
            "How many calories should I eat a day?",
            "when should I expect my refund for order 5512?",
            "帮我把上周的对局记录改一下，赢家应该是阿杰",
            "第58组12月16日需要去法院报到吗？",
            "Is my booking confirmed?",
            "I need to book a lane for Saturday",
            "TASK-77 is blocked until legal signs off, set it accordingly",
            "Am I required to attend on the 16th? summons 771203558",
        ] {
            assert!(!asks_norm(not), "{not}");
        }
    }
}
