//! One tool call from its start to its end, as every front end shows it and
//! the store keeps it: [`CallRecord`]. A call's outcome is declared here
//! once; the turn produces it, `riverse ask --json`, the stream's
//! `tool_call.finished`, the store, the page and traces read it.

use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::approval::{ApprovalRecord, Decision};
use crate::{Content, FailureKind, LogLine, ToolResult};

/// A call's arguments as the model sent them: an object, or its text when
/// it was not one (the call then fails as `bad_parameters`, and the text is
/// kept to show what the model wrote). On the wire: the object, or a string.
#[derive(Debug, Clone, PartialEq)]
pub enum Arguments {
    Object(Map<String, Value>),
    Text(String),
}

impl Arguments {
    /// A parsed value: an object as it is, anything else as its JSON text.
    pub fn from_value(value: Value) -> Arguments {
        match value {
            Value::Object(object) => Arguments::Object(object),
            Value::String(text) => Arguments::Text(text),
            other => Arguments::Text(other.to_string()),
        }
    }

    /// The model's text: an object when it reads as one, else the text.
    pub fn from_text(text: &str) -> Arguments {
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(object)) => Arguments::Object(object),
            _ => Arguments::Text(text.to_owned()),
        }
    }

    /// As JSON: the object, or the text as a string.
    pub fn to_value(&self) -> Value {
        match self {
            Arguments::Object(object) => Value::Object(object.clone()),
            Arguments::Text(text) => Value::String(text.clone()),
        }
    }

    /// As a model writes them: the object as JSON text, or the model's text.
    pub fn text(&self) -> String {
        match self {
            Arguments::Object(object) => Value::Object(object.clone()).to_string(),
            Arguments::Text(text) => text.clone(),
        }
    }

    pub fn as_object(&self) -> Option<&Map<String, Value>> {
        match self {
            Arguments::Object(object) => Some(object),
            Arguments::Text(_) => None,
        }
    }
}

impl Default for Arguments {
    fn default() -> Self {
        Arguments::Object(Map::new())
    }
}

impl Serialize for Arguments {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Arguments::Object(object) => object.serialize(serializer),
            Arguments::Text(text) => text.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Arguments {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(Arguments::from_value)
    }
}

/// How a call's approval stands: waiting for a person's yes (with the
/// question its answer is posted to), then what was decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallApproval {
    /// `None` while pending.
    pub decision: Option<Decision>,
    /// The settings key that asked, refused or allowed.
    pub rule: String,
    /// While pending: the question the answer is posted to
    /// (`/v1/riverse/questions/{id}`) and when it expires, in milliseconds
    /// since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline: Option<i64>,
}

impl CallApproval {
    /// A call that waits for its answer to question `question_id`.
    pub fn pending(rule: &str, question_id: &str, deadline: i64) -> Self {
        CallApproval {
            decision: None,
            rule: rule.to_owned(),
            question_id: Some(question_id.to_owned()),
            deadline: Some(deadline),
        }
    }

    pub fn decided(record: &ApprovalRecord) -> Self {
        CallApproval {
            decision: Some(record.decision),
            rule: record.rule.clone(),
            question_id: None,
            deadline: None,
        }
    }
}

/// One tool call. While it runs, `success` and `duration_ms` are `None`
/// (`null` on the wire) and the outcome fields are empty.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    /// The model's id for the call (the first one, when identical calls ran once).
    pub call_id: String,
    pub tool: String,
    pub params: Arguments,
    /// `None` while the call runs.
    #[serde(default)]
    pub success: Option<bool>,
    /// What the LLM reads of a call that succeeded.
    #[serde(default)]
    pub data: String,
    /// Why a failed call failed, in the sentence the LLM reads.
    #[serde(default)]
    pub error: String,
    /// Why the call failed, as data; absent when it succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<FailureKind>,
    /// Images, audio and files the call returned beside its data.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub content: Vec<Content>,
    /// The tool's structured result, checked against its output schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
    /// How the call was let through or kept back, when its approval asked,
    /// refused, or let it run by a rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<CallApproval>,
    /// What hooks (`agent/hooks/`) decided about the call, in order: a
    /// denial, an ask and its answer, a rewrite, a replaced result, a hook
    /// that failed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<crate::HookRecord>,
    /// What the call logged while it ran, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub logs: Vec<LogLine>,
    /// How long it ran; `None` while it runs.
    #[serde(default)]
    pub duration_ms: Option<u64>,
}

