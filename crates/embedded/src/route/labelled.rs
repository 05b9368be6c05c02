//! Values the message marks as a parameter's: by the parameter's name as
//! a label (`subject "Missing homework"`, 住所は…), or by a form of their
//! own (a postcode, a currency), and an optional option said in passing
//! ("Email is fine").

use riverse_route::lexicon::english_words;
use riverse_route::{
    Candidate, address_through, coordinates, currency_code, currency_mentions, described_optional,
    options_named, param_options, postcode_districts, postcodes, wants_currency_code,
};
use riverse_tool::{Kind, ParamType, ToolManifest};
use serde_json::Value;

use crate::route::fill::{declared, speaks_of_time};
use crate::route::written::{cjk_labelled_value, labelled_value};

/// `values` with each text parameter (no list, no options) that the
/// message labels with its name taking the value written after the label
/// (see [`labelled_value`]).
pub(super) fn with_labelled_values(
    tool: &ToolManifest,
    message: &str,
    values: &mut [Option<Value>],
) {
    for (index, name) in tool.parameters.keys().enumerate() {
        let text = tool.param_type(name) == ParamType::String
            && declared(tool, name).is_none_or(|kind| kind == Kind::String)
            && param_options(tool, name).is_empty();
        if !text {
            continue;
        }
        let description = tool.parameters.get(name).map_or("", String::as_str);
        // A day or a time is read as written wherever it stands.
        let cjk =
            || cjk_labelled_value(message, name).filter(|_| !speaks_of_time(name, description));
        if let Some(value) = labelled_value(message, name).or_else(cjk) {
            values[index] = Some(Value::String(value));
        }
    }
}

/// A parameter of a postcode takes the one postcode the message writes,
/// whole ("OX4 2JY", which the spans may cut at its space), or else the
/// one district it writes alone ("NW3"). A parameter of an address takes
/// the whole address that ends with it ("27 Cedar Close, Reading RG1
/// 5PX"), where the message writes one.
pub(super) fn with_postcodes(tool: &ToolManifest, message: &str, values: &mut [Option<Value>]) {
    let whole = postcodes(message);
    // A district alone is less sure than the model's place ("Clapham").
    let (found, given_kept) = match whole.is_empty() {
        true => (postcode_districts(message), true),
        false => (whole, false),
    };
    let [postcode] = &found[..] else {
        return;
    };
    let address = (!given_kept)
        .then(|| address_through(message, postcode))
        .flatten();
    let form = Form {
        value: &message[postcode.clone()],
        phrases: &["post code"],
        words: &["postcode", "postal", "zip", "zipcode"],
        given_kept,
    };
    // The postcode, or a piece of it, is no other parameter's value ("OX4
    // 1DD" is no delivery address).
    let filled = form.fill(tool, values);
    if !filled.is_empty() {
        for (index, value) in values.iter_mut().enumerate() {
            let piece = |text: &str| {
                let text = text.trim();
                text == form.value || form.value.split_whitespace().any(|part| part == text)
            };
            if !filled.contains(&index) && value.as_ref().and_then(Value::as_str).is_some_and(piece)
            {
                *value = None;
            }
        }
    }
    // A postcode alone is no address ("Sam Reid, OX4 1DD").
    let Some(address) = address.filter(|address| address != postcode) else {
        return;
    };
    // The one parameter named for an address (of two, which is which is
    // the model's to say).
    let addressed: Vec<usize> = tool
        .parameters
        .keys()
        .enumerate()
        .filter(|(_, name)| {
            name.to_lowercase().contains("address") && tool.param_type(name) == ParamType::String
        })
        .map(|(index, _)| index)
        .collect();
    if let [index] = addressed[..] {
        values[index] = Some(Value::from(&message[address]));
    }
}

/// A parameter of a place that may be written as coordinates takes the one
/// latitude and longitude the message writes ("51.5072,-0.1276").
pub(super) fn with_coordinates(tool: &ToolManifest, message: &str, values: &mut [Option<Value>]) {
    let [pair] = &coordinates(message)[..] else {
        return;
    };
    let form = Form {
        value: &message[pair.clone()],
        phrases: &[],
        words: &["latitude", "coordinates", "lat"],
        given_kept: false,
    };
    form.fill(tool, values);
}

