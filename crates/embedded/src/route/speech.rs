//! What a request's speech act and its object ask of a tool, beyond its
//! action class and subject.
//!
//! - **Advice, explanation, opinion.** "Why do listeners drop off?",
//!   "Should I put my savings into an index fund?", "What's a good title
//!   for…", "Is it safe for dogs to eat grapes?", "Is X better than Y?",
//!   "Explain the difference between…", "how many kg is too much?": the
//!   request asks for a judgement or a reason, which a tool that reads,
//!   records or computes its subject's data does not give, however near
//!   its subject. Only a tool whose texts say it recommends, suggests,
//!   advises, explains, compares or answers questions (a web search) serves
//!   one. Told by the question's closed-class frame only (why, should,
//!   a copula and an evaluative adjective, or a rule's modal frame: see
//!   [`crate::route::norms`]), never by its topic.
//! - **What a change acts on.** "Cancel the hold on Piranesi" asks to stop
//!   a hold: a tool that changes things serves it only when its texts name
//!   the thing changed (a hold), not merely something else the message
//!   gives (a card number); see [`changed_object`].
//! - **A verb a tool names.** A request that opens with a verb the action
//!   classes do not list ("Lend", "waive", "Release") is for a tool whose
//!   name or description opens with that verb (`waive_fine`, "Lends a book
//!   to a member"); see [`unlisted_verb`].

use riverse_route::words::{NEGATIONS, REQUEST_LEAD_INS, TOPIC_FREE_WORDS};
use riverse_route::{
    LIGHT_VERBS, MessageForm, is_past_tense, leading_action_verb, message_form, requested_actions,
    verb_actions,
};
use riverse_tool::{Kind, ParamType, ToolManifest};

use crate::route::norms::asks_norm;

/// Adjectives that judge, after a copula ("what's a good…", "is it safe…").
const EVALUATIVE: &[&str] = &[
    "good", "best", "nice", "great", "ideal", "better", "worse", "worth", "wise", "safe", "smart",
    "healthy", "ok", "okay", "bad", "normal", "right",
];

/// Question words that open a copula question.
const WH: &[&str] = &["what", "what's", "whats", "who", "who's", "which", "where"];

/// CJK terms that ask for a reason.
const CJK_WHY: &[&str] = &["为什么", "為什麼", "为啥", "なぜ", "どうして", "何で"];

/// CJK terms that ask for tips, a way to do something or a recommendation
/// ("…のコツを教えて", "育て方を教えて", 有什么建议).
const CJK_ADVICE: &[&str] = &[
    "コツ",
    "アドバイス",
    "おすすめ",
    "オススメ",
    "方を教えて",
    "方法を教えて",
    "どうすれば",
    "建议",
    "推荐",
    "窍门",
    "诀窍",
    "秘诀",
    "怎么做",
];

/// Words of a tool's texts that say it gives judgements or answers.
const ADVISING: &[&str] = &[
    "recommend",
    "recommends",
    "recommendation",
    "recommendations",
    "suggest",
    "suggests",
    "suggestion",
    "suggestions",
    "advice",
    "advise",
    "advises",
    "explain",
    "explains",
    "explanation",
    "ideas",
    "compare",
    "compares",
    "comparison",
    "answer",
    "answers",
    "question",
    "questions",
    "web",
    "internet",
    "online",
    "encyclopedia",
    "wikipedia",
    "knowledge",
    "faq",
];

/// Words that may stand between a changing verb and its object.
pub(crate) const OBJECT_LEAD: &[&str] = &[
    "the", "a", "an", "my", "our", "your", "his", "her", "their", "this", "that", "these", "those",
    "all", "every", "up", "down", "off", "out", "on", "back", "me", "us",
];

/// Words that open a phrase naming a thing that exists.
const DEFINITE: &[&str] = &[
    "the", "my", "our", "your", "his", "her", "their", "this", "that", "these", "those",
];

/// Words that end an object ("the hold on Piranesi", "the heating up").
pub(crate) const OBJECT_END: &[&str] = &[
    "called", "named", "titled", "about", "that", "which", "who", "of", "on", "for", "to", "from",
    "in", "at", "by", "with", "into", "as", "and", "or", "then", "up", "down", "off", "out",
    "back", "so", "because", "before", "after", "until", "since", "please", "now", "today",
    "tomorrow",
];

