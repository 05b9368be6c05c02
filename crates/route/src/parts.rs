//! The requests a message joins ("What time is it in London, and how many
//! pounds is 3 kg?", 明天订会议室；另外两小时后提醒我), each to be routed
//! on its own.
//!
//! A message is cut after a sentence's end (`.`, `?`, `!`, `;`, `。`, `？`,
//! `！`, `；`) and before a joining word ("and", "then", "also", 再, 然后,
//! 还有, 另外, 并且, あと, それから, それと) or after し、, but only where
//! both sides are requests of their own: the side after a joining word must
//! open with a verb that names an action (`data/actions.txt`) or be a
//! question, and neither side may be too short to ask anything. So "add
//! eggs, oat milk and basil to the list" stays whole, while "Set the lights
//! to 20% and close the blinds" is two requests. A sentence that asks
//! nothing of its own ("3 bags, just wash and fold", "My number is
//! 555-0142.") is no request: it gives details of the one beside it.

use crate::actions::{leading_action_verb, requested_actions};
use crate::form::{MessageForm, message_form};
use crate::script::is_cjk;

/// Words that join two English requests, before the second one's verb.
const JOINERS: [&str; 6] = [
    ", and then ",
    " and then ",
    ", and ",
    " and ",
    ", then ",
    ", also ",
];

/// Terms that join two Chinese or Japanese requests, before the second.
const CJK_JOINERS: [&str; 11] = [
    "，再",
    "，然后",
    "，还有",
    "，另外",
    "，并且",
    "，顺便",
    "、あと",
    "、それから",
    "、それと",
    "。あと",
    "，帮我",
];

/// The requests `message` joins, in order; the message alone when it asks
/// one thing.
pub fn request_parts(message: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    for request in with_details_joined(message, &sentences(message)) {
        parts.extend(joined(request));
    }
    if parts.len() < 2 || !parts.iter().all(|part| asks_something(part)) {
        return vec![message.trim()];
    }
    parts
}

/// The sentence of `message` that asks (see [`request_parts`]): its
/// form is the request's, whatever the details around it say ("Put us on
/// the waitlist. My number is 555-0142." is no remark). The message itself
/// when no sentence asks, or it is one sentence.
pub fn asking_sentence(message: &str) -> &str {
    let sentences = sentences(message);
    if sentences.len() < 2 {
        return message;
    }
    // A leading fragment is no ask here: "Rain again. Of course it rains
    // today." stays a remark.
    sentences
        .into_iter()
        .find(|sentence| asks(sentence, false))
        .unwrap_or(message)
}

/// Whether a sentence asks something of its own: it opens with a verb of
/// an action, or is a question or a request, or it is a fragment that
/// leads (`first`): "pickup friday evening, one bag. note for the driver:
/// …" asks, where "… tomorrow? 3 bags, just wash and fold" gives details.
fn asks(sentence: &str, first: bool) -> bool {
    let form = message_form(sentence);
    opens_request(sentence)
        || form == MessageForm::Request
        || (first && form == MessageForm::Fragment)
}

/// `sentences` (slices of `message`, in order) joined so that each holds
/// one request: a sentence that asks nothing of its own gives details of
/// the request before it ("Schedule a pickup for Wednesday. Two suits need
/// dry cleaning.", "… tomorrow morning? 3 bags, just wash and fold"), or
/// of the one after it when it leads. The message whole when no sentence
/// asks.
fn with_details_joined<'a>(message: &'a str, sentences: &[&'a str]) -> Vec<&'a str> {
    // Each part is a slice of `message`: where it starts in it.
    let start_of = |part: &str| part.as_ptr() as usize - message.as_ptr() as usize;
    let mut requests: Vec<(usize, usize)> = Vec::new();
    let mut leading: Option<usize> = None;
    for sentence in sentences {
        let (start, end) = (start_of(sentence), start_of(sentence) + sentence.len());
        let asks = asks(sentence, requests.is_empty() && leading.is_none());
        match requests.last_mut() {
            Some(last) if !asks => last.1 = end,
            _ if asks => requests.push((leading.take().unwrap_or(start), end)),
            _ => {
                leading.get_or_insert(start);
            }
        }
    }
    if requests.is_empty() {
        return vec![message.trim()];
    }
    requests
        .into_iter()
        .map(|(start, end)| message[start..end].trim())
        .collect()
}

/// `message` cut after each sentence end that more text follows.
fn sentences(message: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut start = 0;
    let mut chars = message.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let ends = matches!(c, '?' | '!' | ';' | '。' | '？' | '！' | '；')
            || (c == '.' && chars.peek().is_some_and(|(_, next)| next.is_whitespace()));
        if ends {
            let end = at + c.len_utf8();
            let sentence = message[start..end].trim();
            if !sentence.is_empty() {
                found.push(sentence);
            }
            start = end;
        }
    }
    let rest = message[start..].trim();
    if !rest.is_empty() {
        found.push(rest);
    }
    found
}

