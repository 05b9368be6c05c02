//! Filling the chosen tool's parameters from the message.
//!
//! Numbers come first, each decoded on its own as the first key of the JSON
//! object (see [`super::values`]); a boolean is what the message implies of
//! it ([`implied_flag`]), or left out. The string parameters
//! are then filled together, each asked for right after the numbers (so no
//! string's value depends on another string's guess): every candidate span
//! of the message (see [`riverse_route::candidates`]) and `null` are scored
//! as each one's value, by the model and by how well the span fits the
//! parameter's description and examples; [`best_assignment`] then gives
//! each parameter one span or `null`, no span twice.

use std::ops::Range;

use chrono::NaiveDate;
use riverse_route::{
    Candidate, MessageSpans, NumberSpan, SlotWords, as_clock_time, as_language, candidates,
    described_optional, enumerations, implied_flag, in_described_scale, labelled_number,
    language_named, names_time_of_day, number_labels, opens_street_address, param_options,
    postcodes, snap_to_option, split_identifier, unit_fits, wants_clock_time, wants_language,
    written_half, written_in_unit_of, written_with_unit,
};
use riverse_tool::{Kind, ParamType, Params, ToolManifest};
use serde_json::Value;

use crate::error::Result;
use crate::inference::engine::{Engine, State};
use crate::route::assign::{StringSlots, assign_strings};
use crate::route::dates::{
    as_iso_date, as_year_month, looks_back, no_date_kept, only_named_date, wants_iso_date,
    wants_year_month,
};
use crate::route::days::names_only_a_day;
use crate::route::forms::{list_items, said_as_change, takes_change, word_quantities};
use crate::route::labelled::{
    with_coordinates, with_currency_codes, with_labelled_values, with_named_options,
    with_postcodes, with_said_options, without_named_options,
};
use crate::route::listed::{list_as_asked, takes_days, widened_to_enumerations, with_listed_days};
use crate::route::money::{
    in_cents, in_currency, meant_in_major_unit, written_as_money, written_in_major_unit,
};
use crate::route::pairs::{
    in_written_name_order, only_clock_time, with_clock_span, with_date_span, with_written_range,
};
use crate::route::prompt;
use crate::route::signs::{in_described_range, percent_as_example_decimal, signed};
use crate::route::values::{
    Decoded, ValueTokens, decode_value, open_numbers, order_anchor, overlaps,
};
use crate::route::verb_object::with_verb_object;
use crate::route::written::{tidied, with_spelled_numbers, without_tool_words};
use crate::route::years::with_calendar_numbers;
use crate::tuning::WHOLE_REQUEST;

