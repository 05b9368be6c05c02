//! What one call gives back: a [`ToolResult`], and when it failed, why as
//! data ([`FailureKind`]) beside the sentence the LLM reads.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Content;
use crate::approval::ApprovalRecord;

/// Why a call failed. Every source sorts its failures into these, so a
/// client (`--json`, the stream, the store, the page, MCP's `_meta`) can tell
/// a timeout from a tool's own error without reading the sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The tool ran and reported a failure of its own: a Python tool's
    /// `ToolResult(success=False)` or exception, an MCP result with
    /// `isError`, a command's non-zero exit, an HTTP error status.
    ToolError,
    /// The arguments did not fit the tool's manifest, or were not an object.
    BadParameters,
    /// The call ran past its deadline and was stopped.
    Timeout,
    /// What ran the tool died, or its connection broke, during the call.
    Crashed,
    /// The tool could not be run at all: unknown, failed to load, its server
    /// or interpreter could not be started or reached.
    Unavailable,
    /// The tool's output was past the limit and was not read.
    OutputTooLarge,
    /// A rule of the settings refused the call (a redirect to another host,
    /// the call budget of a turn).
    Denied,
}

impl FailureKind {
    pub const ALL: [FailureKind; 7] = [
        FailureKind::ToolError,
        FailureKind::BadParameters,
        FailureKind::Timeout,
        FailureKind::Crashed,
        FailureKind::Unavailable,
        FailureKind::OutputTooLarge,
        FailureKind::Denied,
    ];

    /// The kind a wire name names; `None` for a name this version doesn't know.
    pub fn from_name(name: &str) -> Option<FailureKind> {
        FailureKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == name)
    }

    /// The name on the wire: `tool_error`, `timeout`, ….
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::ToolError => "tool_error",
            FailureKind::BadParameters => "bad_parameters",
            FailureKind::Timeout => "timeout",
            FailureKind::Crashed => "crashed",
            FailureKind::Unavailable => "unavailable",
            FailureKind::OutputTooLarge => "output_too_large",
            FailureKind::Denied => "denied",
        }
    }
}

/// How people read a kind: `timed out`, `bad parameters`, ….
impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FailureKind::ToolError => "tool error",
            FailureKind::BadParameters => "bad parameters",
            FailureKind::Timeout => "timed out",
            FailureKind::Crashed => "crashed",
            FailureKind::Unavailable => "unavailable",
            FailureKind::OutputTooLarge => "output too large",
            FailureKind::Denied => "denied",
        })
    }
}

/// The outcome of one call. `data` is what the LLM reads; `error` and
/// `failure` matter only when `success` is false.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolResult {
    pub success: bool,
    pub data: String,
    #[serde(default)]
    pub error: String,
    /// Why the call failed; `None` when it succeeded. A failed result read
    /// without one (a Python tool's own) is a [`FailureKind::ToolError`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<FailureKind>,
    /// Images, audio and files beside `data`, in the tool's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub content: Vec<Content>,
    /// The result as data, beside `data`'s text: checked against the
    /// manifest's `output_schema` when it has one (MCP's `structuredContent`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
    /// How the call was let through or kept back, when its approval policy
    /// asked, refused, or let it run by a rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<ApprovalRecord>,
    /// What the hooks decided, in the order they ran; empty when none
    /// decided anything.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<crate::HookRecord>,
}

impl ToolResult {
    pub fn ok(data: impl Into<String>) -> Self {
        ToolResult {
            success: true,
            data: data.into(),
            error: String::new(),
            failure: None,
            content: Vec::new(),
            structured: None,
            approval: None,
            hooks: Vec::new(),
        }
    }

    /// A failure the tool reported itself.
    pub fn tool_error(error: impl Into<String>) -> Self {
        ToolResult::failed(FailureKind::ToolError, error)
    }

    /// A failure of the given kind, with the sentence that explains it.
    pub fn failed(kind: FailureKind, error: impl Into<String>) -> Self {
        ToolResult {
            success: false,
            data: String::new(),
            error: error.into(),
            failure: Some(kind),
            content: Vec::new(),
            structured: None,
            approval: None,
            hooks: Vec::new(),
        }
    }

