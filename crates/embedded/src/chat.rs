//! Conversations and the ChatML template SmolLM2 was tuned on.

/// One message of a conversation handed to [`crate::EmbeddedModel::answer`].
#[derive(Debug, Clone, PartialEq)]
pub enum ChatMessage {
    /// Instructions; replaces the built-in system prompt when present.
    System(String),
    User(String),
    Assistant(String),
    /// What one tool call returned (its data, or with `failed` its error),
    /// to ground the answer in.
    ToolResult {
        tool: String,
        content: String,
        failed: bool,
    },
}

impl ChatMessage {
    pub fn user(text: impl Into<String>) -> Self {
        ChatMessage::User(text.into())
    }

    pub fn assistant(text: impl Into<String>) -> Self {
        ChatMessage::Assistant(text.into())
    }
}

/// A ChatML role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    System,
    User,
    Assistant,
}

impl Role {
    fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

pub(crate) const IM_START: &str = "<|im_start|>";
pub(crate) const IM_END: &str = "<|im_end|>";

/// Appends one complete ChatML turn.
pub(crate) fn push_turn(prompt: &mut String, role: Role, content: &str) {
    prompt.push_str(IM_START);
    prompt.push_str(role.as_str());
    prompt.push('\n');
    prompt.push_str(content.trim());
    prompt.push_str(IM_END);
    prompt.push('\n');
}

/// Opens the assistant's turn, where generation starts.
pub(crate) fn open_assistant(prompt: &mut String) {
    prompt.push_str(IM_START);
    prompt.push_str(Role::Assistant.as_str());
    prompt.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_follow_chatml() {
        let mut prompt = String::new();
        push_turn(&mut prompt, Role::System, "Be brief.");
        push_turn(&mut prompt, Role::User, " Hi \n");
        open_assistant(&mut prompt);
        assert_eq!(
            prompt,
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
        );
    }
}
