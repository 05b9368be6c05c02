//! A list parameter's items written as the tool asks: each one of its
//! options ("racket, ball_can, shoes" takes `ball_can` for "a can of
//! balls"), or each a clock time as `HH:MM` ("at 8am, 2pm and 10pm").

use riverse_route::{as_clock_time, clock_times_in, options_named, wants_clock_time};
use serde_json::Value;

/// The items of list parameter `value` as its `description` and
/// `options` ask, or `None` when none can be: times are every clock time
/// of `message`, options those its items name (or, naming none, that
/// `message` names); a list of free text is kept as it is.
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
    if options.is_empty() {
        return value;
    }
    let mut named: Vec<String> = Vec::new();
    for option in items.iter().flat_map(|item| options_named(item, options)) {
        if !named.contains(&option) {
            named.push(option);
        }
    }
    if named.is_empty() {
        named = options_named(message, options);
    }
    (!named.is_empty()).then(|| Value::from(named))
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
