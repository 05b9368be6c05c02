//! What a `/v1/chat/completions` client doesn't send back. A turn that ends
//! with calls of the client's tools may have run Riverse's own first; the
//! client's next request carries its calls and their results, not those. So
//! they are kept in the store, under the id of the turn's first client call,
//! and put back in front of that call when the request that answers it
//! comes, to whichever server sharing the database: the model goes on with
//! all it saw. They are kept an hour
//! ([`riverse_store::HANDED_BACK_KEPT_MILLIS`]); a request that comes later
//! goes on without them.

use riverse_llm::{Message, ToolCall};
use riverse_store::Store;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::AppError;

/// A message as it is kept.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
enum Kept {
    System {
        content: String,
    },
    User {
        content: String,
    },
    Assistant {
        content: String,
        calls: Vec<KeptCall>,
    },
    Tool {
        call_id: String,
        content: String,
        failed: bool,
    },
}

#[derive(Debug, Serialize, Deserialize)]
struct KeptCall {
    id: String,
    name: String,
    arguments: String,
}

/// Keeps `messages` (Riverse's own calls and results) for the request that
/// answers the client call `call_id`; nothing when there are none. A store
/// that fails is logged: the next request then goes on without them.
pub async fn keep(store: &Store, call_id: &str, messages: &[Message]) {
    let kept: Vec<Kept> = messages.iter().filter_map(Kept::of).collect();
    if kept.is_empty() {
        return;
    }
    let value = serde_json::to_value(kept).unwrap_or_default();
    if let Err(err) = store.keep_handed_back(call_id, &value).await {
        tracing::warn!("can't keep the calls of a turn that handed calls back: {err}");
    }
}

/// `history` with what was kept for each of its assistant messages' client
/// calls put back in front of that message.
pub async fn restore(store: &Store, history: Vec<Message>) -> Result<Vec<Message>, AppError> {
    let first_calls: Vec<String> = history
        .iter()
        .filter_map(|message| match message {
            Message::Assistant { tool_calls, .. } => tool_calls.first().map(|call| call.id.clone()),
            _ => None,
        })
        .collect();
    let kept = store.handed_back(&first_calls).await?;
    if kept.is_empty() {
        return Ok(history);
    }
    let mut restored = Vec::with_capacity(history.len());
    for message in history {
        if let Message::Assistant { tool_calls, .. } = &message
            && let Some(first) = tool_calls.first()
            && let Some((_, exchange)) = kept.iter().find(|(id, _)| *id == first.id)
        {
            restored.extend(messages_of(exchange));
        }
        restored.push(message);
    }
    Ok(restored)
}

/// The messages kept as `value`; none when it doesn't read.
fn messages_of(value: &Value) -> Vec<Message> {
    match serde_json::from_value::<Vec<Kept>>(value.clone()) {
        Ok(kept) => kept.into_iter().map(Kept::message).collect(),
        Err(err) => {
            tracing::warn!("can't read the calls a turn handed back with: {err}");
            Vec::new()
        }
    }
}

impl Kept {
    /// `message` as kept; images are shown only in the turn that got them.
    fn of(message: &Message) -> Option<Kept> {
        Some(match message {
            Message::System(content) => Kept::System {
                content: content.clone(),
            },
            Message::User(content) => Kept::User {
                content: content.clone(),
            },
            Message::Assistant {
                content,
                tool_calls,
            } => Kept::Assistant {
                content: content.clone(),
                calls: tool_calls
                    .iter()
                    .map(|call| KeptCall {
                        id: call.id.clone(),
                        name: call.name.clone(),
                        arguments: call.arguments.clone(),
                    })
                    .collect(),
            },
            Message::Tool {
                call_id,
                content,
                failed,
            } => Kept::Tool {
                call_id: call_id.clone(),
                content: content.clone(),
                failed: *failed,
            },
            Message::Images(_) => return None,
        })
    }

    fn message(self) -> Message {
        match self {
            Kept::System { content } => Message::System(content),
            Kept::User { content } => Message::User(content),
            Kept::Assistant { content, calls } => Message::Assistant {
                content,
                tool_calls: calls
                    .into_iter()
                    .map(|call| ToolCall {
                        id: call.id,
                        name: call.name,
                        arguments: call.arguments,
                    })
                    .collect(),
            },
            Kept::Tool {
                call_id,
                content,
                failed,
            } => Message::Tool {
                call_id,
                content,
                failed,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn a_kept_message_reads_back_as_it_was() {
        let messages = vec![
            Message::System("results".into()),
            Message::Assistant {
                content: "looking".into(),
                tool_calls: vec![ToolCall {
                    id: "m1".into(),
                    name: "weather".into(),
                    arguments: "{\"city\":\"Tokyo\"}".into(),
                }],
            },
            Message::Tool {
                call_id: "m1".into(),
                content: "sunny".into(),
                failed: true,
            },
        ];
        let kept: Vec<Kept> = messages.iter().filter_map(Kept::of).collect();
        let value = serde_json::to_value(kept).unwrap();
        assert_eq!(messages_of(&value), messages);
        assert_eq!(messages_of(&serde_json::json!({"not": "a list"})), vec![]);
    }
}