/// Pronouns: an object that names nothing.
const PRONOUNS: &[&str] = &["it", "them", "this", "that", "one", "everything", "all"];

/// Whether `message` asks for advice, an explanation or an opinion (see
/// the module's documentation).
pub(crate) fn asks_advice(message: &str) -> bool {
    if asks_norm(message) {
        return true;
    }
    if CJK_WHY
        .iter()
        .chain(CJK_ADVICE)
        .any(|term| message.contains(term))
    {
        return true;
    }
    let lower = message.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|word| !word.is_empty())
        .collect();
    let start = words
        .iter()
        .position(|word| !REQUEST_LEAD_INS.contains(word) && !matches!(*word, "tell" | "me"))
        .unwrap_or(words.len());
    let at = |offset: usize| words.get(start + offset).copied().unwrap_or("");
    if matches!(at(0), "why" | "explain") {
        return true;
    }
    if at(0) == "should" && matches!(at(1), "i" | "we") {
        return true;
    }
    // "How often should a piano be tuned?": a rule of thumb, not "how
    // much should I tip", which a calculator works out.
    if at(0) == "how" && matches!(at(1), "often" | "long") && at(2) == "should" {
        return true;
    }
    // "How do councils decide…", "how does a heat pump work": how a kind
    // of thing goes in general (a bare plural, or "a"), not "how do I…",
    // which may ask for the doing, nor "how does the weather look".
    let generic = match at(1) {
        "do" => at(2).len() > 3 && at(2).ends_with('s') && !at(2).ends_with("ss"),
        "does" => matches!(at(2), "a" | "an"),
        _ => false,
    };
    if at(0) == "how" && generic && lower.trim_end().ends_with('?') {
        return true;
    }
    // "Which microphone should I buy", not "How much should I tip".
    let wh_should = WH.contains(&at(0))
        && (1..6).any(|offset| at(offset) == "should" && matches!(at(offset + 1), "i" | "we"));
    let question = lower.trim_end().ends_with('?');
    let judged = question
        && words.windows(2).any(|pair| {
            matches!(
                pair,
                ["better" | "worse", "than"] | ["too", "much" | "many"]
            )
        });
    let difference = words
        .windows(3)
        .any(|three| three == ["the", "difference", "between"])
        && matches!(at(0), "what's" | "whats" | "what" | "explain");
    wh_should || judged || difference || copula_judgement(&words[start..])
}

/// "what's a good…", "is it safe…", "who is the best…": a copula, an
/// optional subject or article, and an evaluative adjective.
fn copula_judgement(words: &[&str]) -> bool {
    let mut rest = words;
    if let Some((first, tail)) = rest.split_first()
        && WH.contains(first)
    {
        rest = tail;
        if first.ends_with("'s") || first.ends_with("ts") {
            return evaluated(rest);
        }
    }
    match rest.split_first() {
        Some((&("is" | "are" | "was" | "'s"), tail)) => {
            let tail = match tail.first() {
                Some(&("it" | "this" | "that")) => &tail[1..],
                _ => tail,
            };
            evaluated(tail)
        }
        _ => false,
    }
}

/// Whether `words` open with an evaluative adjective, after an article.
fn evaluated(words: &[&str]) -> bool {
    let words = match words.first() {
        Some(&("a" | "an" | "the" | "some" | "any")) => &words[1..],
        _ => words,
    };
    words.first().is_some_and(|word| EVALUATIVE.contains(word))
}

/// Whether `tool`'s texts say it gives judgements, explanations or
/// answers (see the module's documentation).
pub(crate) fn advises(tool: &ToolManifest) -> bool {
    let mut text = format!("{} {}", tool.name.replace('_', " "), tool.description);
    for (name, meaning) in &tool.parameters {
        text.push(' ');
        text.push_str(&name.replace('_', " "));
        text.push(' ');
        text.push_str(meaning);
    }
    text.to_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|word| ADVISING.contains(&word))
}

