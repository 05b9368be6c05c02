//! What the model reads for one tool call: the result's data and content, or
//! the sentence that says why the call failed or did not run.

use riverse_tool::ToolResult;

use crate::Language;

use super::prompts;

/// What the model reads for one tool call.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ToolReply {
    pub content: String,
    pub failed: bool,
}

impl ToolReply {
    pub(crate) fn of(
        language: Language,
        tool: &str,
        result: &ToolResult,
        max_bytes: usize,
    ) -> Self {
        if result.success {
            ToolReply {
                content: readable(result, max_bytes),
                failed: false,
            }
        } else {
            ToolReply::failure(prompts::tool_failed(language, tool, &result.error))
        }
    }

    pub(crate) fn failure(content: String) -> Self {
        ToolReply {
            content,
            failed: true,
        }
    }
}

/// A result as a model reads it: its data, then each content block's text
/// (a text resource) or the line that names it (`[image image/png, 12.3 KB]`).
/// The text resources together are cut to `max_bytes`, like `data`.
fn readable(result: &ToolResult, max_bytes: usize) -> String {
    let mut text = result.data.clone();
    let mut resource_bytes_left = max_bytes;
    for block in &result.content {
        if !text.is_empty() {
            text.push('\n');
        }
        match block.text() {
            Some(resource_text) => {
                let kept = riverse_tool::cap_output(resource_text.to_owned(), resource_bytes_left);
                resource_bytes_left = resource_bytes_left.saturating_sub(kept.len());
                text.push_str(&kept);
            }
            None => text.push_str(&block.summary()),
        }
    }
    text
}