/// A value written in a form of its own, and how a parameter says it
/// takes that form.
struct Form<'a> {
    value: &'a str,
    phrases: &'a [&'a str],
    words: &'a [&'a str],
    /// A value the parameter already has stays.
    given_kept: bool,
}

impl Form<'_> {
    /// `values` with each text parameter whose name or description says
    /// one of the form's phrases or words taking its value.
    fn fill(&self, tool: &ToolManifest, values: &mut [Option<Value>]) -> Vec<usize> {
        let mut filled = Vec::new();
        for (index, (name, description)) in tool.parameters.iter().enumerate() {
            let said = format!("{} {}", name.replace('_', " "), description).to_lowercase();
            let of_form = self.phrases.iter().any(|phrase| said.contains(phrase))
                || said
                    .split(|c: char| !c.is_alphanumeric())
                    .any(|word| self.words.contains(&word));
            let open = !self.given_kept || values[index].is_none();
            if of_form && open && tool.param_type(name) == ParamType::String {
                values[index] = Some(Value::from(self.value));
                filled.push(index);
            }
        }
        filled
    }
}

/// `values` with each parameter that asks for a currency code given the
/// code of the currency its value names or, when it names none, of the
/// next currency the message names that no earlier such parameter took
/// ("250 dollars in euros": from USD, to EUR); left out when none is left.
pub(super) fn with_currency_codes(
    tool: &ToolManifest,
    message: &str,
    values: &mut [Option<Value>],
) {
    let wanting: Vec<usize> = tool
        .parameters
        .iter()
        .enumerate()
        .filter(|(_, (name, description))| {
            tool.param_type(name) == ParamType::String
                && declared(tool, name) != Some(Kind::List)
                && wants_currency_code(description)
        })
        .map(|(index, _)| index)
        .collect();
    if wanting.is_empty() {
        return;
    }
    let mentions = currency_mentions(message);
    let mut taken: Vec<&str> = Vec::new();
    for index in wanting {
        let own = values[index]
            .as_ref()
            .and_then(Value::as_str)
            .and_then(currency_code);
        let code = own.or_else(|| {
            mentions
                .iter()
                .map(|(_, code)| *code)
                .find(|code| !taken.contains(code))
        });
        taken.extend(code);
        values[index] = code.map(|code| Value::String(code.to_owned()));
    }
}

/// Options that name no choice of their own when a message says the word
/// ("the other day", "any time").
const VAGUE_OPTIONS: [&str; 10] = [
    "other", "none", "all", "any", "default", "standard", "normal", "regular", "yes", "no",
];

/// `values` with each required parameter of a few options taking the one
/// option the message names ("battery swap on FL-21" for an action of
/// `charge` or `swap`) before spans are weighed, so that a span holding
/// the option and more ("swap on FL-21") is not taken for it. Left to the
/// spans where the message names several, or another parameter lists the
/// same option (`from_unit`, `to_unit`).
pub(super) fn with_named_options(tool: &ToolManifest, message: &str, values: &mut [Option<Value>]) {
    let options: Vec<Vec<String>> = tool
        .parameters
        .keys()
        .map(|name| param_options(tool, name))
        .collect();
    for (index, (name, description)) in tool.parameters.iter().enumerate() {
        if values[index].is_some()
            || described_optional(description)
            || tool.param_type(name) != ParamType::String
            || declared(tool, name) == Some(Kind::List)
        {
            continue;
        }
        if let [option] = &options_named(message, &options[index])[..]
            && !VAGUE_OPTIONS.contains(&option.to_lowercase().as_str())
            && !options
                .iter()
                .enumerate()
                .any(|(other, listed)| other != index && listed.contains(option))
        {
            values[index] = Some(Value::from(option.clone()));
        }
    }
}

