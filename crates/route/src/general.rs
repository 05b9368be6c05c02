//! A question of what is usual or wise in general ("how long does a PCR
//! run usually take?", "do I need a permit to put up a shed?", 鱼得了白点病
//! 怎么办？, 夜間飛行のコツを教えてください): it asks what holds for anyone,
//! which a tool's records seldom answer, though it names a tool's subject.
//! Wider and softer than a request for advice or an opinion, which only a
//! tool that advises reaches: a general question asks the tool to be
//! further ahead.

use crate::script::is_cjk;

/// Word sequences that ask in general, each word one of its slot's
/// alternatives.
const GENERAL_PATTERNS: &[&[&[&str]]] = &[
    &[
        &["how"],
        &["do", "does", "can", "should", "would"],
        &["i", "you", "we", "one", "people"],
    ],
    &[&["should"], &["i", "we"]],
    &[
        &["am", "are", "is"],
        &["i", "we", "it"],
        &[
            "allowed", "ok", "okay", "safe", "possible", "legal", "normal", "worth",
        ],
    ],
    &[&["do"], &["i", "we"], &["need"], &["a", "an", "to"]],
    &[
        &["what's", "whats"],
        &["the"],
        &["best", "usual", "normal", "typical"],
    ],
    &[
        &["what"],
        &["is"],
        &["the"],
        &["best", "usual", "normal", "typical"],
    ],
    &[
        &["how"],
        &["long"],
        &["does", "do", "will", "can", "should"],
        &["it", "a", "an", "the"],
    ],
    &[&["in"], &["general"]],
];

/// Words that ask in general wherever they stand.
const GENERAL_WORDS: &[&str] = &[
    "usually",
    "typically",
    "normally",
    "generally",
    "tips",
    "advice",
];

/// What follows "how do you" when it asks for a translation.
const NOT_GENERAL_AFTER: &[&str] = &["say", "spell", "pronounce", "write"];

/// Chinese and Japanese terms that ask what is usual or what to do.
const CJK_GENERAL_TERMS: &[&str] = &[
    "一般",
    "通常",
    "怎么办",
    "有什么办法",
    "要注意",
    "应该",
    "是否需要",
    "多久",
    "どれくらい",
    "普通は",
    "どうすれば",
    "たらいいですか",
    "ばいいですか",
    "コツ",
    "方法",
    "べきですか",
];

/// Whether `message` asks what is usual or wise in general (see the
/// module's documentation).
pub fn asks_general(message: &str) -> bool {
    if message.chars().any(is_cjk) && CJK_GENERAL_TERMS.iter().any(|term| message.contains(term)) {
        return true;
    }
    let lower = message.to_lowercase().replace('’', "'");
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|word| !word.is_empty())
        .collect();
    words.iter().any(|word| GENERAL_WORDS.contains(word))
        || GENERAL_PATTERNS.iter().any(|pattern| {
            (0..words.len()).any(|at| {
                let matched = pattern.len() <= words.len() - at
                    && pattern
                        .iter()
                        .zip(&words[at..])
                        .all(|(slot, word)| slot.contains(word));
                let next = words.get(at + pattern.len());
                matched && !next.is_some_and(|next| NOT_GENERAL_AFTER.contains(next))
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn general_questions_ask_in_general() {
        for message in [
            "how long does a standard PCR run take?",
            "do I need a licence to fly a small drone?",
            "Is it legal to sell jam at a market?",
            "what's the best way to store logs over winter?",
            "any tips for a first skating lesson?",
            "when should I plant garlic?",
            "鱼得了白点病怎么办？",
            "夜間飛行のコツを教えてください。",
        ] {
            assert!(asks_general(message), "{message}");
        }
    }

    #[test]
    fn requests_and_translations_ask_nothing_general() {
        for message in [
            "How do you say 'thank you' in Portuguese?",
            "book a court for Friday at 6",
            "what's on tomorrow?",
            "where is my order A-1203?",
            "把预约改到周五",
        ] {
            assert!(!asks_general(message), "{message}");
        }
    }
}