impl CallRecord {
    /// A call that has just started.
    pub fn started(call_id: impl Into<String>, tool: impl Into<String>, params: Arguments) -> Self {
        CallRecord {
            call_id: call_id.into(),
            tool: tool.into(),
            params,
            success: None,
            data: String::new(),
            error: String::new(),
            failure: None,
            content: Vec::new(),
            structured: None,
            approval: None,
            hooks: Vec::new(),
            logs: Vec::new(),
            duration_ms: None,
        }
    }

    /// The call ended with `result` after `ran`.
    pub fn finish(&mut self, result: ToolResult, ran: Duration) {
        self.failure = result.failure_kind();
        self.success = Some(result.success);
        self.data = result.data;
        self.error = result.error;
        self.content = result.content;
        self.structured = result.structured;
        self.approval = result.approval.as_ref().map(CallApproval::decided);
        self.hooks = result.hooks;
        self.duration_ms = Some(u64::try_from(ran.as_millis()).unwrap_or(u64::MAX));
    }

    /// A started call that ended with `result` after `ran`.
    pub fn finished(
        call_id: impl Into<String>,
        tool: impl Into<String>,
        params: Arguments,
        result: ToolResult,
        ran: Duration,
    ) -> Self {
        let mut record = CallRecord::started(call_id, tool, params);
        record.finish(result, ran);
        record
    }

    /// A call whose process went away before it ended (its server stopped).
    pub fn interrupt(&mut self, reason: &str) {
        self.success = Some(false);
        self.error = reason.to_owned();
        self.failure = Some(FailureKind::Crashed);
    }

    /// Whether it ended and succeeded.
    pub fn succeeded(&self) -> bool {
        self.success == Some(true)
    }

    pub fn is_running(&self) -> bool {
        self.success.is_none()
    }

    /// How long it ran; zero while it runs.
    pub fn duration(&self) -> Duration {
        Duration::from_millis(self.duration_ms.unwrap_or(0))
    }