/// The word naming what a request to change, remove or stop something acts
/// on ("Cancel the hold on Piranesi": hold; "Turn the heating up":
/// heating; "Remove the 'Listener questions' chapter from episode 54":
/// chapter), lowercase, and that of the thing it belongs to ("the
/// category of that expense": category, expense); none when the request
/// asks no such change, or its object is a name, a quotation, a number or
/// a pronoun, which only a tool's values could tell.
pub(crate) fn changed_object(message: &str) -> Vec<String> {
    let clause = message
        .split(|c: char| ",;:.!?\n".contains(c))
        .next()
        .unwrap_or("");
    let words: Vec<&str> = clause.split_whitespace().collect();
    let Some(at) = words
        .iter()
        .position(|word| !REQUEST_LEAD_INS.contains(&bare(word)))
    else {
        return Vec::new();
    };
    let verb = bare(words[at]);
    if NEGATIONS.contains(&verb) || !verb.chars().all(|c| c.is_ascii_alphabetic()) {
        return Vec::new();
    }
    let classes = requested_actions(&verb);
    let changing = ["update", "remove", "cancel"]
        .into_iter()
        .any(|class| classes.meets(requested_actions(class)));
    if !changing {
        return Vec::new();
    }
    // "the category of that expense": the thing owning it, too.
    let mut heads = Vec::new();
    let mut rest = &words[at + 1..];
    while let Some((head, end)) = noun_head(rest) {
        heads.push(head);
        match rest.get(end) {
            Some(word) if bare(word) == "of" => rest = &rest[end + 1..],
            _ => break,
        }
    }
    heads
}

/// A word without its punctuation, lowercase.
fn bare(word: &str) -> String {
    word.trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase()
}

/// The head word of the noun phrase `words` open with (see
/// [`changed_object`]) and the index of the word that ends the phrase;
/// `None` when the phrase is a name, a quotation, a number or a pronoun.
fn noun_head(words: &[&str]) -> Option<(String, usize)> {
    // Only a phrase a definite word opens names a kind of thing ("the
    // hold", "that expense"); "scale search down" names a value.
    let definite = words
        .iter()
        .map(|word| bare(word))
        .find(|word| {
            !matches!(
                word.as_str(),
                "up" | "down" | "off" | "out" | "on" | "back" | "all"
            )
        })
        .is_some_and(|word| DEFINITE.contains(&word.as_str()));
    if !definite {
        return None;
    }
    let mut head: Option<String> = None;
    // A word of the phrase was read: a preposition now ends it.
    let mut seen = false;
    let mut quoted = false;
    let mut end = words.len();
    for (offset, word) in words.iter().enumerate() {
        let lower = bare(word);
        let opens_quote = word.starts_with(['\'', '"', '‘', '“']);
        let closes_quote = word.ends_with(['\'', '"', '’', '”']);
        if opens_quote && !closes_quote {
            quoted = true;
            seen = true;
            continue;
        }
        if quoted {
            quoted = !closes_quote;
            continue;
        }
        if offset > 0 && OBJECT_END.contains(&lower.as_str()) || lower.is_empty() {
            if seen {
                end = offset;
                break;
            }
            continue;
        }
        if OBJECT_LEAD.contains(&lower.as_str()) && !seen {
            continue;
        }
        seen = true;
        let plain = lower.chars().all(|c| c.is_ascii_alphabetic())
            && word.chars().next().is_some_and(char::is_lowercase)
            && !opens_quote
            && !PRONOUNS.contains(&lower.as_str());
        if plain {
            // "my phone number": a word that names no topic is read with
            // the one before it that does.
            head = match head {
                Some(named)
                    if TOPIC_FREE_WORDS.contains(&lower) && !TOPIC_FREE_WORDS.contains(&named) =>
                {
                    Some(format!("{named} {lower}"))
                }
                _ => Some(lower),
            };
        } else if PRONOUNS.contains(&lower.as_str()) && head.is_none() {
            return None;
        } else if head.is_some() {
            // A name, code or number after the head names which one ("my
            // booking OBS-5521 pls"): the phrase ends there.
            end = offset;
            break;
        }
    }
    head.map(|head| (head, end))
}

