//! Whether a value copied from a message answers what its parameter means,
//! and which parameters a call cannot go without.
//!
//! - A value that names a time and nothing else ("tomorrow", "over the past
//!   year", 明天; `data/time_words.txt`) answers only a parameter about time
//!   (a date, a start, a period: `data/time_params.txt`). "Check me in for
//!   my flight tomorrow" gives a visa check no destination.
//! - A value made only of words that name the tool's slots (its parameters'
//!   names) or what it is and gives (the head of its description, up to the
//!   first preposition: "Calories and macronutrients" of "Calories and
//!   macronutrients of a food") is no value: "the release-2.4 branch" gives
//!   `branch` "release-2.4", not "branch", and "How many calories did I
//!   burn?" gives a nutrition tool no food.
//! - A number followed by a word of one parameter's name ("4 nights, 2
//!   guests", "12 replicas") is that parameter's value, and no other's.
//! - A call is not made without its required parameters: those its schema
//!   lists as `required`, or, for a tool that reads or computes and has no
//!   schema, its first declared parameter, the thing it reads or computes
//!   from (authors declare parameters in the order people say them, the
//!   object first: a currency converter's amount, a visa check's
//!   nationality), unless that parameter is a flag, a list, a choice of
//!   options or says it has a default. "How has the euro to dollar rate
//!   moved?" gives a converter no amount, so it is not called. A tool that
//!   changes things is exempt: its parameters are often alternative
//!   settings (a thermostat's target or its change). A manifest that calls
//!   some of its parameters optional ("optional; …") says the others are
//!   required, flags aside: a call without one of those is not made, and
//!   no other tool is weighed in its place ([`works_on`]: the tool was the
//!   one asked for, the message gave too little).

use std::collections::HashSet;

use riverse_tool::{Kind, ParamType, Params, ToolManifest};

use crate::actions::offered_actions;
use crate::identifiers::{
    IdentifierKind, asks_for_name, identifier_kind, identifier_shaped, is_record_code,
};
use crate::options::param_options;
use crate::script::is_cjk;
use crate::words::{FUNCTION_WORDS, PREPOSITIONS, TIME_PARAMS, TIME_WORDS};

/// Words a description's head stops before: what follows says what the
/// tool works on, not what it is.
const HEAD_ENDS: [&str; 4] = ["that", "which", "who", "whose"];

/// Words that go with a time without naming anything else ("over the past
/// year", "this morning", "every day").
const TIME_COMPANIONS: [&str; 22] = [
    "this",
    "that",
    "these",
    "over",
    "during",
    "within",
    "throughout",
    "every",
    "each",
    "until",
    "till",
    "since",
    "from",
    "by",
    "at",
    "on",
    "in",
    "around",
    "all",
    "whole",
    "entire",
    "of",
];

/// Auxiliaries that open a question's inverted clause ("should I eat",
/// "did I burn"): with a pronoun after them, the asking, not a value.
const AUXILIARIES: [&str; 18] = [
    "do", "does", "did", "is", "are", "was", "were", "will", "would", "should", "can", "could",
    "may", "might", "must", "have", "has", "had",
];

/// Personal pronouns after an auxiliary in a question.
const PRONOUNS: [&str; 7] = ["i", "you", "he", "she", "we", "they", "it"];

/// Words of a parameter's description that say it may be left out.
const OPTIONAL_MARKERS: [&str; 6] = [
    "default",
    "optional",
    "if omitted",
    "if not given",
    "if not set",
    "if empty",
];

/// Whether a parameter's description says it may be left out ("optional;
/// …", "defaults to 10").
pub fn described_optional(description: &str) -> bool {
    let lower = description.to_lowercase();
    OPTIONAL_MARKERS.iter().any(|marker| lower.contains(marker))
}

/// Whether `text` names a time and nothing else: every word a time word, a
/// number or a function word, and one at least a time word. A record's
/// code is none ("PM-2207" is no afternoon).
pub fn names_time_only(text: &str) -> bool {
    if is_record_code(text) {
        return false;
    }
    let lower = text.to_lowercase();
    if lower.chars().any(is_cjk) {
        return cjk_time_only(&lower);
    }
    let mut timed = false;
    for word in english_words(&lower) {
        if TIME_WORDS.contains(word) {
            timed = true;
        } else if !(is_number(word) || is_filler(word) || TIME_COMPANIONS.contains(&word)) {
            return false;
        }
    }
    timed
}

