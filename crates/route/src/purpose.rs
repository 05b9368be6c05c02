//! Whether a tool's purpose covers what a message asks: the message and the
//! tool's texts (name, description, parameters and their descriptions,
//! examples) must name a subject in common.
//!
//! A subject is an English word that is not topic-free
//! (`data/topic_free_words.txt`: question words, auxiliaries, pronouns,
//! "tell", "show", "thing"…), compared by its stem ("translations" meets
//! "translate", "converter" meets "conversion"), or a concept of the
//! [`glossary`] either side mentions (天気 meets "weather", "kg" meets
//! "convert units"; an action concept, キャンセル, names no subject), or a
//! Chinese or Japanese word of the [`lexicon`] where the glossary knows
//! none (搬家 meets "move", 順位表 "ranking"), or, between CJK texts, two
//! CJK characters in a row that hold no particle. The model scores every
//! tool for almost any sentence; a tool that shares no subject with the
//! message ("How many servings of vegetables should I eat a day?" and a
//! word counter) is about something else, however well its name scored.

use std::collections::HashSet;

use riverse_tool::ToolManifest;

use crate::actions::{is_action_verb, is_changing_verb};
use crate::addresses::writes_street_address;
use crate::faults::trouble_subjects;
use crate::form::without_quotations;
use crate::glossary;
use crate::lexicon;
use crate::meaning::split_identifier;
use crate::scales::{measured_words, writes_measure};
use crate::script::{is_cjk, mostly_cjk};
use crate::words::{REQUEST_LEAD_INS, TIME_WORDS, TOPIC_FREE_WORDS, is_particle};

/// The subjects a tool's texts name, ready to be compared with messages.
#[derive(Debug, Clone, Default)]
pub struct Purpose {
    /// Stems of the English words that name a subject.
    stems: HashSet<String>,
    /// Stems of the words of the tool's name (`search_logs`: search, log).
    name_stems: HashSet<String>,
    /// Pairs of adjacent CJK characters without a particle.
    cjk_pairs: HashSet<(char, char)>,
}

impl Purpose {
    pub fn of(tool: &ToolManifest) -> Self {
        let mut texts = vec![tool.description.clone(), split_identifier(&tool.name)];
        for (name, description) in &tool.parameters {
            texts.push(split_identifier(name));
            texts.push(without_value_examples(description).to_owned());
        }
        texts.extend(tool.examples.iter().cloned());
        let mut purpose = Purpose {
            name_stems: name_subject_stems(&tool.name),
            ..Purpose::default()
        };
        for text in &texts {
            purpose.stems.extend(manifest_subject_stems(text));
            purpose.cjk_pairs.extend(cjk_pairs(text));
        }
        purpose
    }

    /// Whether `message` names a word of the tool's name, or a concept of
    /// the glossary one names ("logs" of `search_logs`, "dollars" and ドル
    /// of `convert_currency`): the name is a tool's most specific text.
    ///
    /// A verb of the action classes ("remind", "check") is left to them: it
    /// says what is done, not what about. Only the glossary's own words of
    /// a concept count, not its related concepts' (度 names temperatures,
    /// not the weather). A report of something broken names a tool named
    /// for repairs, maintenance or problems, a report of a loss one named
    /// for losses (see [`trouble_subjects`]).
    pub fn named_by(&self, message: &str) -> bool {
        let lower = message.to_lowercase();
        let kept: Vec<&str> = lower
            .split_whitespace()
            .filter(|word| !is_action_verb(word.trim_matches(|c: char| !c.is_alphanumeric())))
            .collect();
        let kept = kept.join(" ");
        let glosses = cjk_subjects(&kept);
        // A report of something broken names the tool for its repair.
        let trouble_subjects = trouble_subjects(message);
        kept.split(|c: char| !c.is_ascii_alphanumeric())
            .chain(glosses.split_whitespace())
            .chain(trouble_subjects.iter().copied())
            .filter(|word| word.len() >= 2 && !TOPIC_FREE_WORDS.contains(word))
            .map(stem)
            .any(|stem| self.name_stems.iter().any(|own| same_stem(&stem, own)))
    }

