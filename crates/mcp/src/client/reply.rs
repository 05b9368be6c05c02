//! A server's `tools/call` result as a [`ToolResult`]: its text as `data`,
//! its images, audio and resources as content, its structured content kept
//! as `structured` and read by the LLM beside the text.

use riverse_tool::{CallFailure, FailureKind, ToolResult, cap_shared};
use rmcp::model::CallToolResult;
use serde_json::Value;

use crate::{FAILURE_META_KEY, content};

/// Between a result's text and its structured content, as the LLM reads them.
const STRUCTURED_HEADING: &str = "\n\nStructured content: ";

/// `result` read; `max_output_bytes` is the cap its text and its structured
/// content share.
pub(crate) fn tool_result(result: CallToolResult, max_output_bytes: usize) -> ToolResult {
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.as_str()))
        .collect();
    let mut text = texts.join("\n");
    // A server that answers only in structured content is read as JSON.
    if let (true, Some(structured)) = (result.content.is_empty(), &result.structured_content) {
        text = structured.to_string();
    }
    let blocks = result
        .content
        .iter()
        .filter_map(content::from_mcp)
        .collect();
    let mut read = if result.is_error == Some(true) {
        // Another Riverse says why; any other server's failure is its own.
        let kind = result
            .meta
            .as_ref()
            .and_then(|meta| meta.get(FAILURE_META_KEY))
            .and_then(|kind| kind.as_str())
            .and_then(FailureKind::from_name);
        ToolResult::from(match kind {
            Some(kind) => CallFailure::Relayed {
                kind,
                message: text,
            },
            None => CallFailure::ToolFailed { message: text },
        })
    } else {
        let structured = result.structured_content.filter(|value| !value.is_null());
        let mut read = ToolResult::ok(with_structured(text, structured.as_ref(), max_output_bytes));
        read.structured = structured;
        read
    };
    read.content = blocks;
    read
}

/// The text the LLM reads of a result: the server's text and its structured
/// content both, each cut where both would not fit in `max_bytes`; the text
/// alone when it says all the content does.
fn with_structured(text: String, structured: Option<&Value>, max_bytes: usize) -> String {
    let Some(structured) = structured else {
        return text;
    };
    let json = structured.to_string();
    if text.is_empty() {
        return json;
    }
    if says_all_of(&text, structured) {
        return text;
    }
    cap_shared(&text, STRUCTURED_HEADING, &json, max_bytes)
}

/// Whether `text` is `structured` written out: its JSON, or the one value
/// it wraps (the Python SDK gives a tool's plain value as `{"result": value}`
/// beside the value as text).
fn says_all_of(text: &str, structured: &Value) -> bool {
    if serde_json::from_str::<Value>(text).is_ok_and(|read| &read == structured) {
        return true;
    }
    let mut members = structured
        .as_object()
        .into_iter()
        .flat_map(|object| object.values());
    match (members.next(), members.next()) {
        (Some(Value::String(only)), None) => only == text,
        (Some(only), None) => serde_json::from_str::<Value>(text).is_ok_and(|read| &read == only),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use rmcp::model::ContentBlock;
    use serde_json::json;

    fn answered(text: &str, structured: Value) -> ToolResult {
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        result.structured_content = Some(structured);
        tool_result(result, 300)
    }

    #[test]
    fn the_text_and_the_structured_content_are_both_read() {
        let read = answered("21.5 degrees in Oslo", json!({"degrees": 21.5}));
        assert_eq!(
            read.data,
            "21.5 degrees in Oslo\n\nStructured content: {\"degrees\":21.5}"
        );
        assert_eq!(read.structured, Some(json!({"degrees": 21.5})));
    }

    #[test]
    fn text_that_is_the_structured_content_already_is_read_once() {
        let read = answered("{\n  \"degrees\": 21.5\n}", json!({"degrees": 21.5}));
        assert_eq!(read.data, "{\n  \"degrees\": 21.5\n}");
        let mut bare = CallToolResult::success(Vec::new());
        bare.structured_content = Some(json!({"degrees": 21.5}));
        assert_eq!(tool_result(bare, 300).data, "{\"degrees\":21.5}");
    }

    #[test]
    fn a_plain_value_the_sdk_wrapped_is_read_once() {
        let read = answered("42", json!({"result": 42}));
        assert_eq!(read.data, "42");
        assert_eq!(read.structured, Some(json!({"result": 42})));
        assert_eq!(answered("ok", json!({"result": "ok"})).data, "ok");
        assert_eq!(
            answered("ok", json!({"result": "ok", "more": 1})).data,
            "ok\n\nStructured content: {\"result\":\"ok\",\"more\":1}"
        );
    }

    #[test]
    fn past_the_cap_each_is_cut_and_marked_never_left_out() {
        let long_text = "t".repeat(400);
        let read = answered(&long_text, json!({"notes": "n".repeat(400)}));
        assert!(read.data.len() <= 300, "{}", read.data.len());
        let (text, structured) = read.data.split_once(STRUCTURED_HEADING).unwrap();
        assert!(
            text.starts_with("ttt") && text.ends_with(" of 400 bytes]"),
            "{text}"
        );
        assert!(
            structured.starts_with("{\"notes\":\"nnn") && structured.ends_with(" of 412 bytes]"),
            "{structured}"
        );
        assert_eq!(read.structured, Some(json!({"notes": "n".repeat(400)})));
    }
}