/// A CJK value is a time when its time terms, digits and date characters
/// leave nothing.
fn cjk_time_only(lower: &str) -> bool {
    let mut rest = lower.to_owned();
    let mut timed = false;
    for term in TIME_WORDS
        .entries()
        .iter()
        .filter(|t| t.chars().any(is_cjk))
    {
        if rest.contains(term) {
            timed = true;
            rest = rest.replace(term, "");
        }
    }
    let date_char = |c: char| {
        c.is_ascii_digit()
            || c.is_whitespace()
            || "〇一二三四五六七八九十百年月日号號点點時分半周週的の".contains(c)
    };
    if rest.chars().all(date_char) && rest.chars().any(|c| "年月日号號時点".contains(c)) {
        timed = true;
    }
    timed && rest.chars().all(date_char)
}

/// Whether Chinese or Japanese `text` holds a time beside other words
/// (苗床过去 "the seedling bench in the past", 李明明天 "Li Ming tomorrow",
/// 12月8号早上7点半的车): a span run past its value into the time the
/// message gives, no value of a parameter about something else. A number
/// before 号 alone is a house's (世纪大道100号), not a day.
pub fn holds_cjk_time(text: &str) -> bool {
    if !text.chars().any(is_cjk) || cjk_time_only(text) {
        return false;
    }
    let term = TIME_WORDS
        .entries()
        .iter()
        .any(|term| term.chars().any(is_cjk) && text.contains(term));
    let chars: Vec<char> = text.chars().collect();
    let dated = chars
        .windows(2)
        .any(|pair| pair[0].is_ascii_digit() && "月日時点點".contains(pair[1]));
    term || dated
}

/// Whether parameter `name`, described by `description`, is about time.
pub fn wants_time(name: &str, description: &str) -> bool {
    let text = format!("{} {}", split_identifier(name), description).to_lowercase();
    let words = english_words(&text);
    TIME_PARAMS.entries().iter().any(|entry| {
        if entry.chars().any(is_cjk) || entry.contains(':') {
            return text.contains(entry);
        }
        words.iter().any(|word| {
            let singular = word.strip_suffix('s').unwrap_or(word);
            *word == *entry || singular == *entry || entry.len() >= 4 && word.starts_with(entry)
        })
    })
}

/// The words that name a tool's slots and what it is: no value is made of
/// these only.
#[derive(Debug, Clone, Default)]
pub struct SlotWords {
    words: HashSet<String>,
    /// Per parameter, in declaration order, the words of its name.
    params: Vec<(String, Vec<String>)>,
}

impl SlotWords {
    pub fn of(tool: &ToolManifest) -> Self {
        let mut params: Vec<(String, Vec<String>)> = tool
            .parameters
            .keys()
            .map(|name| {
                let words = english_words(&split_identifier(name).to_lowercase())
                    .into_iter()
                    .filter(|word| word.len() >= 3 && !is_filler(word))
                    .map(singular)
                    .collect();
                (name.clone(), words)
            })
            .collect();
        let mut words: HashSet<String> = params
            .iter()
            .flat_map(|(_, words)| words.iter().cloned())
            .collect();
        words.extend(description_head(&tool.description));
        // "6 people" names `attendees`, "number of people attending".
        for (name, param_words) in &mut params {
            let counts = matches!(tool.param_type(name), ParamType::Int | ParamType::Float);
            let description = tool
                .parameters
                .get(name.as_str())
                .map_or("", String::as_str);
            if let Some(noun) = counted_noun(description).filter(|_| counts) {
                param_words.push(noun);
            }
        }
        SlotWords { words, params }
    }

    /// Whether `text` is made of slot words (and function words) only.
    pub fn names_only(&self, text: &str) -> bool {
        let lower = text.to_lowercase();
        // A token of letters and digits ("TASK-318") names one thing, though
        // its letters name a slot.
        let joined = lower.split_whitespace().any(|token| {
            token.chars().any(|c| c.is_ascii_digit()) && token.chars().any(char::is_alphabetic)
        });
        if joined || lower.chars().any(is_cjk) {
            return false;
        }
        let content: Vec<&str> = english_words(&lower)
            .into_iter()
            .filter(|word| !is_filler(word) && !is_number(word))
            .collect();
        !content.is_empty()
            && content
                .iter()
                .all(|word| self.words.contains(&singular(word)))
    }

