//! What a tool says and asks while it runs, as a front end receives it:
//! progress, log lines, questions and their answers, sample requests.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::approval::ApprovalRequest;

/// A log line's severity: MCP's (syslog's) eight levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogLevel {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

impl LogLevel {
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The level a name names (`warn` too); `None` for an unknown one.
    pub fn from_name(name: &str) -> Option<LogLevel> {
        let name = name.trim().to_ascii_lowercase();
        if name == "warn" {
            return Some(LogLevel::Warning);
        }
        LogLevel::ALL
            .into_iter()
            .find(|level| level.as_str() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }
}

/// `self.progress(progress, total, message)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub progress: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl Progress {
    pub(crate) fn is_complete(&self) -> bool {
        // NaN compares false: never complete.
        self.total.is_some_and(|total| self.progress >= total)
    }
}

/// `self.log(message, level)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLine {
    pub level: LogLevel,
    pub message: String,
}

/// `self.ask(message, fields, schema)`: what to ask, and the JSON Schema of
/// the answer (an object of flat properties, as MCP's elicitation takes it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Question {
    pub message: String,
    pub schema: Value,
    /// Set when the host asks whether a call may run (an approval), not the
    /// tool: front ends show it as yes or no.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<ApprovalRequest>,
}

impl Question {
    /// The answer's fields in order, each with its description.
    pub fn fields(&self) -> Vec<(String, String)> {
        let Some(Value::Object(properties)) = self.schema.get("properties") else {
            return Vec::new();
        };
        properties
            .iter()
            .map(|(name, property)| {
                let description = property
                    .get("description")
                    .or_else(|| property.get("title"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                (name.clone(), description.to_owned())
            })
            .collect()
    }
}

/// What the person did with a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerAction {
    Accept,
    Decline,
    /// Nobody answered: no one to ask, no terminal, the deadline passed, the
    /// call was stopped.
    Cancel,
}

/// `Answer(action, content)` as the tool reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    pub action: AnswerAction,
    #[serde(default)]
    pub content: Map<String, Value>,
    /// Why nobody answered, when a front end can say (a cancel only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Answer {
    pub fn cancel() -> Self {
        Answer {
            action: AnswerAction::Cancel,
            content: Map::new(),
            reason: None,
        }
    }

    /// A cancel that says why nobody could answer.
    pub fn unanswered(reason: impl Into<String>) -> Self {
        Answer {
            reason: Some(reason.into()),
            ..Answer::cancel()
        }
    }

    pub fn decline() -> Self {
        Answer {
            action: AnswerAction::Decline,
            content: Map::new(),
            reason: None,
        }
    }

    pub fn accept(content: Map<String, Value>) -> Self {
        Answer {
            action: AnswerAction::Accept,
            content,
            reason: None,
        }
    }
}

/// `self.sample(prompt, max_tokens, system)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleRequest {
    pub prompt: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
}
