//! A list parameter's items written as the tool asks: each one of its
//! options ("racket, ball_can, shoes" takes `ball_can` for "a can of
//! balls"), or each a clock time as `HH:MM` ("at 8am, 2pm and 10pm"), or
//! each a day as `YYYY-MM-DD` ("I can do Dec 12 or Dec 19"); and a list's
//! one chosen item widened to the enumeration that holds it ("Spanish and
//! French").

use std::ops::Range;

use chrono::NaiveDate;
use riverse_route::lexicon::english_words;
use riverse_route::script::is_cjk;
use riverse_route::{Candidate, as_clock_time, clock_times_in, options_named, wants_clock_time};
use riverse_tool::{Kind, ToolManifest};
use serde_json::Value;

use crate::route::dates::{looks_back, wants_iso_date};
use crate::route::days::named_days;
use crate::route::fill::declared;
use crate::route::weekdays::{takes_weekdays, weekdays_named, written_as};

/// The items of list parameter `value` as its `description` and
/// `options` ask, or `None` when none can be: times are every clock time
/// of `message`, options those `message` names and those its items name;
/// a list of free text is kept as it is.
pub(super) fn list_as_asked(
    description: &str,
    options: &[String],
    message: &str,
    value: Option<Value>,
) -> Option<Value> {
    let items: Vec<String> = match &value {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|item| item.as_str().map(str::to_owned))
            .collect(),
        Some(Value::String(item)) => vec![item.clone()],
        _ => Vec::new(),
    };
    if wants_clock_time(description) {
        let mut times = clock_times_in(message);
        if times.is_empty() {
            times = items
                .iter()
                .filter_map(|item| as_clock_time(item, ""))
                .collect();
        }
        return (!times.is_empty()).then(|| Value::from(times));
    }
    if takes_weekdays(description, options) {
        let days = weekdays_named(message);
        if !days.is_empty() {
            return Some(Value::from(written_as(&days, description, options)));
        }
    }
    if options.is_empty() {
        return value;
    }
    // Every option the message names is an item, in the order written,
    // beside those the items name in their own words (シューズ).
    let mut named: Vec<String> = options_named(message, options);
    for option in items.iter().flat_map(|item| item_options(item, options)) {
        if !named.contains(&option) {
            named.push(option);
        }
    }
    (!named.is_empty()).then(|| Value::from(named))
}

/// The options `item` names, in its own words or, written in Chinese or
/// Japanese, in the English words of its terms (シューズ names `shoes`,
/// チョークバッグ `chalk_bag`).
fn item_options(item: &str, options: &[String]) -> Vec<String> {
    let named = options_named(item, options);
    if !named.is_empty() || !item.chars().any(is_cjk) {
        return named;
    }
    options_named(&english_words(item), options)
}

/// Whether parameter `name` of `tool` is a list of ISO dates ("dates that
/// suit you, YYYY-MM-DD").
pub(super) fn takes_days(tool: &ToolManifest, name: &str) -> bool {
    declared(tool, name) == Some(Kind::List)
        && tool
            .parameters
            .get(name)
            .is_some_and(|description| wants_iso_date(description))
}

/// A list of dates takes every day the message names ("I can do Dec 12
/// or Dec 19"), in order, and their words are no other parameter's value.
pub(super) fn with_listed_days(
    tool: &ToolManifest,
    message: &str,
    today: NaiveDate,
    taken: &mut Vec<Range<usize>>,
    values: &mut [Option<Value>],
) {
    for (index, name) in tool.parameters.keys().enumerate() {
        if values[index].is_some() || !takes_days(tool, name) {
            continue;
        }
        let gone = looks_back(&tool.name, &tool.parameters[name]);
        let days = named_days(message, today, gone);
        if days.is_empty() {
            continue;
        }
        let dates: Vec<String> = days.iter().map(|day| day.date.to_string()).collect();
        taken.extend(days.into_iter().map(|day| day.bytes));
        values[index] = Some(Value::from(dates));
    }
}

