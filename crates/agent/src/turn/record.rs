//! What a turn keeps of each tool call: a [`CallRecord`], how it is made
//! from a call that ran or was refused, and what the model is shown of it.
//! The rest of the turn builds and reads records only through this module.

use std::time::Duration;

use riverse_llm::Image;
use riverse_tool::{Arguments, CallRecord, Content, FailureKind, Params, ToolResult};

use super::asked::AskedCall;

/// The record of a call that ran with `params` and gave `result`.
pub(super) fn ran(
    call_id: &str,
    tool: &str,
    params: &Params,
    result: ToolResult,
    duration: Duration,
) -> CallRecord {
    let params = Arguments::Object(params.clone());
    CallRecord::finished(call_id, tool, params, result, duration)
}

/// The record of `call`, which did not run: it failed with `error`.
pub(super) fn refused(call: &AskedCall, failure: FailureKind, error: String) -> CallRecord {
    let params = call.arguments.recorded();
    let result = ToolResult::failed(failure, error);
    CallRecord::finished(&call.id, &call.tool, params, result, Duration::ZERO)
}

/// The images of a round's calls, as a model that sees images is shown them.
pub(super) fn images(records: &[CallRecord]) -> Vec<Image> {
    records
        .iter()
        .flat_map(|record| {
            record.content.iter().filter_map(|block| match block {
                Content::Image { data, mime_type } => Some(Image {
                    from: format!("the tool \"{}\"", record.tool),
                    mime_type: mime_type.clone(),
                    data: data.clone(),
                }),
                _ => None,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn a_record_serializes_as_ask_json_prints_it() {
        let params = json!({"city": "Tokyo"}).as_object().unwrap().clone();
        let record = ran(
            "c1",
            "weather",
            &params,
            ToolResult::ok("sunny"),
            Duration::from_micros(12_900),
        );
        assert_eq!(
            serde_json::to_value(&record).unwrap(),
            json!({"call_id": "c1", "tool": "weather", "params": {"city": "Tokyo"},
                   "success": true, "data": "sunny", "error": "", "duration_ms": 12})
        );
        let failed = ran(
            "c1",
            "weather",
            &params,
            ToolResult::failed(FailureKind::Timeout, "tool \"weather\" timed out after 1s"),
            Duration::from_secs(1),
        );
        assert_eq!(
            serde_json::to_value(&failed).unwrap()["failure"],
            json!("timeout")
        );
    }
}
