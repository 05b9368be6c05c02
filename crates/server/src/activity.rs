//! What a turn's tools do, as the `riverse` objects of stream chunks (see
//! the `sse` module for the list).

use riverse_agent::TurnEvent;
use serde_json::{Value, json};

use crate::updates::Update;

/// The `riverse` object `update` becomes; `None` for updates that are not
/// tool activity (the answer's text, the end of the turn).
pub fn activity(update: &Update) -> Option<Value> {
    match update {
        Update::Event(TurnEvent::ToolCallStarted {
            call_id,
            tool,
            params,
        }) => Some(json!({
            "type": "tool_call.started", "call_id": call_id, "tool": tool, "params": params,
        })),
        Update::Event(TurnEvent::ToolCallFinished(record)) => {
            let mut finished = json!({"type": "tool_call.finished"});
            if let (Some(object), Value::Object(fields)) = (finished.as_object_mut(), json!(record))
            {
                object.extend(fields);
            }
            Some(finished)
        }
        Update::Event(TurnEvent::ToolProgress {
            call_id,
            tool,
            progress,
        }) => Some(json!({
            "type": "tool_call.progress", "call_id": call_id, "tool": tool,
            "progress": progress.progress, "total": progress.total, "message": progress.message,
        })),
        Update::Event(TurnEvent::ToolLog {
            call_id,
            tool,
            line,
        }) => Some(json!({
            "type": "tool_call.log", "call_id": call_id, "tool": tool,
            "level": line.level, "message": line.message,
        })),
        Update::Event(TurnEvent::TaskStarted(task)) => Some(json!({
            "type": "tool_call.task", "call_id": task.call_id(), "tool": task.tool(),
            "task_id": task.id(),
        })),
        Update::QuestionAsked(asked) => Some(json!({
            "type": "tool_call.question", "call_id": asked.call_id, "tool": asked.tool,
            "question_id": asked.id, "message": asked.question.message,
            "schema": asked.question.schema, "deadline": asked.deadline,
            "approval": asked.question.approval,
        })),
        Update::QuestionClosed(closed) => Some(json!({
            "type": "tool_call.question_closed", "call_id": closed.call_id, "tool": closed.tool,
            "question_id": closed.id, "action": closed.action, "reason": closed.reason,
        })),
        // `turns` turns every question into the two updates above.
        Update::Event(
            TurnEvent::ToolQuestion { .. } | TurnEvent::AnswerDelta(_) | TurnEvent::Done { .. },
        )
        | Update::Finished(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use riverse_agent::{Arguments, CallRecord};
    use riverse_tool::{
        AnswerAction, ApprovalRequest, Content, LogLevel, LogLine, Progress, Question, ToolResult,
    };

    use super::*;
    use crate::updates::{AskedQuestion, ClosedQuestion, Closing};

    /// The `riverse` object of `update` as a client reads it.
    fn shown(update: Update) -> String {
        let object = activity(&update).expect("a tool's activity");
        serde_json::to_string_pretty(&object).unwrap()
    }

    fn asked(question: Question) -> Update {
        Update::QuestionAsked(AskedQuestion {
            id: "q_7".into(),
            call_id: "call_1".into(),
            tool: "write_file".into(),
            question,
            deadline: 1_767_225_600_000,
        })
    }

    #[test]
    fn a_started_call_shows_its_arguments_as_the_model_sent_them() {
        let started = Update::Event(TurnEvent::ToolCallStarted {
            call_id: "call_1".into(),
            tool: "weather".into(),
            params: Arguments::from_text(r#"{"city": "Oslo", "days": 3}"#),
        });
        insta::assert_snapshot!(shown(started), @r#"
        {
          "type": "tool_call.started",
          "call_id": "call_1",
          "tool": "weather",
          "params": {
            "city": "Oslo",
            "days": 3
          }
        }
        "#);
        let garbled = Update::Event(TurnEvent::ToolCallStarted {
            call_id: "call_2".into(),
            tool: "weather".into(),
            params: Arguments::from_text("{city: Oslo"),
        });
        insta::assert_snapshot!(shown(garbled), @r#"
        {
          "type": "tool_call.started",
          "call_id": "call_2",
          "tool": "weather",
          "params": "{city: Oslo"
        }
        "#);
    }

    #[test]
    fn a_finished_call_is_its_record_with_a_type() {
        let mut result = ToolResult::ok(r#"{"celsius":4}"#);
        result.structured = Some(json!({"celsius": 4}));
        result.content = vec![Content::image(b"png", "image/png")];
        let record = CallRecord::finished(
            "call_1",
            "weather",
            Arguments::from_text(r#"{"city": "Oslo"}"#),
            result,
            Duration::from_millis(42),
        );
        let finished = Update::Event(TurnEvent::ToolCallFinished(record));
        insta::assert_snapshot!(shown(finished), @r#"
        {
          "type": "tool_call.finished",
          "call_id": "call_1",
          "tool": "weather",
          "params": {
            "city": "Oslo"
          },
          "success": true,
          "data": "{\"celsius\":4}",
          "error": "",
          "content": [
            {
              "type": "image",
              "data": "cG5n",
              "mime_type": "image/png"
            }
          ],
          "structured": {
            "celsius": 4
          },
          "duration_ms": 42
        }
        "#);
    }

    #[test]
    fn progress_has_null_total_and_message_when_the_tool_gave_none() {
        let halfway = Update::Event(TurnEvent::ToolProgress {
            call_id: "call_1".into(),
            tool: "crawl".into(),
            progress: Progress {
                progress: 2.0,
                total: Some(3.0),
                message: Some("page 2 of 3".into()),
            },
        });
        insta::assert_snapshot!(shown(halfway), @r#"
        {
          "type": "tool_call.progress",
          "call_id": "call_1",
          "tool": "crawl",
          "progress": 2.0,
          "total": 3.0,
          "message": "page 2 of 3"
        }
        "#);
        let bare = Update::Event(TurnEvent::ToolProgress {
            call_id: "call_1".into(),
            tool: "crawl".into(),
            progress: Progress {
                progress: 0.5,
                total: None,
                message: None,
            },
        });
        insta::assert_snapshot!(shown(bare), @r#"
        {
          "type": "tool_call.progress",
          "call_id": "call_1",
          "tool": "crawl",
          "progress": 0.5,
          "total": null,
          "message": null
        }
        "#);
    }

    #[test]
    fn a_log_line_has_its_level_by_name() {
        let line = Update::Event(TurnEvent::ToolLog {
            call_id: "call_1".into(),
            tool: "crawl".into(),
            line: LogLine {
                level: LogLevel::Warning,
                message: "robots.txt disallows /private".into(),
            },
        });
        insta::assert_snapshot!(shown(line), @r#"
        {
          "type": "tool_call.log",
          "call_id": "call_1",
          "tool": "crawl",
          "level": "warning",
          "message": "robots.txt disallows /private"
        }
        "#);
    }

    #[test]
    fn a_tools_own_question_has_a_null_approval() {
        let question = Question {
            message: "Overwrite notes.txt?".into(),
            schema: json!({
                "type": "object",
                "properties": {"overwrite": {"type": "string", "description": "yes or no"}},
            }),
            approval: None,
        };
        insta::assert_snapshot!(shown(asked(question)), @r#"
        {
          "type": "tool_call.question",
          "call_id": "call_1",
          "tool": "write_file",
          "question_id": "q_7",
          "message": "Overwrite notes.txt?",
          "schema": {
            "type": "object",
            "properties": {
              "overwrite": {
                "type": "string",
                "description": "yes or no"
              }
            }
          },
          "deadline": 1767225600000,
          "approval": null
        }
        "#);
    }

    #[test]
    fn an_approval_question_carries_the_request() {
        let request = ApprovalRequest {
            tool: "write_file".into(),
            arguments: json!({"path": "notes.txt", "content": "hello"})
                .as_object()
                .unwrap()
                .clone(),
            rule: "tools.write_file.approval".into(),
        };
        let question = request.question().unwrap();
        insta::assert_snapshot!(shown(asked(question)), @r#"
        {
          "type": "tool_call.question",
          "call_id": "call_1",
          "tool": "write_file",
          "question_id": "q_7",
          "message": "Allow write_file to run with these arguments? (tools.write_file.approval is ask)\ncontent: \"hello\"\npath: \"notes.txt\"",
          "schema": {
            "type": "object",
            "properties": {}
          },
          "deadline": 1767225600000,
          "approval": {
            "tool": "write_file",
            "arguments": {
              "path": "notes.txt",
              "content": "hello"
            },
            "rule": "tools.write_file.approval"
          }
        }
        "#);
    }

    #[test]
    fn a_closed_question_says_what_the_tool_read_and_why() {
        let closed = Update::QuestionClosed(ClosedQuestion {
            id: "q_7".into(),
            call_id: "call_1".into(),
            tool: "write_file".into(),
            action: AnswerAction::Cancel,
            reason: Closing::Expired,
        });
        insta::assert_snapshot!(shown(closed), @r#"
        {
          "type": "tool_call.question_closed",
          "call_id": "call_1",
          "tool": "write_file",
          "question_id": "q_7",
          "action": "cancel",
          "reason": "expired"
        }
        "#);
    }
}
