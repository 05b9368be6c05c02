//! The thing a request's opening verb acts on, for the parameter its tool
//! works on: "refill omeprazole pls" gives `request_refill` its medication,
//! "Invoice Northwind for the redesign" gives `create_invoice` its client.
//! The model often scores such a word (a drug, a company) below `null`;
//! where the verb is the tool's own, the words right after it are what the
//! tool is asked to act on.

use riverse_route::words::REQUEST_LEAD_INS;
use riverse_route::{SlotWords, identifier_kind, names_time_only, param_options, required_params};
use riverse_tool::{Kind, ParamType, ToolManifest};
use serde_json::Value;

use crate::route::fill::{declared, speaks_of_time};
use crate::route::speech::{OBJECT_END, OBJECT_LEAD, names_verb};

/// Words that end an object beside those that end a changed one
/// ([`OBJECT_END`]): asking, being and pronouns.
const MORE_ENDS: &[&str] = &[
    "pls", "plz", "thanks", "thx", "asap", "is", "are", "was", "were", "it", "them", "this",
    "again",
];

/// Most words of an object.
const MOST_WORDS: usize = 4;

/// `values` with the first text parameter `tool` requires, when the model
/// gave it nothing, taking the object of the request's opening verb when
/// that verb is the tool's own (see [`names_verb`]). A parameter of
/// options, identifiers or time is left to its own readers.
pub(super) fn with_verb_object(tool: &ToolManifest, message: &str, values: &mut [Option<Value>]) {
    let required = required_params(tool);
    let Some((index, _)) = tool
        .parameters
        .keys()
        .enumerate()
        .find(|(_, name)| required.contains(name) && takes_text(tool, name))
    else {
        return;
    };
    if values[index].is_some() {
        return;
    }
    let Some(object) = verb_object(message).filter(|(verb, _)| names_verb(tool, verb)) else {
        return;
    };
    let (_, object) = object;
    let repeated = values
        .iter()
        .flatten()
        .any(|value| value.as_str() == Some(&object));
    if !repeated && !SlotWords::of(tool).names_only(&object) && !own_words(tool, &object) {
        for value in values.iter_mut().flatten() {
            without_object(value, &object);
        }
        values[index] = Some(Value::String(object));
    }
}

/// `value`'s list items without `object` and the preposition after it
/// ("Northwind for website redesign" is the item "website redesign" once
/// Northwind is the client).
fn without_object(value: &mut Value, object: &str) {
    let Value::Array(items) = value else {
        return;
    };
    for item in items.iter_mut() {
        let Some(text) = item.as_str() else {
            continue;
        };
        let rest = text.strip_prefix(object).and_then(|rest| {
            let (word, rest) = rest.trim_start().split_once(' ')?;
            OBJECT_END
                .contains(&word.to_lowercase().as_str())
                .then(|| rest.trim())
        });
        if let Some(rest) = rest.filter(|rest| !rest.is_empty()) {
            *item = Value::from(rest);
        }
    }
}