/// Which numbers of the message may be `name`'s: a number followed by a
/// word of a parameter's name ("4 nights") is that parameter's, and when
/// one names this parameter, only such a number is; otherwise one whose
/// unit fits the parameter.
///
/// A number said to be an amount of change ("by 2 degrees") is not for a
/// parameter of a level when the tool has one of a change, and one said
/// to be a level ("to 19.5") not for a parameter of a change when it has
/// one of a level (see [`takes_change`]).
fn number_fits<'a>(
    tool: &'a ToolManifest,
    message: &'a str,
    spans: &'a MessageSpans<'a>,
    slot_words: &'a SlotWords,
    name: &'a str,
    description: &'a str,
) -> impl Fn(&NumberSpan) -> bool + 'a {
    let named_here = spans
        .numbers
        .iter()
        .any(|number| slot_words.named_after_number(&message[number.bytes.end..]) == Some(name));
    let numeric = |change: bool| {
        tool.parameters.iter().any(|(other, meaning)| {
            matches!(tool.param_type(other), ParamType::Int | ParamType::Float)
                && takes_change(other, meaning) == change
        })
    };
    // A parameter in a currency takes a sum the message writes as money
    // ("waive 2 euros for 66001"), when it writes one.
    let money_here = in_currency(description)
        && spans
            .numbers
            .iter()
            .any(|number| written_as_money(message, &number.bytes));
    // A parameter in a unit takes a number the message writes in a unit of
    // its kind ("用了两个小时，打5星" for a length in minutes), when it
    // writes one.
    let measured_here = spans
        .numbers
        .iter()
        .any(|number| written_in_unit_of(&message[number.bytes.end..], name, description));
    let (this_changes, has_change, has_level) = (
        takes_change(name, description),
        numeric(true),
        numeric(false),
    );
    let integer = tool.param_type(name) == ParamType::Int;
    let cents = in_cents(name, description);
    let postcodes = postcodes(message);
    move |number: &NumberSpan| {
        let after = &message[number.bytes.end..];
        // "ten in the morning" is an hour of the day, "12 Elm Street" a
        // house number, the 1 of "CB2 1TN" part of a postcode: no
        // quantities.
        let in_postcode = postcodes.iter().any(|code| overlaps(code, &number.bytes));
        if names_time_of_day(after) || opens_street_address(after) || in_postcode {
            return false;
        }
        let said = said_as_change(&message[..number.bytes.start]);
        let against_saying = match said {
            Some(true) => !this_changes && has_change,
            Some(false) => this_changes && has_level,
            None => false,
        };
        // A sum in cents is written in the currency's main unit ("paid 500
        // dollars", "$45.50"), which no unit of cents fits: it is rescaled
        // after, to a whole number of cents.
        if cents && written_in_major_unit(message, &number.bytes) {
            return !against_saying;
        }
        // "within 5 km" is a distance, whatever else the request prices.
        if (cents || in_currency(description)) && written_with_unit(after) {
            return false;
        }
        // A fraction for an integer only in a unit it converts from into
        // a whole number ("half an hour" for minutes is 30).
        if integer && !number.is_integer {
            let scaled = number
                .text
                .parse::<f64>()
                .ok()
                .and_then(|value| in_described_scale(value, after, name, description));
            if !scaled.is_some_and(|value| value.fract() == 0.0) {
                return false;
            }
        }
        let before = &message[..number.bytes.start];
        if let Some(named) = slot_words.named_before_number(before) {
            return named == name;
        }
        if money_here && !written_as_money(message, &number.bytes) {
            return false;
        }
        if measured_here && !written_in_unit_of(after, name, description) {
            return false;
        }
        match slot_words.named_after_number(after) {
            Some(named) => named == name,
            None => !named_here && !against_saying && unit_fits(after, name, description),
        }
    }
}

/// What closes a value scored as the only key of the object.
pub(super) const CLOSE: &str = "\"}";

/// The parameters of `tool` for `message`, and the tokens of the parameter
/// prompt they were filled after (0 for a tool without parameters, which
/// runs none); `prefix` is the tool's prefilled parameter prompt, and
/// days the message names relative to `today` are dated as of it.
pub(crate) fn fill_params(
    engine: &Engine,
    tokens: &ValueTokens,
    prefix: &State,
    tool: &ToolManifest,
    message: &str,
    today: NaiveDate,
) -> Result<(Params, usize)> {
    let mut params = Params::new();
    if tool.parameters.is_empty() {
        return Ok((params, 0));
    }
    let base = engine.extend(prefix, &prompt::params_suffix(message))?;
    let mut spans = MessageSpans::new(message, tool);
    with_spelled_numbers(&mut spans);
    let slot_words = SlotWords::of(tool);
    let tool_texts = format!("{} {}", tool.name, tool.description);
    let mut taken: Vec<Range<usize>> = Vec::new();
    let mut values: Vec<Option<Value>> = vec![None; tool.parameters.len()];
    // The object so far: numbers and booleans first, which strings' values
    // then follow ("3" is in meters: the unit after it is `from_unit`).
    let mut object = String::new();
    for (index, name) in tool.parameters.keys().enumerate() {
        let kind = tool.param_type(name);
        if kind == ParamType::String {
            continue;
        }
        if kind == ParamType::Bool {
            // The model picks `true` or `false` for almost any message;
            // what the message says of the flag is the better guide.
            let description = tool.parameters.get(name).map_or("", String::as_str);
            values[index] = implied_flag(message, name, description, &tool_texts).map(Value::Bool);
            continue;
        }
        let number = NumberSlot {
            name,
            kind,
            spans: &spans,
            slot_words: &slot_words,
        };
        values[index] = fill_number(
            engine,
            &base,
            tool,
            message,
            &number,
            &mut taken,
            &mut object,
        )?;
    }
    with_word_quantities(tool, message, &mut values);
    with_written_range(tool, &spans, &mut values);
    with_listed_days(tool, message, today, &mut taken, &mut values);
    with_calendar_numbers(tool, message, today, &mut values);
    with_named_options(tool, message, &mut values);
    let filling = Filling {
        engine,
        tokens,
        tool,
        message,
        spans: &spans,
        base: &base,
    };
    fill_strings(&filling, &taken, &object, &mut values)?;
    with_labelled_values(tool, message, &mut values);
    with_verb_object(tool, message, &mut values);
    with_postcodes(tool, message, &mut values);
    with_coordinates(tool, message, &mut values);
    with_currency_codes(tool, message, &mut values);
    with_said_options(tool, message, &mut values);
    in_written_name_order(tool, message, &mut values);
    with_clock_span(tool, message, &mut values);
    with_date_span(tool, message, today, &mut values);
    for (name, value) in tool.parameters.keys().zip(values) {
        if let Some(value) = as_asked(tool, name, message, value, today) {
            params.insert(name.clone(), value);
        }
    }
    Ok((params, base.tokens()))
}

