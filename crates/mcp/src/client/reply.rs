//! A server's `tools/call` result as a [`ToolResult`]: its text as `data`,
//! its images, audio and resources as content.

use riverse_tool::{FailureKind, ToolResult};
use rmcp::model::CallToolResult;

use crate::{FAILURE_META_KEY, content};

pub(crate) fn tool_result(result: CallToolResult) -> ToolResult {
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
            .and_then(FailureKind::from_name)
            .unwrap_or(FailureKind::ToolError);
        ToolResult::failed(kind, text)
    } else {
        ToolResult::ok(text)
    };
    read.content = blocks;
    read
}