/// Whether `tool` may take what a change acts on as one of its values (a
/// list of items: "remove milk from the list").
pub(crate) fn takes_items(tool: &ToolManifest) -> bool {
    tool.parameters.keys().any(|name| {
        tool.param_type(name) == ParamType::String
            && (tool
                .parameter_types
                .get(name)
                .and_then(|declared| declared.conversion())
                == Some(Kind::List)
                || name.contains("item"))
    })
}

/// The verb a request opens with, lowercase, when the action classes do
/// not list it ("lend", "waive"); `None` otherwise.
pub(crate) fn unlisted_verb(message: &str) -> Option<String> {
    // "i'm 78, please excuse me from jury duty": a clause that states
    // comes before the one that asks.
    let mut clauses = message
        .split(|c: char| ",;:.!?\n".contains(c))
        .filter(|clause| clause.chars().any(char::is_alphanumeric));
    let first = clauses.next().unwrap_or("");
    let clause = match tells(first) {
        true => clauses.next()?,
        false => first,
    };
    let mut words = clause.split_whitespace().map(|word| {
        word.trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase()
    });
    let verb = words.find(|word| !word.is_empty() && !REQUEST_LEAD_INS.contains(word))?;
    // "un-discard" is the verb "undiscard".
    let verb = match verb.strip_prefix("un-") {
        Some(undone) => format!("un{undone}"),
        None => verb,
    };
    let plain = verb.len() >= 3 && verb.chars().all(|c| c.is_ascii_alphabetic());
    let unlisted = requested_actions(&verb).is_empty() && !LIGHT_VERBS.contains(&verb.as_str());
    (plain && unlisted && !NEGATIONS.contains(&verb)).then_some(verb)
}

/// Whether `tool`'s name or description opens with `verb`, inflected or
/// not ("waive" of `waive_fine`, "lend" of "Lends a book").
pub(crate) fn opens_with_verb(tool: &ToolManifest, verb: &str) -> bool {
    opening_words(tool).any(|word| same_verb(&word, verb))
}

/// Verbs too general to name a tool's action ("check my balance", "make
/// a booking"): a request opening with one names no tool by its verb.
const GENERAL_VERBS: [&str; 4] = ["check", "make", "have", "let"];

/// The verb a request opens with, lowercase, when it may name a tool's
/// action: one an action class lists ("stop", "moved") or one it does not
/// ("message"), light and general verbs aside.
pub(crate) fn naming_verb(message: &str) -> Option<String> {
    leading_action_verb(message)
        .or_else(|| unlisted_verb(message))
        .filter(|verb| {
            !LIGHT_VERBS.contains(&verb.as_str()) && !GENERAL_VERBS.contains(&verb.as_str())
        })
}

/// Whether `verb` is one `tool` is named or described by: a word of its
/// name ("refill" of `request_refill`, "invoice" of `create_invoice`) or
/// the verb its description opens with ("queue" of "Queues an assay").
pub(crate) fn names_verb(tool: &ToolManifest, verb: &str) -> bool {
    tool.name
        .split(|c: char| !c.is_ascii_alphabetic())
        .any(|word| same_verb(&word.to_lowercase(), verb))
        || opens_with_verb(tool, verb)
}

/// Whether `tool`'s name or description opens with a verb of an action
/// class `verb` is in ("delete" of `delete_photo` for "trash", "update"
/// for "mark").
pub(crate) fn opens_with_kindred_verb(tool: &ToolManifest, verb: &str) -> bool {
    let asked = verb_actions(verb);
    !asked.is_empty() && opening_words(tool).any(|word| verb_actions(&word).meets(asked))
}

/// The first words of `tool`'s name and description, lowercase.
fn opening_words(tool: &ToolManifest) -> impl Iterator<Item = String> {
    [first_word(&tool.name), first_word(&tool.description)]
        .into_iter()
        .flatten()
}

/// The first word of `text`, lowercase ("stop" of `stop_charging`).
pub(crate) fn first_word(text: &str) -> Option<String> {
    text.split(|c: char| !c.is_ascii_alphabetic())
        .find(|word| !word.is_empty())
        .map(str::to_lowercase)
}