/// Whether every word of `object` is one `tool`'s name or texts use
/// ("my prescription" of a tool that refills "your prescriptions"): the
/// kind of thing it acts on, not the thing.
fn own_words(tool: &ToolManifest, object: &str) -> bool {
    let texts = std::iter::once(tool.name.as_str())
        .chain(std::iter::once(tool.description.as_str()))
        .chain(tool.parameters.values().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    let words: Vec<&str> = texts
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .collect();
    object.split_whitespace().all(|word| {
        let word = word.to_lowercase();
        let stem = word.strip_suffix('s').unwrap_or(&word);
        words
            .iter()
            .any(|own| *own == word || own.strip_suffix('s').unwrap_or(own) == stem)
    })
}

/// Whether parameter `name` takes free text: a string, not a list, an
/// option, an identifier or a time.
fn takes_text(tool: &ToolManifest, name: &str) -> bool {
    let description = tool.parameters.get(name).map_or("", String::as_str);
    tool.param_type(name) == ParamType::String
        && declared(tool, name).is_none_or(|kind| kind == Kind::String)
        && param_options(tool, name).is_empty()
        && identifier_kind(name, description).is_none()
        && !speaks_of_time(name, description)
}

/// The verb a request opens with, lowercase, and the words right after it
/// that name what it acts on, as written: up to a preposition, a joiner,
/// a time, a number or the clause's end, determiners aside.
fn verb_object(message: &str) -> Option<(String, String)> {
    let clause = message
        .split(|c: char| ",;:.!?\n".contains(c))
        .next()
        .unwrap_or("");
    let words: Vec<&str> = clause.split_whitespace().collect();
    let bare = |word: &str| {
        word.trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase()
    };
    let at = words
        .iter()
        .position(|word| !REQUEST_LEAD_INS.contains(&bare(word)))?;
    let verb = bare(words[at]);
    if verb.len() < 3 || !verb.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let rest = &words[at + 1..];
    let start = rest
        .iter()
        .position(|word| !OBJECT_LEAD.contains(&bare(word).as_str()))?;
    let object: Vec<&str> = rest[start..]
        .iter()
        .take_while(|word| {
            let lower = bare(word);
            !lower.is_empty()
                && !OBJECT_END.contains(&lower.as_str())
                && !MORE_ENDS.contains(&lower.as_str())
                && !lower.chars().any(|c| c.is_ascii_digit())
                && !names_time_only(&lower)
        })
        .copied()
        .collect();
    if object.is_empty() || object.len() > MOST_WORDS {
        return None;
    }
    let object = object
        .join(" ")
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_owned();
    Some((verb, object))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_tools::tool;

    /// A pharmacy's refill tool: its medication required, its day not.
    fn refill() -> ToolManifest {
        tool(
            "request_refill",
            "Asks the pharmacy to refill one of your prescriptions.",
            &[
                ("medication", "name of the prescribed medicine"),
                (
                    "pickup_date",
                    "optional; the day you want to collect it, YYYY-MM-DD",
                ),
            ],
        )
    }

    fn object_for(tool: &ToolManifest, message: &str) -> Option<Value> {
        let mut values = vec![None; tool.parameters.len()];
        with_verb_object(tool, message, &mut values);
        values.into_iter().next().flatten()
    }

    #[test]
    fn the_object_of_the_tools_own_verb_is_what_it_works_on() {
        let refill = refill();
        assert_eq!(
            object_for(&refill, "refill omeprazole pls, ill pick it up tuesday"),
            Some(Value::from("omeprazole"))
        );
        assert_eq!(
            object_for(&refill, "please refill my Lisinopril 10mg"),
            Some(Value::from("Lisinopril"))
        );
        let invoice = tool(
            "create_invoice",
            "Creates a draft invoice for a client.",
            &[
                ("client", "client name"),
                ("due_date", "optional; payment due date, YYYY-MM-DD"),
            ],
        );
        assert_eq!(
            object_for(
                &invoice,
                "Invoice Northwind for website redesign, due Jan 4"
            ),
            Some(Value::from("Northwind"))
        );
    }

    #[test]
    fn the_object_leaves_the_items_it_opened() {
        let mut invoice = tool(
            "create_invoice",
            "Creates a draft invoice for a client.",
            &[
                ("client", "client name"),
                ("items", "line item descriptions"),
                ("note", "optional; a note"),
            ],
        );
        invoice.parameter_types.insert(
            "items".into(),
            serde_json::from_value(serde_json::json!("list")).unwrap(),
        );
        let mut values = vec![
            None,
            Some(serde_json::json!([
                "Northwind for website redesign",
                "hosting"
            ])),
            None,
        ];
        with_verb_object(
            &invoice,
            "Invoice Northwind for website redesign and hosting",
            &mut values,
        );
        assert_eq!(values[0], Some(Value::from("Northwind")));
        assert_eq!(
            values[1],
            Some(serde_json::json!(["website redesign", "hosting"]))
        );
    }

    #[test]
    fn another_verb_a_pronoun_or_a_slot_word_gives_nothing() {
        let refill = refill();
        assert_eq!(
            object_for(&refill, "order omeprazole for me"),
            None,
            "not its verb"
        );
        assert_eq!(object_for(&refill, "refill it tomorrow"), None, "a pronoun");
        assert_eq!(
            object_for(&refill, "refill my prescription"),
            None,
            "a slot word"
        );
        assert_eq!(
            object_for(&refill, "refill the big blue bottle thing I always take"),
            None,
            "too long to be a name"
        );
        let mut given = vec![Some(Value::from("aspirin")), None];
        with_verb_object(&refill, "refill omeprazole", &mut given);
        assert_eq!(
            given[0],
            Some(Value::from("aspirin")),
            "the model's value stays"
        );
    }
}