    /// The parameter whose name the word right before a number names
    /// ("member 20488" names `member_id`, "episode 42" `episode_number`,
    /// "membership 7752" `member_number`),
    /// if one does: that number is an identifier of the thing named, and
    /// no other parameter's quantity.
    pub fn named_before_number(&self, before: &str) -> Option<&str> {
        if before.ends_with(|c: char| !c.is_whitespace() && !c.is_ascii_alphanumeric()) {
            return None;
        }
        let previous = before
            .trim_end()
            .rsplit(|c: char| !c.is_ascii_alphanumeric())
            .next()?
            .to_lowercase();
        if previous.len() < 3 {
            return None;
        }
        let previous = singular(&previous);
        // A word made from a slot's ("membership 7752" for
        // `member_number`) names it too.
        let names = |word: &String| {
            *word == previous || word.len() >= 5 && previous.starts_with(word.as_str())
        };
        let mut named = self
            .params
            .iter()
            .filter(|(_, words)| words.iter().any(names))
            .map(|(name, _)| name.as_str());
        let first = named.next()?;
        named.next().is_none().then_some(first)
    }

    /// The parameter whose name the word right after a number names
    /// ("4 nights" names `nights`, "2 guests" `guests`), if one does.
    pub fn named_after_number(&self, after: &str) -> Option<&str> {
        let next = after
            .trim_start_matches(|c: char| c.is_whitespace() || c == '-')
            .split(|c: char| !c.is_ascii_alphanumeric())
            .next()?
            .to_lowercase();
        if next.is_empty() {
            return None;
        }
        let next = singular(&next);
        let mut named = self
            .params
            .iter()
            .filter(|(_, words)| words.contains(&next))
            .map(|(name, _)| name.as_str());
        let first = named.next()?;
        // A word of several parameters' names ("minutes" of `minutes` and
        // `max_minutes`) picks none.
        named.next().is_none().then_some(first)
    }
}

/// The words of a description up to its first preposition, comma or
/// relative pronoun, function words aside: what the tool is or does.
fn description_head(description: &str) -> Vec<String> {
    let lower = description.to_lowercase();
    let clause = lower.split([',', '.', ';', ':', '(']).next().unwrap_or("");
    english_words(clause)
        .into_iter()
        .take_while(|word| !PREPOSITIONS.contains(word) && !HEAD_ENDS.contains(word))
        .filter(|word| word.len() >= 3 && !is_filler(word))
        .map(singular)
        .collect()
}

/// Whether a copied `value` answers parameter `name` of `tool`: it is not
/// made of slot words only, a value that names a time only goes to a
/// parameter about time, and a record's code ("T-2291") is no name.
pub fn answers(tool: &ToolManifest, slots: &SlotWords, name: &str, value: &str) -> bool {
    let description = tool.parameters.get(name).map_or("", String::as_str);
    let identifier = identifier_kind(name, description);
    !slots.names_only(value)
        && !is_question_clause(value)
        && identifier.is_none_or(|kind| identifier_shaped(kind, value))
        && (!names_time_only(value) || wants_time(name, description))
        && (!is_record_code(value) || !asks_for_name(name, description))
}

/// Whether `value` opens with an auxiliary and a pronoun: a question's
/// inverted clause ("should I eat"), the asking, not a value.
fn is_question_clause(value: &str) -> bool {
    let lower = value.to_lowercase();
    let mut words = lower.split_whitespace();
    matches!(
        (words.next(), words.next()),
        (Some(first), Some(second)) if AUXILIARIES.contains(&first) && PRONOUNS.contains(&second)
    )
}

/// The parameters a call of `tool` cannot go without (see the module's
/// documentation).
pub fn required_params(tool: &ToolManifest) -> Vec<String> {
    if let Some(listed) = schema_required(tool) {
        return listed;
    }
    // A manifest that calls some parameters optional says the others are
    // not (flags aside, which default to false).
    let marked = tool
        .parameters
        .values()
        .any(|description| described_optional(description));
    if marked {
        return tool
            .parameters
            .iter()
            .filter(|(name, description)| {
                !described_optional(description) && tool.param_type(name) != ParamType::Bool
            })
            .map(|(name, _)| name.clone())
            .collect();
    }
    essential_params(tool)
}

