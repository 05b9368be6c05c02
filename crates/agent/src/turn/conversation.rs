//! A turn's conversation: how it starts (system prompt, history, message)
//! and how it ends, with an answer or with calls handed back to the caller.

use riverse_llm::{Message, ToolCall};

use super::Turn;
use riverse_tool::CallRecord;

/// The start of a turn's conversation: its system prompt, the history and the
/// user's message, if any; the index after the history is where the turn's
/// own messages begin.
pub(crate) fn conversation(
    system: String,
    history: &[Message],
    message: Option<&str>,
) -> (Vec<Message>, usize) {
    let mut conversation = Vec::with_capacity(history.len() + 4);
    conversation.push(Message::System(system));
    conversation.extend_from_slice(history);
    let first_new = conversation.len();
    if let Some(message) = message {
        conversation.push(Message::User(message.to_owned()));
    }
    (conversation, first_new)
}

/// The turn that ends `conversation` with `answer`.
pub(crate) fn finish(
    mut conversation: Vec<Message>,
    first_new: usize,
    answer: String,
    tool_calls: Vec<CallRecord>,
    limits_reached: bool,
) -> Turn {
    conversation.push(Message::assistant(answer.clone()));
    let mut messages = conversation.split_off(first_new);
    // Images are shown to the model in the turn that got them, not carried
    // in the history (every later turn would send them again).
    messages.retain(|message| !matches!(message, Message::Images(_)));
    Turn {
        answer,
        tool_calls,
        messages,
        limits_reached,
        usage: None,
        client_calls: Vec::new(),
        skills: Vec::new(),
    }
}

/// A turn that stops at the calls of the caller's tools the model made,
/// with `text`, what it said with them.
pub(crate) fn hand_back(
    conversation: Vec<Message>,
    first_new: usize,
    text: String,
    tool_calls: Vec<CallRecord>,
    client_calls: Vec<ToolCall>,
) -> Turn {
    let mut turn = finish(conversation, first_new, text, tool_calls, false);
    if let Some(Message::Assistant { tool_calls, .. }) = turn.messages.last_mut() {
        tool_calls.clone_from(&client_calls);
    }
    Turn {
        client_calls,
        ..turn
    }
}
