//! The response object: what it says beside its output (its id and time,
//! the request's settings echoed back), in progress, completed or failed.

use riverse_agent::{AppliedSkill, CallRecord};
use riverse_llm::Usage;
use serde_json::{Value, json};

use super::request::ResponseRequest;
use crate::error::AppError;

/// What every form of one response's object shares.
#[derive(Debug, Clone)]
pub struct ResponseHead {
    /// `resp_<uuid>`.
    pub id: String,
    /// Seconds since the Unix epoch.
    pub created_at: u64,
    pub model: String,
    pub instructions: Option<String>,
    pub previous_response_id: Option<String>,
    /// The request's `tools`, `tool_choice` and `metadata`, as written.
    pub tools: Value,
    pub tool_choice: Value,
    pub metadata: Value,
    pub parallel_tool_calls: bool,
    pub store: bool,
    /// The types of the request's tools the model was not offered.
    pub ignored_tools: Vec<String>,
}

/// Where a response stands, with what its object says of it. Only a
/// completed turn tells the skills it applied.
pub enum Status<'a> {
    InProgress,
    Completed {
        usage: Option<Usage>,
        calls: &'a [CallRecord],
        skills: &'a [AppliedSkill],
    },
    Failed {
        error: &'a AppError,
        calls: &'a [CallRecord],
    },
}

impl ResponseHead {
    /// The head of a response to `request`, made now.
    pub fn new(request: &ResponseRequest) -> Self {
        ResponseHead {
            id: format!("resp_{}", uuid::Uuid::new_v4().simple()),
            created_at: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|elapsed| elapsed.as_secs())
                .unwrap_or(0),
            model: request.model.clone(),
            instructions: request.instructions.clone(),
            previous_response_id: request.previous_response_id.clone(),
            tools: request.tools.clone(),
            tool_choice: request.tool_choice.clone(),
            metadata: request.metadata.clone(),
            parallel_tool_calls: request.parallel_tool_calls.unwrap_or(true),
            store: request.store,
            ignored_tools: request.ignored_tools.clone(),
        }
    }

    /// The response object with `output`, as `status` says.
    pub fn object(&self, status: Status<'_>, output: &[Value]) -> Value {
        let (name, usage, error, calls, skills) = match status {
            Status::InProgress => ("in_progress", Value::Null, Value::Null, &[][..], &[][..]),
            Status::Completed {
                usage,
                calls,
                skills,
            } => (
                "completed",
                usage_json(usage.unwrap_or_default()),
                Value::Null,
                calls,
                skills,
            ),
            Status::Failed { error, calls } => (
                "failed",
                Value::Null,
                json!({"code": error.code, "message": error.message}),
                calls,
                &[][..],
            ),
        };
        let calls: Vec<Value> = calls.iter().map(|call| json!(call)).collect();
        json!({
            "id": self.id,
            "object": "response",
            "created_at": self.created_at,
            "status": name,
            "model": self.model,
            "output": output,
            "usage": usage,
            "error": error,
            "incomplete_details": null,
            "instructions": self.instructions,
            "previous_response_id": self.previous_response_id,
            "tools": self.tools,
            "tool_choice": self.tool_choice,
            "parallel_tool_calls": self.parallel_tool_calls,
            "store": self.store,
            "metadata": self.metadata,
            "temperature": null,
            "top_p": null,
            "text": {"format": {"type": "text"}},
            "truncation": "disabled",
            "riverse": {
                "tool_calls": calls,
                "skills": skills,
                "ignored_tools": self.ignored_tools,
            },
        })
    }
}

/// A turn's tokens as the Responses API counts them.
fn usage_json(usage: Usage) -> Value {
    json!({
        "input_tokens": usage.prompt_tokens,
        "output_tokens": usage.completion_tokens,
        "total_tokens": usage.total_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens_details": {"reasoning_tokens": 0},
    })
}