    /// What the LLM reads of the call: its data, or why it failed.
    pub fn text(&self) -> &str {
        if self.succeeded() {
            &self.data
        } else {
            &self.error
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn arguments_are_an_object_or_the_text_the_model_wrote() {
        assert_eq!(
            json!(Arguments::from_text(r#"{"city": "Oslo"}"#)),
            json!({"city": "Oslo"})
        );
        assert_eq!(
            json!(Arguments::from_text("Oslo, please")),
            json!("Oslo, please")
        );
        assert_eq!(json!(Arguments::from_text("[1, 2]")), json!("[1, 2]"));
        let read: Arguments = serde_json::from_value(json!("not json")).unwrap();
        assert_eq!(read, Arguments::Text("not json".into()));
    }

    #[test]
    fn a_running_call_has_no_outcome_yet() {
        let record = CallRecord::started("c1", "weather", Arguments::from_text("{}"));
        assert!(record.is_running());
        assert_eq!(
            json!(record),
            json!({"call_id": "c1", "tool": "weather", "params": {}, "success": null,
                   "data": "", "error": "", "duration_ms": null})
        );
    }

    #[test]
    fn a_finished_call_reads_back_as_it_was_written() {
        let mut result = ToolResult::failed(FailureKind::Timeout, "weather timed out after 5s");
        result.approval = Some(ApprovalRecord {
            decision: Decision::Approved,
            rule: "tools.weather.approval".into(),
        });
        let record = CallRecord::finished(
            "c1",
            "weather",
            Arguments::from_text(r#"{"n": 123456789012345678901234567890}"#),
            result,
            Duration::from_millis(5001),
        );
        let text = serde_json::to_string(&record).unwrap();
        assert!(text.contains("123456789012345678901234567890"), "{text}");
        let read: CallRecord = serde_json::from_str(&text).unwrap();
        assert_eq!(read, record);
        assert_eq!(read.failure, Some(FailureKind::Timeout));
        assert_eq!(read.text(), "weather timed out after 5s");
    }

    #[test]
    fn an_interrupted_call_is_a_crash() {
        let mut record = CallRecord::started("c1", "slow", Arguments::default());
        record.interrupt("the server stopped");
        assert_eq!(record.success, Some(false));
        assert_eq!(record.failure, Some(FailureKind::Crashed));
    }

    /// The fields docs/serving.md lists under "A tool call", in order.
    fn documented_fields() -> Vec<String> {
        let page = include_str!("../../../docs/serving.md");
        let table = page
            .split("### A tool call")
            .nth(1)
            .expect("docs/serving.md has a section \"A tool call\"");
        table
            .lines()
            .skip_while(|line| !line.starts_with("| field"))
            .skip(2)
            .take_while(|line| line.starts_with('|'))
            .map(|line| line.split('`').nth(1).unwrap_or_default().to_owned())
            .collect()
    }

    #[test]
    fn the_docs_list_every_field_of_a_record() {
        let mut result = ToolResult::failed(FailureKind::ToolError, "no");
        result.content = vec![Content::image(b"png", "image/png")];
        result.structured = Some(json!({"n": 1}));
        result.approval = Some(ApprovalRecord {
            decision: Decision::Allowed,
            rule: "tools.t.approval".into(),
        });
        result.hooks = vec![crate::HookRecord {
            hook: "policy.py:Policy".into(),
            decision: crate::HookDecision::Denied,
            reason: "not on Fridays".into(),
        }];
        let mut record =
            CallRecord::finished("c1", "t", Arguments::default(), result, Duration::ZERO);
        record.logs = vec![LogLine {
            level: crate::LogLevel::Info,
            message: "hi".into(),
        }];
        let written: Vec<String> = json!(record).as_object().unwrap().keys().cloned().collect();
        assert_eq!(documented_fields(), written);
    }

    fn pretty(record: &CallRecord) -> String {
        serde_json::to_string_pretty(record).unwrap()
    }

    #[test]
    fn the_shapes_clients_see() {
        let running = CallRecord::started("c1", "weather", Arguments::from_text("{city: Oslo"));
        insta::assert_snapshot!(pretty(&running), @r#"
        {
          "call_id": "c1",
          "tool": "weather",
          "params": "{city: Oslo",
          "success": null,
          "data": "",
          "error": "",
          "duration_ms": null
        }
        "#);
        let mut waiting = running.clone();
        waiting.approval = Some(CallApproval::pending(
            "tools.weather.approval",
            "q_1",
            1_700_000,
        ));
        insta::assert_snapshot!(pretty(&waiting), @r#"
        {
          "call_id": "c1",
          "tool": "weather",
          "params": "{city: Oslo",
          "success": null,
          "data": "",
          "error": "",
          "approval": {
            "decision": null,
            "rule": "tools.weather.approval",
            "question_id": "q_1",
            "deadline": 1700000
          },
          "duration_ms": null
        }
        "#);
        let mut result = ToolResult::ok("Oslo: 4°C");
        result.content = vec![Content::image(b"png", "image/png")];
        let sunny = CallRecord::finished(
            "c2",
            "weather",
            Arguments::from_text(r#"{"city": "Oslo"}"#),
            result,
            Duration::from_millis(42),
        );
        insta::assert_snapshot!(pretty(&sunny), @r#"
        {
          "call_id": "c2",
          "tool": "weather",
          "params": {
            "city": "Oslo"
          },
          "success": true,
          "data": "Oslo: 4°C",
          "error": "",
          "content": [
            {
              "type": "image",
              "data": "cG5n",
              "mime_type": "image/png"
            }
          ],
          "duration_ms": 42
        }
        "#);
        let mut refused = ToolResult::failed(FailureKind::Denied, "the settings refuse it");
        refused.approval = Some(ApprovalRecord {
            decision: Decision::Denied,
            rule: "tools.shell.approval".into(),
        });
        let denied =
            CallRecord::finished("c3", "shell", Arguments::default(), refused, Duration::ZERO);
        insta::assert_snapshot!(pretty(&denied), @r#"
        {
          "call_id": "c3",
          "tool": "shell",
          "params": {},
          "success": false,
          "data": "",
          "error": "the settings refuse it",
          "failure": "denied",
          "approval": {
            "decision": "denied",
            "rule": "tools.shell.approval"
          },
          "duration_ms": 0
        }
        "#);
    }
}