/// Whether `word`, a tool's, is `verb` or an inflection of it ("lends",
/// "schedules", "released").
/// Whether `clause` states or tells what happened ("i'm 78", "OP-0945's
/// licence expired", "gauge RG-12 had 14 mm"): its first word is then no
/// verb of a request. One that opens with a listed verb asks ("log lost
/// earnings of…").
fn tells(clause: &str) -> bool {
    let words: Vec<String> = clause
        .split_whitespace()
        .map(|word| word.to_lowercase())
        .collect();
    message_form(clause) == MessageForm::Statement
        || leading_action_verb(clause).is_none()
            && words.iter().skip(1).take(4).any(|word| is_past_tense(word))
}

/// Verbs a tool's name opens with to ask someone else for what its next
/// words name (`request_excusal`, `apply_for_deferral`).
const PETITIONS: &[&str] = &["request", "apply", "ask", "petition"];

/// Whether `tool`'s name opens with a petition and names `verb`'s action
/// after it, as the verb or its noun (`request_excusal` for "excuse",
/// `request_deferral` for "defer").
pub(crate) fn petitions_for(tool: &ToolManifest, verb: &str) -> bool {
    let name = tool.name.to_lowercase();
    let mut words = name.split(|c: char| !c.is_ascii_alphabetic());
    words.next().is_some_and(|first| PETITIONS.contains(&first))
        && words.any(|word| same_verb(word, verb) || noun_of(word, verb))
}

/// Endings that make a noun of a verb (excus-al, defer-ral, pay-ment).
const NOUN_ENDINGS: &[&str] = &["al", "ment", "ion", "ation", "ance", "ence", "ure"];

/// Whether `word` is the noun of `verb` ("excusal" of "excuse",
/// "deferral" of "defer", "renewal" of "renew").
fn noun_of(word: &str, verb: &str) -> bool {
    let stem = verb.trim_end_matches('e');
    let Some(rest) = word.strip_prefix(stem).filter(|_| stem.len() >= 4) else {
        return false;
    };
    // A doubled last letter: defer, deferral.
    let rest = match (rest.chars().next(), stem.chars().last()) {
        (Some(first), Some(last)) if first == last => &rest[first.len_utf8()..],
        _ => rest,
    };
    NOUN_ENDINGS.contains(&rest)
}