/// What a call's parameters are filled from.
struct Filling<'a> {
    engine: &'a Engine,
    tokens: &'a ValueTokens,
    tool: &'a ToolManifest,
    message: &'a str,
    spans: &'a MessageSpans<'a>,
    /// The parameter prompt, forked for each value scored.
    base: &'a State,
}

/// The text parameters of `filling`'s tool, lists among them, into
/// `values`: candidate spans scored after `object` (the numbers and
/// booleans already filled), none of them in `taken`.
fn fill_strings(
    filling: &Filling<'_>,
    taken: &[Range<usize>],
    object: &str,
    values: &mut [Option<Value>],
) -> Result<()> {
    let Filling {
        engine,
        tokens,
        tool,
        message,
        spans,
        base,
    } = *filling;
    // Text parameters, lists among them; an object's keys and values are
    // beyond span copying, so an object parameter is left out.
    let strings: Vec<usize> = tool
        .parameters
        .keys()
        .enumerate()
        .filter(|(index, name)| {
            tool.param_type(name) == ParamType::String
                && declared(tool, name) != Some(Kind::Object)
                && !(values[*index].is_some()
                    && (takes_days(tool, name) || !param_options(tool, name).is_empty()))
        })
        .map(|(index, _)| index)
        .collect();
    let lists: Vec<bool> = strings
        .iter()
        .map(|&index| declared(tool, param_name(tool, index)) == Some(Kind::List))
        .collect();
    if !strings.is_empty() {
        let mut found = candidates(spans, taken, WHOLE_REQUEST);
        without_named_options(&mut found, values);
        // A list parameter may also take an enumeration ("coffee and oat
        // milk"), scored as its text and given as its items.
        let mut items: Vec<Option<Vec<String>>> = vec![None; found.len()];
        if lists.contains(&true) {
            for enumeration in enumerations(message, &found) {
                found.push(Candidate {
                    value: message[enumeration.bytes.clone()].trim().to_owned(),
                    bytes: enumeration.bytes,
                    shape: None,
                });
                items.push(Some(enumeration.items));
            }
        }
        let before = engine.extend(base, object)?;
        let keys: Vec<Vec<u32>> = strings
            .iter()
            .map(|&index| {
                let name = param_name(tool, index);
                let key = prompt::param_key(usize::from(!object.is_empty()), name);
                engine.tokenizer.encode(&key)
            })
            .collect::<Result<_>>()?;
        let anchor = order_anchor(message, taken).cloned();
        let slots = StringSlots {
            strings: &strings,
            lists: &lists,
            before: &before,
            keys: &keys,
            anchor,
        };
        let enumerated: Vec<bool> = items.iter().map(Option::is_some).collect();
        let chosen = assign_strings(engine, tokens, tool, &slots, &found, &enumerated, spans)?;
        let chosen = widened_to_enumerations(&found, &items, &lists, chosen);
        for ((index, choice), list) in strings.iter().zip(chosen).zip(&lists) {
            values[*index] = choice.map(|c| match (list, items_of(&found, &items, c)) {
                (true, Some(items)) => Value::from(items),
                (true, None) => Value::from(list_items(&found[c].value)),
                (false, _) => tidied(
                    param_name(tool, *index),
                    Value::String(
                        without_tool_words(spans, &found[c].bytes)
                            .unwrap_or_else(|| found[c].value.clone()),
                    ),
                ),
            });
        }
    }
    Ok(())
}