    /// Whether `message` names a subject the tool's texts name. A measure
    /// ("3 kg", "3.5 hrs") names units and its own unit and kind, a street
    /// address an address, a report of something broken repairs and one of
    /// something lost losses.
    pub fn covers(&self, message: &str) -> bool {
        self.covers_text(message, true)
    }

    /// Whether a noun phrase taken from a message ("my shift" of "cancel
    /// my shift on Tuesday", "level") names a subject the tool's texts
    /// name: as [`Purpose::covers`], but its first word is a noun even
    /// where a verb is spelt the same (shift, book, order).
    pub fn covers_phrase(&self, phrase: &str) -> bool {
        self.covers_text(phrase, false)
    }

    fn covers_text(&self, message: &str, opens_with_verb: bool) -> bool {
        // What a Chinese or Japanese request quotes is a value (a title, a
        // name: 「千と千尋の神隠し」, 《Saga》), whatever its words mean.
        let unquoted;
        let message = match mostly_cjk(message) {
            true => {
                unquoted = without_quotations(message);
                unquoted.as_str()
            }
            false => message,
        };
        let mut stems = match opens_with_verb {
            true => subject_stems(&without_leading_verbs(message)),
            false => subject_stems(message),
        };
        // The glossary's concepts are read in the whole message: a verb
        // that is a concept's term ("schedule") names its subject.
        stems.extend(subject_stems(&glossary::subject_glosses(
            &message.to_lowercase(),
        )));
        if writes_measure(message) {
            stems.insert(stem("units"));
            stems.extend(measured_words(message).into_iter().map(stem));
        }
        // "The heating won't turn on" is about repairs, whatever it names;
        // "I lost my passport", about losses.
        stems.extend(trouble_subjects(message).into_iter().map(stem));
        // "400 Lakeview Ave" is a place, written as its address.
        if writes_street_address(message) {
            stems.extend(["address", "place", "location"].map(stem));
        }
        let shared_stem = stems
            .iter()
            .any(|stem| self.stems.iter().any(|own| same_stem(stem, own)));
        let shared_pair = || {
            cjk_pairs(message)
                .iter()
                .any(|pair| self.cjk_pairs.contains(pair))
        };
        // A CJK message that names no concept of the glossary and no word
        // of the lexicon cannot be compared with a tool written in English
        // only (its Latin words are mostly values: codes, names): left to
        // the scores. (Asked last: reading it again is the dearest test.)
        let incomparable = || {
            mostly_cjk(message)
                && self.cjk_pairs.is_empty()
                && cjk_subjects(&message.to_lowercase()).is_empty()
        };
        shared_stem || shared_pair() || incomparable()
    }
}

/// The verb of a request that names nothing but values beside it: past
/// its lead-in ("please", "can you") and its first word, only names
/// (capitalised), codes, numbers, times and topic-free words ("switch me to
/// Kenya Kiambu", "Message Hannah Okafor: running late"; what follows a
/// colon or stands in quotes is a value too). Such a request names no
/// subject a tool could fail to cover: it is about whatever its verb acts
/// on. English only; `None` for any other request.
pub fn values_only_verb(message: &str) -> Option<String> {
    if mostly_cjk(message) {
        return None;
    }
    // The first sentence, up to a colon: what follows is the message's
    // text, a note, a reason.
    let head = message
        .split([':', '!', '?', '\n'])
        .next()
        .unwrap_or_default();
    let head = head.split(". ").next().unwrap_or_default();
    let head = without_quotations(head);
    let mut words = head
        .split_whitespace()
        .map(|word| word.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|word| !word.is_empty())
        .skip_while(|word| REQUEST_LEAD_INS.contains(&word.to_lowercase()));
    let verb = words.next()?.to_lowercase();
    if !verb.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    (values_in(words)? > 0).then_some(verb)
}

/// Whether `message` names nothing but values beside topic-free words
/// ("where is S-004518?", "who is EA7QRS"): a question about a thing
/// known by its name or code alone. English only.
pub fn names_values_only(message: &str) -> bool {
    if mostly_cjk(message) {
        return false;
    }
    let text = without_quotations(message);
    let words = text
        .split_whitespace()
        .map(|word| word.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|word| !word.is_empty());
    values_in(words).is_some_and(|values| values > 0)
}