pub(crate) fn same_verb(word: &str, verb: &str) -> bool {
    let base = |word: &str| -> String {
        for suffix in ["ing", "es", "ed", "s"] {
            if let Some(stem) = word.strip_suffix(suffix)
                && stem.len() >= 3
            {
                return stem.trim_end_matches('e').to_owned();
            }
        }
        word.trim_end_matches('e').to_owned()
    };
    word == verb || base(word) == verb.trim_end_matches('e')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, description: &str) -> ToolManifest {
        ToolManifest {
            name: name.into(),
            description: description.into(),
            ..ToolManifest::default()
        }
    }

    #[test]
    fn advice_explanation_and_opinion_are_told_by_the_frame() {
        for asks in [
            "Why do listeners drop off around minute 20?",
            "Should I put my savings into an index fund?",
            "What's a good title for my book club's newsletter?",
            "Is it safe for dogs to eat grapes?",
            "Is Piranesi better than Jonathan Strange & Mr Norrell?",
            "Explain the difference between a budget and a forecast",
            "Which microphone should I buy for remote guests under $200?",
            "how many kg is too much for a tabby?",
            "Who is the best movie director of all time?",
            "Can you explain what a black hole is?",
            "打印机为什么总是卡纸？",
            "電気代を節約するコツを教えて",
            "パンの焼き方を教えて",
            "周末去哪里玩，有什么推荐？",
            "How often should a piano be tuned?",
            "How do councils decide which potholes get fixed first?",
            "How does a heat pump work?",
            "what's the difference between a mutex and a semaphore",
        ] {
            assert!(asks_advice(asks), "{asks}");
        }
        for not in [
            "How many calories should I eat a day? I'm 34, 62 kg",
            "Search for the best hiking trails near Denver",
            "Can you find some good Italian restaurants in Boston?",
            "What's the weather in Paris?",
            "Is Piranesi on the shelf right now?",
            "Is 24 eggs for 6.48 a good deal? price per egg",
            "return: The Hobbit, condition good",
            "刘洋的邮箱写错了，应该是 liuyang88@qq.com",
            "東京の天気を教えて",
            "北京天气如何？",
            "How does the weather look in Oslo tomorrow?",
            "How do I book the laser cutter?",
            "How much should I tip on 84 dollars?",
        ] {
            assert!(!asks_advice(not), "{not}");
        }
    }

    #[test]
    fn a_tool_that_answers_or_recommends_advises() {
        assert!(advises(&tool("web_search", "Search the web.")));
        assert!(advises(&tool("suggest_gift", "Suggests gift ideas.")));
        assert!(!advises(&tool(
            "get_balance",
            "Returns an account's balance."
        )));
    }

    #[test]
    fn the_object_of_a_change_is_its_head_word() {
        let object = |message: &str| changed_object(message).join(" ");
        assert_eq!(object("Cancel the hold on Piranesi for card 31009"), "hold");
        assert_eq!(
            object("Remove the 'Listener questions' chapter from episode 54"),
            "chapter"
        );
        assert_eq!(object("Turn the heating up in the office"), "heating");
        assert_eq!(object("turn off all the lights"), "lights");
        assert_eq!(object("please close the ticket PROJ-231"), "ticket");
        assert_eq!(
            object("drop my reservation R-88 pls, plans changed"),
            "reservation",
            "a code ends the phrase"
        );
        assert_eq!(
            object("cancel booking ref K7PX2Q please"),
            "",
            "no kind named"
        );
        assert_eq!(object("scale search down to 1 replica"), "", "a value");
        assert_eq!(
            object("Change the category of that 18 euro expense to dining"),
            "category expense"
        );
        assert_eq!(object("Delete Mark from my contacts"), "", "a name");
        assert_eq!(object("Lower it by 2 degrees"), "", "a pronoun");
        assert_eq!(object("Add milk to the list"), "", "a creation");
        assert_eq!(object("What's the hold on Piranesi?"), "");
        assert_eq!(
            object("update my phone number on LR-77001"),
            "phone number",
            "a word that names no topic keeps the one before it"
        );
    }

    #[test]
    fn a_verb_the_classes_do_not_list_is_a_tools_when_it_names_it() {
        assert_eq!(
            unlisted_verb("Lend 'A Little Life' to member 55810.").as_deref(),
            Some("lend")
        );
        assert_eq!(unlisted_verb("Delete Mark"), None, "a listed verb");
        let lend = tool("check_out_book", "Lends a book to a member.");
        assert!(opens_with_verb(&lend, "lend"));
        assert!(opens_with_verb(
            &tool("waive_fine", "Cancels a fine."),
            "waive"
        ));
        assert!(!opens_with_verb(
            &tool("get_last_feeding", "Returns when a pet was last fed."),
            "fed"
        ));
    }

    #[test]
    fn a_petition_names_the_verb_it_asks_for() {
        let excusal = tool("request_excusal", "Asks the court to excuse a juror.");
        assert!(petitions_for(&excusal, "excuse"));
        let deferral = tool(
            "request_deferral",
            "Moves a juror's service to a later date.",
        );
        assert!(petitions_for(&deferral, "defer"));
        assert!(!petitions_for(&deferral, "excuse"));
        let renew = tool("renew_domain", "Renews a domain.");
        assert!(!petitions_for(&renew, "renew"), "no petition");
        assert_eq!(
            unlisted_verb("i'm 78, please excuse me from jury duty").as_deref(),
            Some("excuse")
        );
        assert_eq!(
            unlisted_verb("gauge RG-12 had 14 mm overnight"),
            None,
            "a statement's subject"
        );
        assert_eq!(
            unlisted_verb("Please log lost earnings of $240, summons 661034987"),
            None,
            "a listed verb asks in the first clause"
        );
    }

    #[test]
    fn a_verb_of_the_same_class_is_kindred() {
        let delete = tool("delete_photo", "Deletes a photo or video.");
        assert!(opens_with_kindred_verb(&delete, "trash"));
        assert!(!opens_with_verb(&delete, "trash"));
        let update = tool("update_task_status", "Changes a task's status.");
        assert!(opens_with_kindred_verb(&update, "mark"));
        assert!(!opens_with_kindred_verb(&update, "trash"));
        assert!(
            !opens_with_kindred_verb(&delete, "lend"),
            "an unlisted verb"
        );
    }
}
