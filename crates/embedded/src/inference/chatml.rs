//! The ChatML template SmolLM2 was tuned on.

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

/// `text` cut to at most `limit` characters, an ellipsis marking the cut:
/// what a prompt keeps of a text that may be long.
pub(crate) fn clip(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// `text` cut to at most `limit` bytes, at a character boundary, an
/// ellipsis marking the cut: what a prompt keeps of a text whose tokens
/// must be bounded (a text never has more tokens than bytes).
pub(crate) fn clip_bytes(text: &str, limit: usize) -> String {
    if text.len() <= limit {
        return text.to_owned();
    }
    let mut cut = limit;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…", &text[..cut])
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

    #[test]
    fn long_texts_are_clipped_with_an_ellipsis() {
        assert_eq!(clip("abcdef", 3), "abc…");
        assert_eq!(clip("東京都", 3), "東京都");
    }

    #[test]
    fn byte_clips_cut_between_characters() {
        assert_eq!(clip_bytes("abcdef", 3), "abc…");
        assert_eq!(clip_bytes("東京都", 7), "東京…", "never inside 都");
        assert_eq!(clip_bytes("東京都", 9), "東京都");
        assert_eq!(clip_bytes("東", 2), "…");
    }
}