/// A number parameter being filled, and what the message offers it.
struct NumberSlot<'a> {
    name: &'a str,
    kind: ParamType,
    spans: &'a MessageSpans<'a>,
    slot_words: &'a SlotWords,
}

/// The value of the number parameter `slot`: decoded from the message's
/// numbers that fit it, or read from a label, scaled and signed as its
/// description asks. The span it took joins `taken` and the value `object`,
/// the JSON that later parameters are scored after.
fn fill_number(
    engine: &Engine,
    base: &State,
    tool: &ToolManifest,
    message: &str,
    slot: &NumberSlot<'_>,
    taken: &mut Vec<Range<usize>>,
    object: &mut String,
) -> Result<Option<Value>> {
    let NumberSlot {
        name,
        kind,
        spans,
        slot_words,
    } = *slot;
    let state = engine.extend(base, &prompt::param_key(0, name))?;
    let description = tool.parameters.get(name).map_or("", String::as_str);
    let usable = number_fits(tool, message, spans, slot_words, name, description);
    let decoded = match named_number(tool, message, slot, taken, &usable) {
        Some(named) => named,
        None => decode_value(engine, &state, kind, spans, taken, "}", &usable)?,
    };
    let decoded = match decoded.value {
        None => only_sum(tool, slot, message, taken, &usable).unwrap_or(decoded),
        Some(_) => decoded,
    };
    if let Some(value) = &decoded.value {
        object.push_str(&prompt::param_key(usize::from(!object.is_empty()), name));
        object.push_str(&format!(" {value}"));
    }
    let value = labelled_or_decoded(tool, name, message, decoded.value);
    let value = match (&value, &decoded.taken) {
        (Some(Value::Number(number)), Some(span)) => {
            rescaled(tool, name, number, message, span).or(value)
        }
        _ => value,
    };
    let value = value.filter(|value| {
        value
            .as_f64()
            .is_none_or(|number| in_described_range(description, number))
            && !(kind == ParamType::Int && value.is_f64())
    });
    if value.is_some() {
        taken.extend(decoded.taken);
    }
    Ok(value.map(|value| signed(description, message, value)))
}

/// The one open number the message names as `slot`'s: followed or
/// preceded by a word of its name ("3 seats", "membership 7752") or
/// written in its unit ("35分" for a length in minutes), and named so for
/// no other number parameter of the tool. Its words say whose it is: the
/// model is not asked.
fn named_number(
    tool: &ToolManifest,
    message: &str,
    slot: &NumberSlot<'_>,
    taken: &[Range<usize>],
    usable: &dyn Fn(&NumberSpan) -> bool,
) -> Option<Decoded> {
    let names = |number: &NumberSpan, param: &str| {
        let description = tool.parameters.get(param).map_or("", String::as_str);
        let after = &message[number.bytes.end..];
        slot.slot_words.named_after_number(after) == Some(param)
            || slot
                .slot_words
                .named_before_number(&message[..number.bytes.start])
                == Some(param)
            || written_in_unit_of(after, param, description)
    };
    let others: Vec<&String> = tool
        .parameters
        .keys()
        .filter(|other| *other != slot.name)
        .filter(|other| matches!(tool.param_type(other), ParamType::Int | ParamType::Float))
        .collect();
    let named: Vec<&NumberSpan> = open_numbers(slot.spans, taken, usable)
        .into_iter()
        .filter(|number| names(number, slot.name))
        .filter(|number| others.iter().all(|other| !names(number, other)))
        .collect();
    let [number] = named.as_slice() else {
        return None;
    };
    Some(Decoded::of(slot.kind, number))
}

