//! Values as a message writes them and as a parameter takes them: numbers
//! written in words join those written in digits; a copied span loses the
//! words around the value that are no part of it ("project Atlas" for
//! `project` is Atlas, "some Fleetwood Mac" for a query is Fleetwood Mac,
//! 肉じゃがのレシピ for a recipe tool is 肉じゃが); a unit or a flag's word
//! alone is no text value; and a value the message labels with its
//! parameter's name (`subject "Missing homework"`) is taken whole.

use std::ops::Range;

use riverse_route::lexicon::senses_of;
use riverse_route::script::{is_cjk, mostly_cjk};
use riverse_route::{MessageSpans, NumberSpan, QUOTE_PAIRS, is_unit_name, spelled_numbers};
use riverse_tool::{ParamType, ToolManifest};
use serde_json::Value;

/// `spans` with the numbers its message writes in words ("two adults",
/// 二十四度) beside those in digits, in order, for number parameters to
/// take.
pub(crate) fn with_spelled_numbers(spans: &mut MessageSpans<'_>) {
    let spelled = spelled_numbers(spans.text);
    let digits = std::mem::take(&mut spans.numbers);
    let mut all: Vec<NumberSpan> = spelled
        .into_iter()
        .filter(|word| {
            !digits.iter().any(|digit| {
                word.bytes.start < digit.bytes.end && digit.bytes.start < word.bytes.end
            })
        })
        .collect();
    all.extend(digits);
    all.sort_by_key(|number| number.bytes.start);
    spans.numbers = all;
}

/// Quantifiers that open a phrase without being part of the thing it
/// names ("play some Fleetwood Mac").
const QUANTIFIERS: &[&str] = &["some", "any"];

/// Words after a parameter's own word that make the two one name ("City
/// of London", "Project for Kids").
const BINDING: &[&str] = &["of", "for", "and", "&"];

/// String value `value` of parameter `name` without a first word that
/// names the parameter itself ("project Atlas" for `project`, "hotel
/// H-9902" for `hotel_id`) or is a quantifier ("some Fleetwood Mac");
/// anything else as it is.
pub(crate) fn tidied(name: &str, value: Value) -> Value {
    let Value::String(text) = &value else {
        return value;
    };
    let Some((first, rest)) = text.trim().split_once(' ') else {
        return value;
    };
    let rest = rest.trim_start();
    let next = rest.split_whitespace().next().unwrap_or("").to_lowercase();
    if rest.is_empty() || BINDING.contains(&next.as_str()) {
        return value;
    }
    let first = first.to_lowercase();
    let singular = first.strip_suffix('s').unwrap_or(&first);
    let names_parameter = name.split(['_', '-']).any(|word| {
        word.len() >= 3
            && (word.eq_ignore_ascii_case(&first) || word.eq_ignore_ascii_case(singular))
    });
    // "new monstera" names a monstera; "New York" is a name.
    let fresh = first == "new" && rest.starts_with(|c: char| c.is_lowercase());
    // "the bedroom lamp" names the bedroom lamp; "The Hobbit" is a title,
    // and a sentence keeps its first word.
    let article = text.trim_start().starts_with("the ") && rest.split_whitespace().count() <= 3;
    if names_parameter || fresh || article || QUANTIFIERS.contains(&first.as_str()) {
        Value::String(rest.to_owned())
    } else {
        value
    }
}

/// Whether `value` is no value of text parameter `name` of `tool`: a unit
/// alone ("min" of "under 30 min") for a parameter that is no unit, or a
/// form of a boolean parameter's name ("shuffled" for `shuffle`), which
/// that flag reads.
pub(crate) fn only_a_unit_or_flag(tool: &ToolManifest, name: &str, value: &str) -> bool {
    let description = tool.parameters.get(name).map_or("", String::as_str);
    let own = format!("{name} {description}").to_lowercase();
    if is_unit_name(value) && !own.contains("unit") {
        return true;
    }
    let word = value.trim().to_lowercase();
    if word.contains(char::is_whitespace) || word.len() < 4 {
        return false;
    }
    tool.parameters.keys().any(|flag| {
        let flag = flag.to_lowercase();
        tool.param_type(&flag) == ParamType::Bool
            && flag.len() >= 4
            && (word.starts_with(&flag) || flag.starts_with(&word))
    })
}

/// Particles that join a name to the word after it (肉じゃがのレシピ,
/// 蛋糕的食谱).
const JOINING_PARTICLES: &[char] = &['の', '的'];