/// Whether parameter `name` is what a call of `tool` works on: one its
/// schema requires, or, without a schema, its record's identifier or a
/// reading tool's object. A call without it was not the message's (the
/// next tool is weighed); one without a parameter required only because
/// the manifest leaves it unmarked was, but lacks a value.
pub fn works_on(tool: &ToolManifest, name: &str) -> bool {
    schema_required(tool)
        .unwrap_or_else(|| essential_params(tool))
        .iter()
        .any(|required| required == name)
}

/// The parameters `tool`'s schema lists as required, if it lists any.
fn schema_required(tool: &ToolManifest) -> Option<Vec<String>> {
    let listed = tool
        .input_schema
        .as_ref()
        .and_then(|schema| schema.get("required"))
        .and_then(|required| required.as_array())?;
    Some(
        listed
            .iter()
            .filter_map(|name| name.as_str())
            .filter(|name| tool.parameters.contains_key(*name))
            .map(str::to_owned)
            .collect(),
    )
}

/// The parameters a call of `tool` works on, without a schema: the record's
/// identifier, and a reading tool's object (see the module's
/// documentation).
fn essential_params(tool: &ToolManifest) -> Vec<String> {
    // The record a call works on: an identifier its description does not
    // call optional ("the booking reference" of a cancellation).
    let identifiers = tool.parameters.iter().filter(|(name, description)| {
        // An email or a phone is as often a value to set as a key.
        matches!(
            identifier_kind(name, description),
            Some(IdentifierKind::Record | IdentifierKind::Code)
        ) && tool.param_type(name) == ParamType::String
            && !described_optional(description)
    });
    let mut required: Vec<String> = identifiers.map(|(name, _)| name.clone()).collect();
    if offered_actions(tool).changes() {
        return required;
    }
    let Some((name, description)) = tool.parameters.first() else {
        return required;
    };
    let declared = tool
        .parameter_types
        .get(name)
        .and_then(|declared| declared.conversion());
    let optional = tool.param_type(name) == ParamType::Bool
        || matches!(declared, Some(Kind::List | Kind::Object))
        || !param_options(tool, name).is_empty()
        || described_optional(description);
    if !optional && !required.contains(name) {
        required.insert(0, name.clone());
    }
    required
}

/// The first parameter `params` lacks that a call of `tool` requires.
pub fn missing_required(tool: &ToolManifest, params: &Params) -> Option<String> {
    required_params(tool)
        .into_iter()
        .find(|name| !params.contains_key(name))
}

fn english_words(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '.') || is_cjk(c))
        .map(|word| word.trim_matches(['\'', '.']).trim_end_matches("'s"))
        .filter(|word| !word.is_empty())
        .collect()
}

/// Quantifiers: no value alone ("many calories" is calories).
const QUANTIFIERS: [&str; 9] = [
    "many", "much", "some", "few", "more", "most", "any", "several", "enough",
];

fn is_filler(word: &str) -> bool {
    FUNCTION_WORDS.contains(word) || PREPOSITIONS.contains(word) || QUANTIFIERS.contains(&word)
}

fn is_number(word: &str) -> bool {
    word.chars().any(|c| c.is_ascii_digit())
        && word
            .chars()
            .all(|c| c.is_ascii_digit() || ".:-/".contains(c) || c == 'h')
}

/// What a description of a count counts: "people" of "number of people
/// attending", "lock" of "how many locks".
fn counted_noun(description: &str) -> Option<String> {
    let lower = description.to_lowercase();
    let words = english_words(&lower);
    let after = words.windows(3).find_map(|three| match three {
        ["number" | "count", "of", noun] | ["how", "many", noun] => Some(*noun),
        _ => None,
    })?;
    (after.len() >= 3 && !is_filler(after)).then(|| singular(after))
}

/// A word without a plural `s` (not of "ss": "address").
fn singular(word: &str) -> String {
    match word.strip_suffix('s') {
        Some(base) if base.len() >= 3 && !base.ends_with('s') => base.to_owned(),
        _ => word.to_owned(),
    }
}