/// The sum a required parameter of money takes when the model gave it
/// none: the one number the message writes as money that fits it ("pay
/// january rent - twelve hundred and fifty dollars").
fn only_sum(
    tool: &ToolManifest,
    slot: &NumberSlot<'_>,
    message: &str,
    taken: &[Range<usize>],
    usable: &impl Fn(&NumberSpan) -> bool,
) -> Option<Decoded> {
    let description = tool.parameters.get(slot.name).map_or("", String::as_str);
    let of_money = in_currency(description) || in_cents(slot.name, description);
    if !of_money || described_optional(description) {
        return None;
    }
    let sums: Vec<&NumberSpan> = slot
        .spans
        .numbers
        .iter()
        .filter(|number| !taken.iter().any(|span| overlaps(span, &number.bytes)))
        .filter(|number| written_as_money(message, &number.bytes) && usable(number))
        .collect();
    let [sum] = sums.as_slice() else {
        return None;
    };
    // "12.50 dollars" for an integer in cents stays a fraction here, to
    // be rescaled to 1250 as a decoded number would.
    let value = match slot.kind {
        ParamType::Int => sum.text.parse::<i64>().ok().map(Value::from),
        _ => None,
    }
    .or_else(|| sum.text.parse::<f64>().ok().map(Value::from))?;
    Some(Decoded {
        value: Some(value),
        taken: Some(sum.bytes.clone()),
    })
}

/// `values` with each number parameter the message gave no digits for
/// taking a quantity it writes in words with a unit of the parameter's
/// kind ("about an hour" for a length in hours is 1, "three weeks" for a
/// stay in days 21), each quantity once.
fn with_word_quantities(tool: &ToolManifest, message: &str, values: &mut [Option<Value>]) {
    // A unit is written when a count of things may not take the number.
    let has_unit = |after: &str| !unit_fits(after, "count", "Number of things");
    let mut quantities = word_quantities(message, has_unit);
    for (index, (name, description)) in tool.parameters.iter().enumerate() {
        let kind = tool.param_type(name);
        if !matches!(kind, ParamType::Int | ParamType::Float) {
            continue;
        }
        // The parameter is in that unit, or in one the quantity converts to.
        let in_unit = |number: f64, after: &str| {
            let unit = after.split_whitespace().next().unwrap_or("").to_lowercase();
            let unit = unit.trim_end_matches(|c: char| !c.is_alphabetic());
            let stem = unit.strip_suffix('s').unwrap_or(unit);
            let own = format!("{name} {description}").to_lowercase();
            in_described_scale(number, after, name, description)
                .or_else(|| (stem.len() >= 3 && own.contains(stem)).then_some(number))
        };
        // "two" of "two and a half hours" taken alone is the quantity's
        // whole part only.
        let whole_part_of_half = |value: &Value| {
            quantities.iter().any(|(number, end)| {
                number.fract() > 0.0 && in_unit(number.floor(), &message[*end..]) == value.as_f64()
            })
        };
        if values[index]
            .as_ref()
            .is_some_and(|value| !whole_part_of_half(value))
        {
            continue;
        }
        let Some(at) = quantities
            .iter()
            .position(|(number, end)| in_unit(*number, &message[*end..]).is_some())
        else {
            continue;
        };
        let (number, end) = quantities.remove(at);
        let Some(value) = in_unit(number, &message[end..]) else {
            continue;
        };
        values[index] = match kind {
            ParamType::Int if value.fract() == 0.0 => Some(Value::from(value as i64)),
            ParamType::Int => None,
            _ => serde_json::Number::from_f64(value).map(Value::Number),
        };
    }
}

/// The items of candidate `c` for a list: its own when it is an
/// enumeration, else those of an enumeration of the same text ("Ana and
/// Luis" is two attendees).
fn items_of(found: &[Candidate], items: &[Option<Vec<String>>], c: usize) -> Option<Vec<String>> {
    items[c].clone().or_else(|| {
        (0..found.len())
            .filter(|&other| found[other].bytes == found[c].bytes)
            .find_map(|other| items[other].clone())
    })
}