/// How many of `words` are values (names, codes, numbers), when the rest
/// are topic-free or time words; `None` when one names a subject.
fn values_in<'a>(words: impl Iterator<Item = &'a str>) -> Option<usize> {
    let mut values = 0;
    for word in words {
        let lower = word.to_lowercase();
        if TOPIC_FREE_WORDS.contains(&lower) || TIME_WORDS.contains(&lower) {
            continue;
        }
        let value = word.chars().next().is_some_and(char::is_uppercase)
            || word.chars().any(|c| c.is_ascii_digit());
        if !value {
            return None;
        }
        values += 1;
    }
    Some(values)
}

/// The stems of the words of a tool's name that name a subject: not the
/// verb of the action classes it opens with (`book_appointment` is about
/// appointments: "booking", or 预约 read as "reservation booking", names
/// `cancel_booking` but not every tool that books).
fn name_subject_stems(name: &str) -> HashSet<String> {
    let words = split_identifier(name).to_lowercase();
    words
        .split_whitespace()
        .enumerate()
        .filter(|(at, word)| *at > 0 || !is_action_verb(word))
        .map(|(_, word)| word)
        .filter(|word| word.len() >= 2 && !TOPIC_FREE_WORDS.contains(word))
        .map(stem)
        .collect()
}

/// A parameter's description without the values it gives as examples
/// ("Room name, e.g. kitchen, office" is about rooms, not offices).
fn without_value_examples(description: &str) -> &str {
    let lower = description.to_lowercase();
    ["e.g.", "such as", "for example"]
        .iter()
        .filter_map(|marker| lower.find(marker))
        .min()
        .map_or(description, |at| &description[..at])
}

/// `message` without the changing verb each clause opens with ("Book me a
/// seat on BA117" is not about hotels because a hotel tool books): what a
/// request changes is for the action classes to judge (see
/// [`crate::requested_actions`]); its subject is what remains. A verb that
/// reads ("search", "find") stays: a search tool's purpose is the search.
fn without_leading_verbs(message: &str) -> String {
    let mut kept = String::with_capacity(message.len());
    let mut clause_start = true;
    for word in message.split_inclusive(char::is_whitespace) {
        let bare = word
            .trim()
            .trim_matches(|c: char| c.is_ascii_punctuation())
            .to_lowercase();
        let verb = clause_start && is_changing_verb(&bare);
        if !verb {
            kept.push_str(word);
        }
        if !bare.is_empty() && !TOPIC_FREE_WORDS.contains(&bare) || verb {
            clause_start = false;
        }
        if word.trim_end().ends_with([',', ';', '.', '?', '!']) || bare == "and" || bare == "then" {
            clause_start = true;
        }
    }
    kept
}

/// The stems of the subject words of a message, of the glossary concepts
/// it mentions and of its lexicon terms.
fn subject_stems(text: &str) -> HashSet<String> {
    let lower = text.to_lowercase();
    stems_beside(&lower, &cjk_subjects(&lower))
}

/// The stems of the subject words of a tool's text and of the glossary
/// concepts it mentions. Not of its lexicon terms: a manifest's Chinese or
/// Japanese examples ("今日の東京の天気") meet Chinese and Japanese
/// requests as they are written, and read through a dictionary they would
/// name whatever their incidental words mean ("today", "day") for every
/// request in English.
fn manifest_subject_stems(text: &str) -> HashSet<String> {
    let lower = text.to_lowercase();
    stems_beside(&lower, &glossary::subject_glosses(&lower))
}

/// The stems of the subject words of `lower` and of `glosses`, the English
/// words it was read as.
fn stems_beside(lower: &str, glosses: &str) -> HashSet<String> {
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '\'')
        .chain(glosses.split_whitespace())
        .map(|word| word.trim_matches('\'').trim_end_matches("'s"))
        .filter(|word| {
            word.len() >= 2
                && word.chars().any(|c| c.is_ascii_alphabetic())
                && !TOPIC_FREE_WORDS.contains(word)
        })
        .collect();
    // A word of a glossary concept names the concept's other words too
    // ("sunny" names weather).
    let related: Vec<&str> = words
        .iter()
        .flat_map(|word| glossary::related_words(word))
        .filter(|word| !TOPIC_FREE_WORDS.contains(word))
        .collect();
    words.into_iter().chain(related).map(stem).collect()
}