/// `convert_units` and `convertUnits` as "convert units".
pub fn split_identifier(name: &str) -> String {
    let mut words = String::with_capacity(name.len() + 4);
    let mut previous_lower = false;
    for c in name.chars() {
        if c == '_' || c == '-' || c == '.' {
            words.push(' ');
        } else {
            if c.is_uppercase() && previous_lower {
                words.push(' ');
            }
            words.push(c);
        }
        previous_lower = c.is_lowercase();
    }
    words
}

/// The words of a parameter's name, lowercase: `voter_name` and
/// `voterName` as "voter", "name".
pub fn name_words(name: &str) -> Vec<String> {
    split_identifier(name)
        .split_whitespace()
        .map(str::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_tools::tool;
    use serde_json::json;

    #[test]
    fn a_time_answers_only_a_parameter_about_time() {
        for time in [
            "tomorrow",
            "over the past year",
            "this morning",
            "next 3 days",
            "Friday",
            "明天",
            "往年十一月",
        ] {
            assert!(names_time_only(time), "{time}");
        }
        for not_time in [
            "Kenya",
            "Tokyo time",
            "the eggs",
            "东京往年十一月",
            "2 guests",
            "PM-2207",
        ] {
            assert!(!names_time_only(not_time), "{not_time}");
        }
        assert!(wants_time("date", "Departure date"));
        assert!(wants_time("check_in", "Check-in date, YYYY-MM-DD"));
        assert!(wants_time("since_hours", "How far back to search"));
        assert!(!wants_time("destination", "Country to visit"));
        assert!(!wants_time("to_currency", "ISO 4217 code of the currency"));
        let visa = tool(
            "check_visa",
            "Tell whether a traveller needs a visa to enter a country.",
            &[
                ("nationality", "Traveller's nationality"),
                ("destination", "Country to visit"),
            ],
        );
        let slots = SlotWords::of(&visa);
        assert!(!answers(&visa, &slots, "destination", "tomorrow"));
        let tasks = tool(
            "task_status",
            "Set a task's status",
            &[("task_id", "the task ID")],
        );
        let task_slots = SlotWords::of(&tasks);
        assert!(task_slots.names_only("the task"));
        assert!(!task_slots.names_only("TASK-318"));
        assert!(answers(&tasks, &task_slots, "task_id", "TASK-318"));
        assert!(!answers(&tasks, &task_slots, "task_id", "my task"));
        assert_eq!(required_params(&tasks), ["task_id"]);
        let contact = tool(
            "update_contact",
            "Update a contact.",
            &[("name", "Contact name"), ("phone", "Phone number")],
        );
        assert!(
            required_params(&contact).is_empty(),
            "a phone is a value to set"
        );
        assert!(answers(&visa, &slots, "destination", "Kenya"));
        assert!(!answers(&visa, &slots, "destination", "should I visit"));
        assert!(
            answers(&visa, &slots, "destination", "Do Son"),
            "no pronoun"
        );
    }

    #[test]
    fn a_word_that_names_a_slot_or_the_tool_is_no_value() {
        let deploy = tool(
            "deploy",
            "Deploy a git branch of a service to an environment.",
            &[("service", "Service name"), ("branch", "Git branch")],
        );
        let slots = SlotWords::of(&deploy);
        assert!(slots.names_only("branch"));
        assert!(slots.names_only("the branch"));
        assert!(!slots.names_only("release-2.4"));
        assert!(!slots.names_only("billing"));
        let nutrition = tool(
            "nutrition_facts",
            "Calories and macronutrients of a food.",
            &[("food", "Food name")],
        );
        let slots = SlotWords::of(&nutrition);
        assert!(slots.names_only("calories"));
        assert!(slots.names_only("many calories"));
        assert!(!slots.names_only("salmon"));
        assert!(!slots.names_only("東京"), "CJK text is left to other rules");
    }

    #[test]
    fn a_chinese_or_japanese_span_run_into_a_time_holds_one() {
        for held in [
            "苗床过去",
            "我朋友李明明天来找我",
            "12月8号早上7点半的车",
            "布洛芬现在有没有货",
        ] {
            assert!(holds_cjk_time(held), "{held}");
        }
        for free in [
            "苗床",
            "布洛芬",
            "明天",
            "12月8号",
            "Tuesday morning",
            "浦东新区世纪大道100号",
        ] {
            assert!(!holds_cjk_time(free), "{free}");
        }
    }

    #[test]
    fn a_number_goes_to_the_parameter_its_word_names() {
        let hotel = tool(
            "book_hotel",
            "Book a hotel room in a city.",
            &[
                ("city", "City"),
                ("nights", "Number of nights"),
                ("guests", "Number of guests"),
            ],
        );
        let slots = SlotWords::of(&hotel);
        assert_eq!(
            slots.named_after_number(" nights, 2 guests"),
            Some("nights")
        );
        assert_eq!(slots.named_after_number(" guests"), Some("guests"));
        assert_eq!(slots.named_after_number(" guest"), Some("guests"));
        assert_eq!(slots.named_after_number(" euros a night"), None);
        assert_eq!(slots.named_after_number(""), None);
        let mut room = tool(
            "book_meeting_room",
            "Books a meeting room.",
            &[
                ("location", "branch name"),
                ("attendees", "number of people attending"),
                ("note", "number of people to tell, as text"),
            ],
        );
        room.parameter_types.insert(
            "attendees".into(),
            serde_json::from_value(json!("integer")).unwrap(),
        );
        let slots = SlotWords::of(&room);
        assert_eq!(
            slots.named_after_number(" people at Harbour Point"),
            Some("attendees"),
            "the noun a count's description counts names it"
        );
        assert!(
            !slots.names_only("people"),
            "a counted noun is no slot word"
        );
        let loans = tool(
            "check_out_book",
            "Lends a book.",
            &[("member_id", "card number"), ("loan_days", "loan length")],
        );
        let slots = SlotWords::of(&loans);
        assert_eq!(
            slots.named_before_number("books has member "),
            Some("member_id")
        );
        assert_eq!(slots.named_before_number("for "), None);
        assert_eq!(slots.named_before_number("members, "), None);
        assert_eq!(
            slots.named_before_number("renew membership "),
            Some("member_id"),
            "a word made from the slot's"
        );
        assert_eq!(
            slots.named_before_number("loaner "),
            None,
            "too short a stem"
        );
    }

    #[test]
    fn a_tool_that_reads_or_computes_needs_its_object() {
        let converter = tool(
            "convert_currency",
            "Convert an amount of money between currencies.",
            &[("amount", "Amount of money"), ("from_currency", "ISO code")],
        );
        assert_eq!(required_params(&converter), ["amount"]);
        let params = json!({"from_currency": "EUR"});
        assert_eq!(
            missing_required(&converter, params.as_object().unwrap()).as_deref(),
            Some("amount")
        );
        let clock = tool(
            "clock",
            "Get the current time.",
            &[("timezone", "IANA zone (default UTC)")],
        );
        assert!(required_params(&clock).is_empty(), "a default is stated");
        let thermostat = tool(
            "set_thermostat",
            "Set the home thermostat.",
            &[("target", "Target temperature"), ("change", "Change")],
        );
        assert!(
            required_params(&thermostat).is_empty(),
            "a changing tool's parameters may be alternatives"
        );
        let mut schema = converter.clone();
        schema.input_schema = Some(json!({"required": ["amount", "from_currency"]}));
        assert_eq!(required_params(&schema), ["amount", "from_currency"]);
        let mut recipes = tool(
            "find_recipes",
            "Find recipes.",
            &[("ingredients", "Ingredients")],
        );
        recipes.parameter_types.insert(
            "ingredients".into(),
            serde_json::from_value(json!("list")).unwrap(),
        );
        assert!(required_params(&recipes).is_empty(), "a list may be empty");
    }

    #[test]
    fn parameters_a_manifest_does_not_call_optional_beside_ones_it_does_are_required() {
        let mut lend = tool(
            "lend_game",
            "Records that someone borrows a game.",
            &[
                ("title", "game title"),
                ("due", "date it is due back, YYYY-MM-DD"),
                ("note", "optional; a note"),
                ("deposit", "whether a deposit was paid"),
            ],
        );
        lend.parameter_types.insert(
            "deposit".into(),
            serde_json::from_value(json!("boolean")).unwrap(),
        );
        assert_eq!(required_params(&lend), ["title", "due"], "flags aside");
        assert!(!works_on(&lend, "due"), "required by the marks only");
    }
}