/// A Japanese or Chinese value at `bytes` without the words naming the
/// tool that end it (肉じゃがのレシピ for a recipe tool is 肉じゃが,
/// 蛋糕食谱 is 蛋糕); `None` when it ends with none, or is nothing else.
pub(crate) fn without_tool_words(spans: &MessageSpans<'_>, bytes: &Range<usize>) -> Option<String> {
    let text = &spans.text[bytes.clone()];
    if !mostly_cjk(text) {
        return None;
    }
    let mut end = bytes.end;
    // Digits are the value's own ("900割る3"), never a tool's word.
    let tool_byte = |at: usize| {
        spans.trigger.get(at).copied().unwrap_or(false)
            && !spans.text.as_bytes()[at].is_ascii_digit()
    };
    while end > bytes.start && tool_byte(end - 1) {
        end -= 1;
    }
    while !spans.text.is_char_boundary(end) {
        end += 1;
    }
    if end == bytes.end {
        return None;
    }
    let kept = spans.text[bytes.start..end]
        .trim_end_matches(JOINING_PARTICLES)
        .trim_end();
    (!kept.is_empty()).then(|| kept.to_owned())
}

/// What marks a Japanese or Chinese label off from its value (住所は…,
/// 地址是…, 型号：…).
const CJK_LABEL_MARKS: [&str; 5] = ["は", "是", "为", "：", ":"];

/// What ends a value after a CJK label.
const CJK_VALUE_ENDS: &[char] = &['、', '。', '，', ',', '；', ';', '！', '!', '？', '?', '\n'];

/// Words too general to tell one parameter from another by ("serial
/// number" is told by "serial").
const GENERAL_NAME_WORDS: [&str; 5] = ["number", "code", "type", "value", "text"];

/// The value a Japanese or Chinese message writes after a label naming
/// parameter `name` (住所は札幌市中央区…です for `address`, 地址是和平路88号
/// for `address`): the label is a word of the lexicon one of whose senses
/// is a word of the parameter's name, and the value runs to the next
/// punctuation, less a closing です.
pub(crate) fn cjk_labelled_value(message: &str, name: &str) -> Option<String> {
    if !message.chars().any(is_cjk) {
        return None;
    }
    let lower = name.replace(['_', '-'], " ").to_lowercase();
    let all: Vec<&str> = lower
        .split_whitespace()
        .filter(|word| word.len() >= 3)
        .collect();
    let telling: Vec<&str> = match all.iter().any(|word| !GENERAL_NAME_WORDS.contains(word)) {
        true => all
            .iter()
            .copied()
            .filter(|word| !GENERAL_NAME_WORDS.contains(word))
            .collect(),
        false => all,
    };
    let names_param = |label: &str| {
        senses_of(label, message).is_some_and(|senses| {
            senses
                .split_whitespace()
                .any(|sense| telling.contains(&sense))
        })
    };
    for mark in CJK_LABEL_MARKS {
        for (at, _) in message.match_indices(mark) {
            let before: Vec<(usize, char)> = message[..at]
                .char_indices()
                .rev()
                .take_while(|(_, c)| is_cjk(*c))
                .take(LONGEST_LABEL)
                .collect();
            let labelled = before
                .iter()
                .any(|&(start, _)| names_param(&message[start..at]));
            if !labelled {
                continue;
            }
            let rest = &message[at + mark.len()..];
            let value = rest.split(CJK_VALUE_ENDS).next().unwrap_or_default();
            let value = value
                .trim()
                .trim_end_matches("です")
                .trim_end_matches("でした")
                .trim();
            if !value.is_empty() && value.chars().count() <= LONGEST_LABELLED_VALUE {
                return Some(value.to_owned());
            }
        }
    }
    None
}

/// The longest label read before a mark, in characters.
const LONGEST_LABEL: usize = 6;

/// The longest value a CJK label gives, in characters: more is a
/// sentence, no value.
const LONGEST_LABELLED_VALUE: usize = 40;