/// The English words of the subjects `lower` names in other scripts and
/// as synonyms: its glossary concepts' and, beside them, its lexicon
/// terms'.
fn cjk_subjects(lower: &str) -> String {
    let glosses = glossary::subject_glosses(lower);
    let lexicon_words = lexicon::unglossed_english_words(lower);
    format!("{glosses} {lexicon_words}").trim().to_owned()
}

/// A word without the commonest English inflections and derivations.
fn stem(word: &str) -> String {
    const SUFFIXES: [&str; 14] = [
        "ations", "ation", "ions", "ion", "ings", "ing", "ers", "er", "ies", "ed", "es", "ly", "s",
        "e",
    ];
    for suffix in SUFFIXES {
        if let Some(base) = word.strip_suffix(suffix)
            && base.len() >= 3
        {
            return base.to_owned();
        }
    }
    word.to_owned()
}

/// Two stems of one word: equal, one the other and a letter ("calor" of
/// "calories" and "calori" of "calorie"), a noun's in "-ation" and its
/// verb's in "-ate" ("don" of "donation" and "donat" of "donate"), or,
/// both long, alike but for their ends ("convers" and "convert").
fn same_stem(a: &str, b: &str) -> bool {
    if a == b || noun_of_verb_in_ate(a, b) || noun_of_verb_in_ate(b, a) {
        return true;
    }
    let shorter = a.len().min(b.len());
    let longer = a.len().max(b.len());
    let common = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    (common == shorter && shorter >= 4 && longer == shorter + 1)
        || (shorter >= 6 && common >= 5 && common + 1 >= shorter)
        || (shorter >= 7 && one_slip_apart(a, b))
        || abbreviates(a, b)
        || abbreviates(b, a)
}

/// Whether `noun` is the stem [`stem`] leaves of a noun in "-ation" whose
/// verb ends in "-ate" and stems to `verb`: "don" of "donation" beside
/// "donat" of "donate", "cre" of "creation" beside "creat".
fn noun_of_verb_in_ate(noun: &str, verb: &str) -> bool {
    noun.len() >= 3 && verb.strip_prefix(noun) == Some("at")
}

/// Whether `short` is a contraction of `word` that no dictionary knows:
/// it opens with the word's first two letters and keeps some of the rest
/// in order, skipping at least one ("appt" of appointment, "acct" of
/// account, "mgmt" of management), and is no English word itself ("part"
/// is no contraction of parent). A plain prefix is left out: "car" is no
/// carpet.
fn abbreviates(short: &str, word: &str) -> bool {
    let plausible = short.len() >= 3
        && short.len() + 2 <= word.len()
        && short.bytes().all(|c| c.is_ascii_lowercase())
        && short.as_bytes()[..2] == word.as_bytes()[..2]
        && !word.starts_with(short);
    if !plausible {
        return false;
    }
    let mut rest = word.bytes();
    let in_order = short.bytes().all(|c| rest.any(|w| w == c));
    in_order && !lexicon::is_english_word(short)
}

/// Whether two long words differ by one slip of the typist: a letter left
/// out or doubled ("presciption"), or two letters swapped ("reciept").
/// Not a letter for another: "contract" is no "contrast".
fn one_slip_apart(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let (short, long) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    let head = short
        .iter()
        .zip(long.iter())
        .take_while(|(x, y)| x == y)
        .count();
    match long.len() - short.len() {
        1 => short[head..] == long[head + 1..],
        0 => {
            head + 2 <= short.len()
                && short[head] == long[head + 1]
                && short[head + 1] == long[head]
                && short[head + 2..] == long[head + 2..]
        }
        _ => false,
    }
}