/// A sentence cut before each joining word whose next part opens a request.
fn joined(sentence: &str) -> Vec<&str> {
    let lower = sentence.to_lowercase();
    if lower.len() != sentence.len() {
        return vec![sentence];
    }
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    for joiner in JOINERS {
        for (at, _) in lower.match_indices(joiner) {
            let next = at + joiner.len();
            let overlaps = cuts.iter().any(|&(a, b)| at < b && a < next);
            if !overlaps && opens_request(&sentence[next..]) {
                cuts.push((at, next));
            }
        }
    }
    for joiner in CJK_JOINERS {
        for (at, _) in sentence.match_indices(joiner) {
            let separator = joiner.chars().next().map_or(0, char::len_utf8);
            cuts.push((at, at + separator));
        }
    }
    for (at, _) in sentence.match_indices("し、") {
        let after = at + "し、".len();
        cuts.push((after, after));
    }
    cuts.sort_unstable();
    let mut parts = Vec::new();
    let mut start = 0;
    for (cut, next) in cuts {
        if cut < start {
            continue;
        }
        parts.push(sentence[start..cut].trim());
        start = next;
    }
    parts.push(sentence[start..].trim());
    parts.retain(|part| !part.is_empty());
    parts
}

/// Whether `text` opens with a verb that names an action, or one that
/// asks for something all the same ("give me the forecast"), or asks a
/// question.
fn opens_request(text: &str) -> bool {
    let clause = text.split([',', ';']).next().unwrap_or(text);
    !requested_actions(clause).is_empty()
        || leading_action_verb(clause).is_some()
        || message_form(clause) == MessageForm::Question
}

/// Words of polite asking that carry no request of their own (帮我记录一下
/// is 记录: "record it", of whatever came before).
const CJK_POLITE: [&str; 10] = [
    "帮我",
    "幫我",
    "请",
    "請",
    "一下",
    "吧",
    "ください",
    "下さい",
    "お願い",
    "して",
];

/// Long enough to ask something: three words, or four CJK characters
/// besides polite asking.
fn asks_something(part: &str) -> bool {
    let plain = CJK_POLITE
        .iter()
        .fold(part.to_owned(), |text, polite| text.replace(polite, ""));
    let cjk = plain.chars().filter(|&c| is_cjk(c)).count();
    part.split_whitespace().count() >= 3 || cjk >= 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_polite_ask_belongs_to_what_came_before() {
        let message = "今天在 Oldmill Pond 钓到一条1.8公斤的鲤鱼，已经放生了，帮我记录一下";
        assert_eq!(request_parts(message), [message]);
    }

    #[test]
    fn a_sentence_whose_first_word_a_verb_follows_is_a_detail() {
        let message = "I need a copy of my certificate, Ann Lee. Email is fine.";
        assert_eq!(request_parts(message), [message]);
        assert!(requested_actions("Order was wrong again").is_empty());
        assert!(!requested_actions("email the report to Ann").is_empty());
    }

    #[test]
    fn two_requests_joined_by_and_are_two_parts() {
        assert_eq!(
            request_parts("What time is it in London, and how many pounds is 3 kg?"),
            ["What time is it in London", "how many pounds is 3 kg?"]
        );
        assert_eq!(
            request_parts("Set the bedroom lights to 20% and close the blinds"),
            ["Set the bedroom lights to 20%", "close the blinds"]
        );
        assert_eq!(
            request_parts("book a table for two and give me the forecast for tonight"),
            ["book a table for two", "give me the forecast for tonight"],
            "a light verb asks all the same"
        );
    }

    #[test]
    fn an_enumeration_is_not_a_second_request() {
        for whole in [
            "Thanks! What time is it in Tokyo?",
            "add eggs, oat milk and basil to the shopping list",
            "Add a workshop with Ana and Luis on Friday",
            "Convert 10 km to miles",
        ] {
            assert_eq!(request_parts(whole), [whole]);
        }
    }

    #[test]
    fn a_sentence_that_asks_nothing_gives_details_of_the_request() {
        for whole in [
            "Please schedule a delivery for Monday. Two boxes need to go upstairs.",
            "can you collect my bike tomorrow? 2 wheels, just a tune-up",
            "I'm in Oslo. Book me a taxi to the airport",
        ] {
            assert_eq!(request_parts(whole), [whole]);
        }
        assert_eq!(
            request_parts("Book a table for two at 7. It's an anniversary. Also order flowers"),
            [
                "Book a table for two at 7. It's an anniversary.",
                "Also order flowers"
            ]
        );
        assert_eq!(
            request_parts("明天上午订Atlas会议室，5个人；另外两小时后提醒我交报告"),
            ["明天上午订Atlas会议室，5个人；", "另外两小时后提醒我交报告"],
            "a leading fragment asks"
        );
    }

    #[test]
    fn the_asking_sentence_of_a_request_with_details() {
        assert_eq!(
            asking_sentence("Put us on the waitlist at Rumi's. My number is 555-0100."),
            "Put us on the waitlist at Rumi's."
        );
        let remark = "Rain again. Of course it rains today.";
        assert_eq!(asking_sentence(remark), remark);
    }

    #[test]
    fn sentences_and_cjk_joiners_cut_requests() {
        assert_eq!(
            request_parts("What time was 1712345678 in UTC? Also grep the auth logs"),
            [
                "What time was 1712345678 in UTC?",
                "Also grep the auth logs"
            ]
        );
        assert_eq!(
            request_parts("查一下成都未来三天的天气，再把“我不吃辣”翻译成英语"),
            ["查一下成都未来三天的天气", "再把“我不吃辣”翻译成英语"]
        );
    }
}