/// The value the message writes after parameter `name`'s own name as a
/// label: quoted (`subject "Missing homework"`) or after a colon up to the
/// end of the message (`description: for when the city is asleep`).
pub(crate) fn labelled_value(message: &str, name: &str) -> Option<String> {
    let label = name.replace(['_', '-'], " ").to_lowercase();
    if label.len() < 3 {
        return None;
    }
    // ASCII lower case keeps every byte where it was.
    let lower = message.to_ascii_lowercase();
    for (at, _) in lower.match_indices(&label) {
        let starts_word = !lower[..at]
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric);
        let rest = &message[at + label.len()..];
        if !starts_word || rest.starts_with(char::is_alphanumeric) {
            continue;
        }
        let rest = rest.trim_start();
        let (colon, rest) = match rest.strip_prefix([':', '：']) {
            Some(after) => (true, after.trim_start()),
            None => (false, rest),
        };
        if let Some(&(_, close)) = QUOTE_PAIRS.iter().find(|(open, _)| rest.starts_with(*open)) {
            let inner = &rest[rest.chars().next().map_or(0, char::len_utf8)..];
            if let Some(end) = inner.find(close) {
                let quoted = inner[..end].trim();
                if !quoted.is_empty() {
                    return Some(quoted.to_owned());
                }
            }
            continue;
        }
        let value = rest.trim_end();
        if colon && !value.is_empty() {
            return Some(value.to_owned());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cjk_label_gives_the_value_after_it() {
        let address = "除雪の見積もりをお願いします。住所は札幌市中央区北1条西2丁目です。";
        assert_eq!(
            cjk_labelled_value(address, "address").as_deref(),
            Some("札幌市中央区北1条西2丁目")
        );
        assert_eq!(
            cjk_labelled_value("申请拆除许可，地址是和平路88号，申请人李强。", "address")
                .as_deref(),
            Some("和平路88号")
        );
        assert_eq!(
            cjk_labelled_value("機種はParrot Anafi、重さは320グラムです。", "model").as_deref(),
            Some("Parrot Anafi")
        );
        assert_eq!(cjk_labelled_value(address, "plate"), None, "names another");
        assert_eq!(
            cjk_labelled_value("send it to 14 Elm Road", "address"),
            None
        );
    }

    fn tidy(name: &str, value: &str) -> String {
        tidied(name, Value::from(value))
            .as_str()
            .unwrap()
            .to_owned()
    }

    #[test]
    fn a_value_loses_its_parameters_word_and_a_quantifier() {
        assert_eq!(tidy("project", "project Atlas"), "Atlas");
        assert_eq!(tidy("project", "Project Phoenix"), "Phoenix");
        assert_eq!(tidy("query", "some Fleetwood Mac"), "Fleetwood Mac");
        assert_eq!(tidy("city", "City of London"), "City of London");
        assert_eq!(tidy("species", "new monstera"), "monstera");
        assert_eq!(tidy("city", "New York"), "New York");
        assert_eq!(tidy("device_name", "the bedroom lamp"), "bedroom lamp");
        assert_eq!(tidy("title", "The Hobbit"), "The Hobbit");
        assert_eq!(
            tidy("body", "the client call went sideways but Priya saved it"),
            "the client call went sideways but Priya saved it"
        );
        assert_eq!(tidy("project", "project"), "project");
        assert_eq!(tidy("title", "Fix login timeout"), "Fix login timeout");
        assert_eq!(tidied("count", Value::from(3)), Value::from(3));
    }

    #[test]
    fn a_value_labelled_with_the_parameters_name_is_taken_whole() {
        let message = r#"Message Mia's parents, subject "Missing homework", text: "Mia is late.""#;
        assert_eq!(
            labelled_value(message, "subject").as_deref(),
            Some("Missing homework")
        );
        assert_eq!(
            labelled_value(
                "new public playlist 'late night jazz', description: for when the city is asleep",
                "description"
            )
            .as_deref(),
            Some("for when the city is asleep")
        );
        assert_eq!(labelled_value("in project Atlas", "project"), None);
        assert_eq!(labelled_value("the subjects: maths", "subject"), None);
        assert_eq!(labelled_value(message, "body"), None);
    }

    #[test]
    fn a_unit_or_a_flags_word_is_no_text_value() {
        let tool: ToolManifest = serde_json::from_value(serde_json::json!({
            "name": "play_music",
            "description": "Plays music.",
            "parameters": {"query": "what to play", "shuffle": "shuffle the tracks", "unit": "unit"},
            "parameter_types": {"query": "string", "shuffle": "bool", "unit": "string"}
        }))
        .unwrap();
        assert!(only_a_unit_or_flag(&tool, "query", "shuffled"));
        assert!(only_a_unit_or_flag(&tool, "query", "min"));
        assert!(!only_a_unit_or_flag(&tool, "unit", "min"));
        assert!(!only_a_unit_or_flag(&tool, "query", "Fleetwood Mac"));
    }

    #[test]
    fn a_cjk_value_loses_the_tool_words_that_end_it() {
        let tool: ToolManifest = serde_json::from_value(serde_json::json!({
            "name": "scale_recipe",
            "description": "Scales a recipe to a number of servings.",
            "parameters": {"recipe": "the recipe's name"},
        }))
        .unwrap();
        let message = "肉じゃがのレシピを4人分に直して";
        let spans = MessageSpans::new(message, &tool);
        let value = "肉じゃがのレシピ";
        assert_eq!(
            without_tool_words(&spans, &(0..value.len())).as_deref(),
            Some("肉じゃが")
        );
        assert_eq!(without_tool_words(&spans, &(0.."肉じゃが".len())), None);
        let tool: ToolManifest = serde_json::from_value(serde_json::json!({
            "name": "calculator",
            "description": "Evaluate an arithmetic expression such as 12*(3+4)",
            "parameters": {"expression": "The expression to evaluate, e.g. 2*(3+4)"},
            "examples": ["What is 17 * 23?", "Calculate 1200 / 16", "3の2乗は？"],
        }))
        .unwrap();
        let message = "900割る3を計算して";
        let spans = MessageSpans::new(message, &tool);
        assert_eq!(
            without_tool_words(&spans, &(0.."900割る3".len())),
            None,
            "digits stay"
        );
    }

    #[test]
    fn numbers_written_in_words_join_the_digits() {
        let tool = ToolManifest::default();
        let message = "two adults, 3 nights";
        let mut spans = MessageSpans::new(message, &tool);
        with_spelled_numbers(&mut spans);
        let texts: Vec<&str> = spans.numbers.iter().map(|n| n.text.as_str()).collect();
        assert_eq!(texts, ["2", "3"]);
    }
}
