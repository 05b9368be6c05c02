//! What an answer answers: the last user message and the tool results that
//! follow it, each named by the call it answers.

use std::collections::HashMap;

use riverse_llm::Message;

/// One tool result of the turn being answered.
pub(super) struct TurnResult<'a> {
    /// The tool of the call the result answers (empty if no call has its id).
    pub tool: &'a str,
    pub content: &'a str,
    pub failed: bool,
}

/// The last user message of a conversation and this turn's tool results.
pub(super) struct Asked<'a> {
    /// The index of the last user message, if any.
    pub at: Option<usize>,
    pub question: &'a str,
    pub results: Vec<TurnResult<'a>>,
}

impl<'a> Asked<'a> {
    pub fn of(conversation: &'a [Message]) -> Self {
        let at = conversation
            .iter()
            .rposition(|message| matches!(message, Message::User(_)));
        let question = match at.map(|index| &conversation[index]) {
            Some(Message::User(text)) => text.as_str(),
            _ => "",
        };
        let tools: HashMap<&str, &str> = conversation
            .iter()
            .flat_map(|message| match message {
                Message::Assistant { tool_calls, .. } => tool_calls.as_slice(),
                _ => &[],
            })
            .map(|call| (call.id.as_str(), call.name.as_str()))
            .collect();
        let results = conversation
            .iter()
            .skip(at.map_or(0, |index| index + 1))
            .filter_map(|message| match message {
                Message::Tool {
                    call_id,
                    content,
                    failed,
                } => Some(TurnResult {
                    tool: tools.get(call_id.as_str()).copied().unwrap_or_default(),
                    content,
                    failed: *failed,
                }),
                _ => None,
            })
            .collect();
        Asked {
            at,
            question,
            results,
        }
    }
}