/// Adjacent CJK characters of `text`, neither a particle.
fn cjk_pairs(text: &str) -> HashSet<(char, char)> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .windows(2)
        .filter(|pair| pair.iter().all(|&c| is_cjk(c) && !is_particle(c)))
        .map(|pair| (pair[0], pair[1]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_tools::tool;

    #[test]
    fn a_message_on_another_subject_is_not_covered() {
        let words = tool(
            "word_count",
            "Count the words of a text.",
            &[("text", "The text"), ("language", "Language of the text")],
        );
        let purpose = Purpose::of(&words);
        assert!(!purpose.covers("How many servings of vegetables should I consume in a day?"));
        assert!(purpose.covers("How many words are in this paragraph?"));
    }

    #[test]
    fn a_phrase_taken_from_a_message_opens_with_a_noun() {
        let shifts = tool(
            "cancel_shift",
            "Cancels a volunteer's care shift on a given date.",
            &[("volunteer_id", "The volunteer's id")],
        );
        let purpose = Purpose::of(&shifts);
        assert!(purpose.covers_phrase("my shift"));
        assert!(purpose.covers_phrase("shift"));
        // In a message, a verb that opens a clause says what is done.
        assert!(!purpose.covers("shift the meeting"));
        assert!(!purpose.covers_phrase("my booking"));
    }

    #[test]
    fn inflections_and_derivations_meet() {
        let converter = tool("convert_units", "Converts a value between units.", &[]);
        let purpose = Purpose::of(&converter);
        assert!(purpose.covers("Can you do a unit conversion for me?"));
        assert!(
            purpose.covers("How many pounds is 3 kg?"),
            "through the glossary"
        );
        let translator = tool("translate", "Translate a text.", &[]);
        assert!(Purpose::of(&translator).covers("I need translations of this"));
        let counter = tool("count_words", "Count words.", &[]);
        assert!(!Purpose::of(&counter).covers("Which country is largest?"));
    }

    #[test]
    fn japanese_and_chinese_meet_english_through_the_glossary_and_lexicon() {
        let weather = tool(
            "weather",
            "Current weather for a city.",
            &[("city", "City")],
        );
        let purpose = Purpose::of(&weather);
        assert!(purpose.covers("東京の天気は？"));
        assert!(purpose.covers("北京天气怎么样"));
        assert!(
            !purpose.covers("晩ご飯は何にしよう"),
            "dinner, read through the lexicon, is no weather"
        );
        assert!(
            purpose.covers("えっ、ほんとに？"),
            "nothing to compare: left to the scores"
        );
        let mut japanese = weather.clone();
        japanese.examples = vec!["大阪の天気".into()];
        assert!(!Purpose::of(&japanese).covers("晩ご飯は何にしよう"));
    }

    #[test]
    fn a_manifests_own_chinese_or_japanese_is_not_read_through_the_lexicon() {
        let mut weather = tool(
            "weather",
            "Current weather for a city.",
            &[("city", "City")],
        );
        weather.examples = vec!["今日の東京の天気は？".into()];
        let purpose = Purpose::of(&weather);
        assert!(
            !purpose.covers("How many servings of vegetables should I eat in a day?"),
            "今日 is \"today\" in the lexicon, but names no subject of the tool"
        );
        assert!(purpose.covers("明日の大阪の天気"));
    }

    #[test]
    fn a_japanese_or_chinese_action_term_is_no_shared_subject() {
        let hotel = tool(
            "cancel_hotel",
            "Cancel a hotel reservation.",
            &[("reservation_id", "Reservation number")],
        );
        let orders = tool(
            "cancel_order",
            "Cancel an order that has not shipped.",
            &[("order_id", "Order number")],
        );
        assert!(!Purpose::of(&hotel).covers("注文をキャンセルしたい"));
        assert!(Purpose::of(&orders).covers("注文をキャンセルしたい"));
        assert!(!Purpose::of(&hotel).covers("取消我的订单"));
        assert!(Purpose::of(&hotel).covers("取消酒店预订"));
        assert!(
            !Purpose::of(&hotel).named_by("注文をキャンセルしたい"),
            "the name's verb is the action classes' to judge"
        );
    }

    #[test]
    fn a_shared_verb_or_a_value_example_is_no_shared_subject() {
        let hotel = tool(
            "book_hotel",
            "Book a hotel room in a city.",
            &[("city", "City name")],
        );
        assert!(!Purpose::of(&hotel).covers("Book me a seat on BA117 on May 14"));
        assert!(Purpose::of(&hotel).covers("Book a room in Lisbon"));
        let lights = tool(
            "set_lights",
            "Switch or dim the lights.",
            &[("room", "Room name, e.g. kitchen, office")],
        );
        assert!(!Purpose::of(&lights).covers("Turn the heating up in the office"));
        assert!(Purpose::of(&lights).covers("Dim the office lights"));
    }

    #[test]
    fn what_a_cjk_request_quotes_names_no_subject() {
        let watchlist = tool(
            "add_to_watchlist",
            "Adds a film to the user's watchlist.",
            &[("title", "title of the film")],
        );
        assert!(Purpose::of(&watchlist).covers("「千と千尋の神隠し」をウォッチリストに追加して"));
        let weather = tool(
            "get_weather",
            "Current weather for a city.",
            &[("city", "City name")],
        );
        assert!(!Purpose::of(&weather).covers("「雨」という歌を再生して"));
        assert!(Purpose::of(&weather).covers("明日の東京の雨は？"));
    }

    #[test]
    fn a_word_of_the_tools_name_names_it() {
        let logs = tool("search_logs", "Search a service's logs.", &[]);
        assert!(Purpose::of(&logs).named_by("grep the gateway logs for errors"));
        assert!(same_stem(&stem("presciption"), &stem("prescription")));
        assert!(same_stem(&stem("reciepts"), &stem("receipts")));
        assert!(!same_stem(&stem("contract"), &stem("contrast")));
        assert!(same_stem("appt", &stem("appointment")));
        assert!(same_stem(&stem("acct"), &stem("account")));
        assert!(!same_stem("part", &stem("parent")), "a word of its own");
        assert!(!same_stem("car", &stem("carpet")), "a prefix");
        assert!(same_stem(&stem("donation"), &stem("donate")));
        assert!(same_stem(&stem("locate"), &stem("locations")));
        let verb = |message: &str| values_only_verb(message);
        assert_eq!(verb("switch me to Kenya Kiambu").as_deref(), Some("switch"));
        assert_eq!(
            verb("Message Hannah Okafor: running 20 min late, sorry!").as_deref(),
            Some("message")
        );
        assert_eq!(
            verb("please cancel LK-3310 tomorrow").as_deref(),
            Some("cancel")
        );
        assert_eq!(
            verb("switch me to the decaf blend"),
            None,
            "names a subject"
        );
        assert_eq!(verb("Add her aunt Rosa Lopez to the pickup list"), None);
        assert_eq!(verb("switch it"), None, "names no value");
        assert_eq!(verb("ジョンに連絡して"), None);
        assert!(names_values_only("where is S-004518?"));
        assert!(names_values_only("who is EA7QRS"));
        assert!(
            !names_values_only("who owns S-004518?"),
            "names what is asked"
        );
        assert!(!names_values_only("where is it?"), "names no value");
        assert!(!Purpose::of(&logs).named_by("What time is it?"));
        let reminder = tool("set_reminder", "Remind the user later.", &[]);
        assert!(
            !Purpose::of(&reminder).named_by("a polite way to remind a colleague"),
            "a verb of the action classes is theirs to judge"
        );
        assert!(Purpose::of(&reminder).named_by("cancel the laundry reminder"));
        let currency = tool("convert_currency", "Convert money.", &[]);
        assert!(Purpose::of(&currency).named_by("100ドルって何円？"));
        let weather = tool("weather", "Current weather.", &[]);
        assert!(
            !Purpose::of(&weather).named_by("華氏100度は摂氏何度？"),
            "the name's own words, not its concept's neighbours"
        );
        let calories = tool("calorie_needs", "Estimate daily needs.", &[]);
        assert!(Purpose::of(&calories).covers("How many calories should I eat?"));
    }

    #[test]
    fn the_verb_a_name_opens_with_does_not_name_it() {
        let book = tool("book_appointment", "Books a dental appointment.", &[]);
        let cancel = tool("cancel_booking", "Cancels a booking.", &[]);
        assert!(!Purpose::of(&book).named_by("帮我取消预约号B-207"));
        assert!(!Purpose::of(&book).named_by("what's my booking reference?"));
        assert!(Purpose::of(&book).named_by("my next appointment"));
        assert!(Purpose::of(&cancel).named_by("帮我取消预约号B-207"));
    }

    #[test]
    fn identifiers_are_read_as_words() {
        assert_eq!(split_identifier("getStockPrice"), "get Stock Price");
        assert_eq!(split_identifier("add_to_list"), "add to list");
    }
}