    /// Leaves out the content blocks past `max_bytes` in all, saying in
    /// `data` what was left out.
    pub fn cap_content(&mut self, max_bytes: usize) {
        let mut kept = 0usize;
        let mut left_out = Vec::new();
        self.content.retain(|block| {
            let size = block.size();
            if kept.saturating_add(size) <= max_bytes {
                kept += size;
                true
            } else {
                left_out.push(block.summary());
                false
            }
        });
        for summary in left_out {
            if !self.data.is_empty() {
                self.data.push('\n');
            }
            self.data.push_str(&format!(
                "{summary} left out: a result carries at most {} of content",
                crate::human_size(max_bytes)
            ));
        }
    }

    /// A successful result with structured content and no text reads as
    /// the content's JSON, for whoever reads only text: the LLM, an MCP
    /// client that reads no `structuredContent`.
    pub fn text_from_structured(&mut self) {
        if self.success
            && self.data.is_empty()
            && let Some(structured) = &self.structured
        {
            self.data = structured.to_string();
        }
    }

    /// Why the call failed, `None` when it succeeded.
    pub fn failure_kind(&self) -> Option<FailureKind> {
        (!self.success).then(|| self.failure.unwrap_or(FailureKind::ToolError))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn a_kind_is_written_on_the_wire_as_its_name() {
        for kind in FailureKind::ALL {
            assert_eq!(json!(kind), json!(kind.as_str()));
            assert_eq!(FailureKind::from_name(kind.as_str()), Some(kind));
            assert_eq!(
                serde_json::from_value::<FailureKind>(json!(kind.as_str())).unwrap(),
                kind
            );
        }
    }

    #[test]
    fn a_name_no_kind_has_is_none() {
        assert_eq!(FailureKind::from_name("exploded"), None);
        assert_eq!(FailureKind::from_name("Timeout"), None);
    }

    #[test]
    fn a_failed_result_read_without_a_kind_is_a_tool_error() {
        let read: ToolResult =
            serde_json::from_value(json!({"success": false, "data": "", "error": "no"})).unwrap();
        assert_eq!(read.failure_kind(), Some(FailureKind::ToolError));
        assert_eq!(ToolResult::ok("yes").failure_kind(), None);
        assert_eq!(
            json!(ToolResult::failed(FailureKind::Timeout, "late")),
            json!({"success": false, "data": "", "error": "late", "failure": "timeout"})
        );
        assert_eq!(
            json!(ToolResult::ok("yes")),
            json!({"success": true, "data": "yes", "error": ""})
        );
    }

    #[test]
    fn a_structured_result_is_written_only_when_there_is_one_and_reads_as_text_without_any() {
        let mut result = ToolResult::ok("");
        assert_eq!(json!(result).get("structured"), None);
        result.structured = Some(json!({"degrees": 21.5}));
        assert_eq!(json!(result)["structured"], json!({"degrees": 21.5}));
        result.text_from_structured();
        assert_eq!(result.data, r#"{"degrees":21.5}"#);
        let mut spoken = ToolResult::ok("21.5 degrees");
        spoken.structured = Some(json!({"degrees": 21.5}));
        spoken.text_from_structured();
        assert_eq!(spoken.data, "21.5 degrees");
    }

    #[test]
    fn content_past_the_cap_is_left_out_and_said_in_data() {
        let mut result = ToolResult::ok("drawn");
        result.content = vec![
            Content::image(&[1; 600], "image/png"),
            Content::image(&[2; 600], "image/jpeg"),
            Content::image(&[3; 300], "image/gif"),
        ];
        result.cap_content(1000);
        assert_eq!(
            result.content,
            [
                Content::image(&[1; 600], "image/png"),
                Content::image(&[3; 300], "image/gif")
            ]
        );
        assert_eq!(
            result.data,
            "drawn\n[image image/jpeg, 600 B] left out: a result carries at most 1.0 KB of content"
        );
    }
}
