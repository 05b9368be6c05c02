//! The ChatML template SmolLM2 was tuned on, in which every prompt is
//! composed, and its rewriting into another model's turns.

use std::borrow::Cow;

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

/// How a model writes its turns. Prompts are composed in ChatML; a model
/// tuned on other turn markers gets each prompt piece rewritten into them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Template {
    ChatMl,
    /// Gemma's `<start_of_turn>user` / `model` turns. Gemma has no system
    /// turn, so a system turn is written as a user turn.
    Gemma,
}

const GEMMA_TURNS: [(&str, &str); 4] = [
    ("<|im_start|>system\n", "<start_of_turn>user\n"),
    ("<|im_start|>user\n", "<start_of_turn>user\n"),
    ("<|im_start|>assistant\n", "<start_of_turn>model\n"),
    (IM_END, "<end_of_turn>"),
];

impl Template {
    /// The template of a model whose vocabulary has `has_token`.
    pub fn detect(has_token: impl Fn(&str) -> bool) -> Self {
        if has_token("<start_of_turn>") && !has_token(IM_START) {
            Template::Gemma
        } else {
            Template::ChatMl
        }
    }

    /// `text`, composed in ChatML, in this template's turns.
    pub fn render<'a>(self, text: &'a str) -> Cow<'a, str> {
        match self {
            Template::ChatMl => Cow::Borrowed(text),
            Template::Gemma => {
                let mut rendered = text.to_owned();
                for (chatml, gemma) in GEMMA_TURNS {
                    rendered = rendered.replace(chatml, gemma);
                }
                Cow::Owned(rendered)
            }
        }
    }
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
    fn gemma_turns_replace_chatml_ones() {
        let mut prompt = String::new();
        push_turn(&mut prompt, Role::System, "Be brief.");
        push_turn(&mut prompt, Role::User, "Hi");
        open_assistant(&mut prompt);
        assert_eq!(
            Template::Gemma.render(&prompt),
            "<start_of_turn>user\nBe brief.<end_of_turn>\n<start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n"
        );
        assert_eq!(Template::ChatMl.render(&prompt), prompt);
        assert_eq!(
            Template::detect(|token| token == "<start_of_turn>"),
            Template::Gemma
        );
        assert_eq!(
            Template::detect(|token| token == IM_START),
            Template::ChatMl
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