/// `chosen` with a list parameter's single item widened to the longest
/// enumeration that holds it as an item ("bug" of "label it bug and ui" is the
/// labels bug and ui, "French" of "speaks Spanish and French" the
/// languages Spanish and French: items joined by "and" are one list),
/// unless that overlaps another parameter's value other than one of its
/// items, which the list then takes from that parameter.
pub(super) fn widened_to_enumerations(
    found: &[Candidate],
    items: &[Option<Vec<String>>],
    lists: &[bool],
    mut chosen: Vec<Option<usize>>,
) -> Vec<Option<usize>> {
    for slot in 0..chosen.len() {
        let Some(c) = chosen[slot] else { continue };
        if !lists[slot] || items[c].is_some() {
            continue;
        }
        let held = found[c].bytes.clone();
        let is_item = |e: usize, value: &str| {
            items[e]
                .as_ref()
                .is_some_and(|items| items.iter().any(|item| item.trim() == value.trim()))
        };
        let others: Vec<(usize, usize)> = chosen
            .iter()
            .enumerate()
            .filter(|(other, _)| *other != slot)
            .filter_map(|(other, choice)| choice.map(|o| (other, o)))
            .collect();
        let widest = (0..found.len())
            .filter(|&e| {
                let bytes = &found[e].bytes;
                is_item(e, &found[c].value) && bytes.start <= held.start && held.end <= bytes.end
            })
            .filter(|&e| {
                let bytes = &found[e].bytes;
                others.iter().all(|&(_, o)| {
                    let other = &found[o].bytes;
                    other.end <= bytes.start
                        || bytes.end <= other.start
                        || is_item(e, &found[o].value)
                })
            })
            .max_by_key(|&e| found[e].bytes.len());
        if let Some(widest) = widest {
            chosen[slot] = Some(widest);
            // Another parameter given one of the list's items splits the
            // list ("sam@… and priya@…" are both recipients, not a
            // recipient and a note).
            let bytes = &found[widest].bytes;
            for (other, o) in others {
                let inside = bytes.start <= found[o].bytes.start && found[o].bytes.end <= bytes.end;
                if inside && is_item(widest, &found[o].value) {
                    chosen[other] = None;
                }
            }
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn options(names: &[&str]) -> Vec<String> {
        names.iter().map(|name| name.to_string()).collect()
    }

    #[test]
    fn items_in_the_messages_words_become_options() {
        let gear = options(&["racket", "ball_can", "shoes", "ball_machine"]);
        let message = "Rent me a racket and a can of balls for Thursday";
        let items = Some(json!(["a racket", "a can of balls"]));
        assert_eq!(
            list_as_asked("gear, each one of: ...", &gear, message, items),
            Some(json!(["racket", "ball_can"]))
        );
        assert_eq!(
            list_as_asked("gear", &gear, "I need a ball machine", None),
            Some(json!(["ball_machine"])),
            "named by the message when no item was copied"
        );
        assert_eq!(
            list_as_asked("gear", &gear, "rent me a kayak", Some(json!(["a kayak"]))),
            None,
            "no option the tool takes"
        );
        let climbing = options(&["shoes", "harness", "chalk_bag", "helmet"]);
        let message = "シューズとチョークバッグを借りたいです";
        assert_eq!(
            list_as_asked(
                "items",
                &climbing,
                message,
                Some(json!(["シューズ", "チョークバッグ"]))
            ),
            Some(json!(["shoes", "chalk_bag"])),
            "Japanese items by the English of their words"
        );
    }

    #[test]
    fn times_are_every_clock_time_of_the_message() {
        let description = "times of day, each HH:MM in 24-hour time";
        assert_eq!(
            list_as_asked(
                description,
                &[],
                "at 8am, 2pm and 10pm",
                Some(json!(["2pm"]))
            ),
            Some(json!(["08:00", "14:00", "22:00"]))
        );
        assert_eq!(
            list_as_asked(
                description,
                &[],
                "every morning at 7",
                Some(json!(["morning"]))
            ),
            Some(json!(["07:00"]))
        );
        assert_eq!(list_as_asked(description, &[], "daily", None), None);
    }

    #[test]
    fn free_text_items_stay_as_copied() {
        let items = Some(json!(["Ana", "Luis"]));
        assert_eq!(
            list_as_asked(
                "people to invite",
                &[],
                "invite Ana and Luis",
                items.clone()
            ),
            items
        );
    }
}
