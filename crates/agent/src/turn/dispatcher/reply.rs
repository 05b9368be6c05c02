//! Reading the dispatcher's reply: `NONE`, or a JSON array of
//! `{"tool": ..., "params": {...}}`, as models actually write it.
//!
//! Small models wrap the array in code fences, put words around it, answer a
//! single object instead of an array, or write the parameters as a JSON
//! string. All of that is accepted; anything that does not read as a call is
//! dropped, never run.

use serde_json::{Map, Value};

/// One call the dispatcher asked for. Whether the tool exists is the
/// caller's check.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DispatchedCall {
    pub tool: String,
    pub params: Map<String, Value>,
}

/// The calls in `reply`; none for `NONE` or for text with no call in it.
pub(crate) fn parse(reply: &str) -> Vec<DispatchedCall> {
    let reply = without_reasoning(reply);
    let bare = reply
        .trim()
        .trim_matches(|c: char| c == '`' || c == '"' || c == '\'' || c == '.');
    if bare.eq_ignore_ascii_case("none") {
        return Vec::new();
    }
    // The first bracket or brace at which a JSON value that reads as calls
    // begins; trailing text after it is ignored.
    for (start, c) in reply.char_indices() {
        if c != '[' && c != '{' {
            continue;
        }
        let mut values = serde_json::Deserializer::from_str(&reply[start..]).into_iter::<Value>();
        if let Some(Ok(value)) = values.next()
            && let Some(calls) = calls_in(value)
        {
            return calls;
        }
    }
    Vec::new()
}

/// Reasoning models may think aloud in `<think>` before replying.
fn without_reasoning(reply: &str) -> &str {
    match reply.rfind("</think>") {
        Some(end) => &reply[end + "</think>".len()..],
        None => reply,
    }
}

/// `Some` when `value` has the shape of calls: an array of call objects (maybe
/// empty) or one call object.
fn calls_in(value: Value) -> Option<Vec<DispatchedCall>> {
    match value {
        Value::Array(items) => {
            let looks_like_calls =
                items.is_empty() || items.iter().any(|item| call(item).is_some());
            looks_like_calls.then(|| items.iter().filter_map(call).collect())
        }
        Value::Object(_) => call(&value).map(|call| vec![call]),
        _ => None,
    }
}

fn call(item: &Value) -> Option<DispatchedCall> {
    let object = item.as_object()?;
    let tool = ["tool", "name", "function"]
        .iter()
        .find_map(|key| object.get(*key).and_then(Value::as_str))?
        .trim();
    if tool.is_empty() || tool.eq_ignore_ascii_case("none") {
        return None;
    }
    let params = ["params", "parameters", "arguments", "args"]
        .iter()
        .find_map(|key| object.get(*key));
    let params = match params {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(params)) => params.clone(),
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(params)) => params,
            _ => return None,
        },
        Some(_) => return None,
    };
    Some(DispatchedCall {
        tool: tool.to_owned(),
        params,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn calls(reply: &str) -> Vec<(String, Value)> {
        parse(reply)
            .into_iter()
            .map(|call| (call.tool, Value::Object(call.params)))
            .collect()
    }

    fn weather_tokyo() -> Vec<(String, Value)> {
        vec![("weather".into(), json!({"city": "Tokyo"}))]
    }

    #[test]
    fn none_in_its_usual_spellings_means_no_call() {
        for reply in [
            "NONE",
            "none",
            " `NONE` ",
            "\"NONE\".",
            "[]",
            "<think>maybe weather?</think>NONE",
        ] {
            assert_eq!(calls(reply), vec![], "{reply:?}");
        }
    }

    #[test]
    fn a_plain_array_is_read() {
        assert_eq!(
            calls(r#"[{"tool": "weather", "params": {"city": "Tokyo"}}]"#),
            weather_tokyo()
        );
    }

    #[test]
    fn code_fences_and_surrounding_text_are_ignored() {
        let reply = "Sure! Here you go:\n```json\n[{\"tool\": \"weather\", \"params\": {\"city\": \"Tokyo\"}}]\n```\nHope that helps [really].";
        assert_eq!(calls(reply), weather_tokyo());
    }

    #[test]
    fn a_single_object_counts_as_one_call() {
        assert_eq!(
            calls(r#"{"tool": "weather", "params": {"city": "Tokyo"}}"#),
            weather_tokyo()
        );
    }

    #[test]
    fn parameters_may_come_under_other_names_or_as_a_json_string() {
        assert_eq!(
            calls(r#"[{"name": "weather", "arguments": "{\"city\": \"Tokyo\"}"}]"#),
            weather_tokyo()
        );
        assert_eq!(
            calls(r#"[{"tool": "clock"}]"#),
            vec![("clock".into(), json!({}))]
        );
    }

    #[test]
    fn text_that_is_not_a_call_runs_nothing() {
        for reply in [
            "The weather in Tokyo is sunny.",
            "[1, 2, 3]",
            r#"{"answer": "hello"}"#,
            r#"[{"tool": "weather", "params": "Tokyo"}]"#,
            r#"[{"tool": "weather", "params": {"city": "Tok"#,
            "",
        ] {
            assert_eq!(calls(reply), vec![], "{reply:?}");
        }
    }

    #[test]
    fn brackets_in_leading_prose_do_not_hide_the_array() {
        let reply = r#"I [think] this needs: [{"tool": "weather", "params": {"city": "Tokyo"}}]"#;
        assert_eq!(calls(reply), weather_tokyo());
    }

    #[test]
    fn malformed_entries_are_dropped_and_the_rest_kept() {
        let reply = r#"[{"tool": "weather", "params": {"city": "Tokyo"}}, {"oops": 1}, "x"]"#;
        assert_eq!(calls(reply), weather_tokyo());
    }
}