/// `value` written as parameter `name` asks: a list as
/// [`list_as_asked`] writes it, a parameter of a few options takes the
/// one the value names, or the one the message names when no
/// span was given ("a Mexican recipe"), one about a language gets the
/// language the value names as its description asks (日本語: "Japanese")
/// or nothing, one that asks for an `HH:MM`
/// time gets the time written so, and one that asks for a date gets it
/// as its description writes it (see [`crate::route::dates`]); a
/// required date or time the model gave no value (or the tool's only
/// date) takes the one day or time the message names.
fn as_asked(
    tool: &ToolManifest,
    name: &str,
    message: &str,
    value: Option<Value>,
    today: NaiveDate,
) -> Option<Value> {
    let options = param_options(tool, name);
    let description = tool.parameters.get(name).map_or("", String::as_str);
    let language = wants_language(name, description);
    if declared(tool, name) == Some(Kind::List) {
        let listed = list_as_asked(description, &options, message, value);
        return match listed {
            // Each item a language by its name ("speaks Spanish and 中文"),
            // or none.
            Some(Value::Array(items)) if language && options.is_empty() => {
                let languages: Vec<String> = items
                    .iter()
                    .filter_map(Value::as_str)
                    .filter_map(|item| as_language(item, description))
                    .collect();
                (!languages.is_empty()).then(|| Value::from(languages))
            }
            listed => listed,
        };
    }
    match value {
        // A language named in another tongue (ドイツ語) is snapped by its
        // English name.
        Some(Value::String(text)) if !options.is_empty() => {
            let named = language.then(|| language_named(&text)).flatten();
            let english = named.map(str::to_lowercase);
            snap_to_option(english.as_deref().unwrap_or(&text), message, &options)
                .map(Value::String)
        }
        None if !options.is_empty() && tool.param_type(name) == ParamType::String => {
            snap_to_option("", message, &options).map(Value::String)
        }
        Some(Value::String(text)) if language => as_language(&text, description).map(Value::String),
        Some(Value::String(text)) if wants_iso_date(description) => {
            let gone = looks_back(&tool.name, description);
            match as_iso_date(description, &text, message, today, gone) {
                Some(date) => Some(Value::String(date)),
                None => no_date_kept(description, text).map(Value::String),
            }
        }
        None if wants_iso_date(description)
            && (!described_optional(description) || only_date_param(tool)) =>
        {
            let gone = looks_back(&tool.name, description);
            only_named_date(description, message, today, gone).map(Value::String)
        }
        Some(Value::String(text)) if wants_year_month(description) => {
            as_year_month(&text, message, today).map(Value::String)
        }
        Some(Value::String(text)) if wants_clock_time(description) => {
            as_clock_time(&text, message).map(Value::String)
        }
        None if wants_clock_time(description) && !described_optional(description) => {
            only_clock_time(tool, message).map(Value::String)
        }
        // A day alone (来週水曜日, "next Friday") is no publisher or site.
        Some(Value::String(text))
            if !speaks_of_time(name, description) && names_only_a_day(&text, today) =>
        {
            None
        }
        other => other,
    }
}

/// Words of a parameter's name or description that let its text be a day.
const TIMED_PARAM_WORDS: [&str; 9] = [
    "date", "day", "when", "time", "week", "month", "period", "schedule", "deadline",
];

/// Endings of a word that names a time whatever it opens with ("birthday",
/// "today", "bedtime").
const TIMED_ENDINGS: [&str; 4] = ["day", "days", "time", "times"];

/// Whether a parameter's name or description speaks of time: one of its
/// words opens with a word of [`TIMED_PARAM_WORDS`] ("dates", "due_date",
/// "dueDate") or ends as one of [`TIMED_ENDINGS`]. Whole words: a
/// candidate's number is no date.
pub(super) fn speaks_of_time(name: &str, description: &str) -> bool {
    let texts = format!("{} {description}", split_identifier(name)).to_lowercase();
    texts.split(|c: char| !c.is_alphanumeric()).any(|word| {
        TIMED_PARAM_WORDS.iter().any(|stem| word.starts_with(stem))
            || TIMED_ENDINGS.iter().any(|ending| word.ends_with(ending))
    })
}

/// Whether `tool` takes one date only: the day a message names is that
/// one's, optional or not ("paid on Thursday").
fn only_date_param(tool: &ToolManifest) -> bool {
    let dates = tool.parameters.values();
    dates
        .filter(|description| wants_iso_date(description))
        .count()
        == 1
}