/// `found` without the candidates that hold a value already given (an
/// option [`with_named_options`] took): it is no other parameter's value,
/// nor part of one ("shingles vaccine" as a condition once `shingles` is
/// the vaccine). A token that holds the option and more is another value
/// ("p60_2026.pdf" of a `p60` document).
pub(super) fn without_named_options(found: &mut Vec<Candidate>, values: &[Option<Value>]) {
    let words = |text: &str| -> Vec<String> {
        text.to_lowercase()
            .split(|c: char| c.is_whitespace() || ",;:!?()\"'、，。".contains(c))
            .map(|word| word.trim_end_matches('.'))
            .filter(|word| !word.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let named: Vec<Vec<String>> = values
        .iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(words)
        .filter(|named| !named.is_empty())
        .collect();
    found.retain(|candidate| {
        let held = words(&candidate.value);
        !named
            .iter()
            .any(|named| named.iter().all(|word| held.contains(word)))
    });
}

/// `values` with each optional parameter of a few options that is still
/// open taking the one option the message names ("Email is fine" for a
/// delivery by `email` or `post`; 郵送で for `post`), where it names one
/// only and no other parameter took it.
pub(super) fn with_said_options(tool: &ToolManifest, message: &str, values: &mut [Option<Value>]) {
    for (index, (name, description)) in tool.parameters.iter().enumerate() {
        if values[index].is_some()
            || !described_optional(description)
            || tool.param_type(name) != ParamType::String
            || declared(tool, name) == Some(Kind::List)
        {
            continue;
        }
        let options = param_options(tool, name);
        if options.is_empty() {
            continue;
        }
        let mut named = options_named(message, &options);
        if named.is_empty() && message.chars().any(riverse_route::script::is_cjk) {
            named = options_named(&english_words(message), &options);
        }
        let taken = |option: &String| {
            values
                .iter()
                .flatten()
                .any(|value| value.as_str() == Some(option))
        };
        if let [option] = &named[..]
            && !VAGUE_OPTIONS.contains(&option.to_lowercase().as_str())
            && !taken(option)
        {
            values[index] = Some(Value::from(option.clone()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_tools::tool;
    use serde_json::json;

    #[test]
    fn an_optional_option_said_in_passing_is_taken() {
        let request = tool(
            "request_certificate",
            "Requests a copy of a certificate.",
            &[
                (
                    "certificate_type",
                    "one of: baptism, confirmation, marriage",
                ),
                ("full_name", "full name of the person on the certificate"),
                ("delivery", "optional; one of: post, email, collect"),
            ],
        );
        let said = |message: &str, kind: &str| {
            let mut values = vec![Some(json!(kind)), Some(json!("Ann Lee")), None];
            with_said_options(&request, message, &mut values);
            values[2].clone()
        };
        assert_eq!(
            said(
                "a copy of my baptism certificate please. Email is fine.",
                "baptism"
            ),
            Some(json!("email"))
        );
        assert_eq!(
            said("结婚证明书，邮寄就行", "marriage"),
            Some(json!("post"))
        );
        assert_eq!(
            said("a copy of my baptism certificate please", "baptism"),
            None
        );
        assert_eq!(
            said(
                "I need a copy of my baptism certificate for marriage prep. Daniel Kowalczyk, baptised 3 May 1991. Email is fine.",
                "baptism"
            ),
            Some(json!("email"))
        );
        assert_eq!(said("email or post, either is fine", "baptism"), None);
    }

    #[test]
    fn a_required_option_named_once_is_taken_before_spans() {
        let battery = tool(
            "log_battery_charge",
            "Logs a forklift battery charge or swap.",
            &[
                ("truck_id", "id of the truck"),
                ("action", "one of: charge, swap"),
            ],
        );
        let named = |message: &str| {
            let mut values = vec![None, None];
            with_named_options(&battery, message, &mut values);
            values[1].clone()
        };
        assert_eq!(
            named("battery swap on FL-21, it was at 18%"),
            Some(json!("swap"))
        );
        assert_eq!(named("charge or swap FL-21?"), None, "two options named");
        let mut found = vec![
            Candidate {
                value: "shingles vaccine".to_owned(),
                bytes: 14..30,
                shape: None,
            },
            Candidate {
                value: "68".to_owned(),
                bytes: 36..38,
                shape: None,
            },
        ];
        found.push(Candidate {
            value: "shingles_record.pdf".to_owned(),
            bytes: 40..59,
            shape: None,
        });
        without_named_options(&mut found, &[Some(json!("shingles")), None]);
        let kept: Vec<&str> = found.iter().map(|c| c.value.as_str()).collect();
        assert_eq!(kept, ["68", "shingles_record.pdf"]);
        let convert = tool(
            "convert",
            "Converts units.",
            &[
                ("from_unit", "one of: km, mi"),
                ("to_unit", "one of: km, mi"),
            ],
        );
        let mut values = vec![None, None];
        with_named_options(&convert, "how far is 5 km", &mut values);
        assert_eq!(values, [None, None], "another parameter lists the option");
    }
}