/// A number parameter whose description labels its numbers with words
/// ("1 (urgent) to 4 (low)") takes the number the message names by its
/// word, unless the message writes one of the labelled numbers itself.
fn labelled_or_decoded(
    tool: &ToolManifest,
    name: &str,
    message: &str,
    decoded: Option<Value>,
) -> Option<Value> {
    let description = tool.parameters.get(name).map_or("", String::as_str);
    let labels = number_labels(description);
    let (Some(low), Some(high)) = (
        labels.iter().map(|label| label.number).min(),
        labels.iter().map(|label| label.number).max(),
    ) else {
        return decoded;
    };
    let in_range = decoded
        .as_ref()
        .and_then(Value::as_f64)
        .is_some_and(|number| (low as f64..=high as f64).contains(&number));
    if in_range {
        return decoded;
    }
    labelled_number(&labels, message)
        .map(Value::from)
        .or(decoded)
}

/// A number put in the unit or scale its parameter asks for ("2 hours" for
/// a delay in minutes is 120; see [`in_described_scale`]; "€2" for a price
/// in cents is 200), an integer for an integer parameter; `None` when it
/// stays as written. `bytes` is where `message` writes the number.
fn rescaled(
    tool: &ToolManifest,
    name: &str,
    number: &serde_json::Number,
    message: &str,
    bytes: &Range<usize>,
) -> Option<Value> {
    let description = tool.parameters.get(name).map_or("", String::as_str);
    let number = number.as_f64()?;
    let after = &message[bytes.end..];
    // 2時間半 is two and a half hours.
    let half = written_half(after);
    let number = number + half;
    let scaled = in_described_scale(number, after, name, description)
        .or_else(|| percent_as_example_decimal(number, after, description))
        .or_else(|| {
            let major = in_cents(name, description) && meant_in_major_unit(message, bytes);
            major.then(|| (number * 100.0).round())
        })
        .or_else(|| (half > 0.0).then_some(number))?;
    match tool.param_type(name) {
        ParamType::Int if scaled.fract() == 0.0 => Some(Value::from(scaled as i64)),
        ParamType::Int => None,
        _ => serde_json::Number::from_f64(scaled).map(Value::Number),
    }
}

/// The name of `tool`'s parameter at `index` in its manifest.
pub(super) fn param_name(tool: &ToolManifest, index: usize) -> &str {
    tool.parameters
        .get_index(index)
        .map_or("", |(name, _)| name)
}

/// The single kind `name` is declared as, if it is one.
pub(super) fn declared(tool: &ToolManifest, name: &str) -> Option<Kind> {
    tool.parameter_types.get(name)?.conversion()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parameter_speaks_of_time_in_whole_words() {
        assert!(speaks_of_time("due_date", "when it is due"));
        assert!(speaks_of_time("dueDate", ""));
        assert!(speaks_of_time("birthday", "the member's birthday"));
        assert!(speaks_of_time("slot", "the slot's start time, HH:MM"));
        assert!(!speaks_of_time(
            "candidate_number",
            "the candidate's number"
        ));
        assert!(!speaks_of_time("note", "what to update"));
    }

    #[test]
    fn a_length_in_minutes_takes_the_number_written_as_a_time() {
        let tool: ToolManifest = serde_json::from_value(serde_json::json!({
            "name": "log_hike",
            "description": "Records a completed hike.",
            "parameters": {"duration_minutes": "time taken, in minutes", "rating": "from 1 to 5"},
            "parameter_types": {"duration_minutes": "int", "rating": "int"}
        }))
        .unwrap();
        let message = "用了两个小时，打5星";
        let mut spans = MessageSpans::new(message, &tool);
        with_spelled_numbers(&mut spans);
        let slot_words = SlotWords::of(&tool);
        let minutes = "duration_minutes";
        let fits = number_fits(
            &tool,
            message,
            &spans,
            &slot_words,
            minutes,
            "time taken, in minutes",
        );
        let written = |text: &str| {
            spans
                .numbers
                .iter()
                .find(|number| &message[number.bytes.clone()] == text)
                .unwrap()
        };
        assert!(fits(written("两")));
        assert!(!fits(written("5")), "5 stars is no length of time");
        let rating = number_fits(&tool, message, &spans, &slot_words, "rating", "from 1 to 5");
        assert!(rating(written("5")));
    }
}
