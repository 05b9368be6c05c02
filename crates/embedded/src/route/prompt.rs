//! The prompts routing runs on.
//!
//! Two prompts, each split into a fixed prefix (cached per tool set, or per
//! tool) and a short per-message suffix:
//! - the choice prompt lists every tool and shows the manifests' examples as
//!   finished exchanges (`{"tool": "clock"}`), then asks for the message's
//!   tool name;
//! - the parameter prompt describes one tool's parameters, then the message,
//!   then the JSON object being filled.

use riverse_tool::{ParamType, ToolManifest};

use crate::chat::{Role, open_assistant, push_turn};

/// The name the choice prompt uses for "no tool".
pub(crate) const NONE: &str = "none";

/// Messages that need no tool, shown as examples of `none` and used as the
/// `none` candidate's texts for similarity. English, Japanese and Chinese,
/// because the similarity match can only recognise small talk in a language
/// it has seen.
pub(crate) const SMALL_TALK: &[&str] = &[
    "Hello!",
    "Hi, how are you?",
    "Thank you, that's all.",
    "Who are you?",
    "Tell me a joke.",
    "What can you do?",
    "Good morning",
    "Nice to meet you",
    "What is the meaning of life?",
    "Write a short poem",
    "こんにちは",
    "ありがとう",
    "元気ですか？",
    "あなたは誰ですか",
    "おはようございます",
    "你好",
    "谢谢",
    "你是谁",
];

/// Few-shot small talk shown in the choice prompt (a subset: every shot costs
/// prompt tokens).
const SMALL_TALK_SHOTS: &[&str] = &["Hello!", "Thank you, that's all.", "ありがとう"];

/// Examples shown per tool in the choice prompt; more cost prompt tokens for
/// little gain once every tool has one or two.
const SHOTS_PER_TOOL: usize = 2;

/// Longest description or example kept in a prompt, in characters; a tool
/// author's essay would crowd out the rest.
const MAX_TEXT_CHARS: usize = 200;

/// The fixed part of the choice prompt for `tools`.
pub(crate) fn choice_prefix(tools: &[ToolManifest]) -> String {
    let mut system = String::from(
        "You choose the tool that answers the user's message. Reply with JSON: \
         {\"tool\": NAME}. Reply {\"tool\": \"none\"} when no tool fits, for \
         small talk and for questions you can answer yourself.\n\nTools:\n",
    );
    for tool in tools {
        system.push_str(&format!("- {}: {}\n", tool.name, clip(&tool.description)));
    }
    system.push_str(&format!("- {NONE}: no tool is needed"));
    let mut prompt = String::new();
    push_turn(&mut prompt, Role::System, &system);
    for (message, tool) in shots(tools) {
        push_turn(&mut prompt, Role::User, &message);
        push_turn(&mut prompt, Role::Assistant, &choice_reply(&tool));
    }
    prompt
}

/// What follows the prefix for one message, up to where the tool name goes.
pub(crate) fn choice_suffix(message: &str) -> String {
    let mut suffix = String::new();
    push_turn(&mut suffix, Role::User, &clip(message));
    open_assistant(&mut suffix);
    suffix.push_str(CHOICE_OPEN);
    suffix
}

/// The assistant's reply up to the name.
const CHOICE_OPEN: &str = "{\"tool\": \"";

/// What a candidate name is scored as, after [`CHOICE_OPEN`]: the name and
/// the closing of the reply, tokenized as in the examples.
pub(crate) fn choice_candidate(name: &str) -> String {
    format!("{name}\"}}")
}

fn choice_reply(name: &str) -> String {
    format!("{CHOICE_OPEN}{}", choice_candidate(name))
}

/// Examples interleaved across tools (first example of every tool, then the
/// second, ...) so no tool benefits from being shown last; small talk shots
/// go between them.
fn shots(tools: &[ToolManifest]) -> Vec<(String, String)> {
    let mut shots = Vec::new();
    for round in 0..SHOTS_PER_TOOL {
        for tool in tools {
            if let Some(example) = tool.examples.get(round) {
                shots.push((example.clone(), tool.name.clone()));
            }
        }
        if let Some(talk) = SMALL_TALK_SHOTS.get(round) {
            shots.push(((*talk).to_owned(), NONE.to_owned()));
        }
    }
    for talk in SMALL_TALK_SHOTS.iter().skip(SHOTS_PER_TOOL) {
        shots.push(((*talk).to_owned(), NONE.to_owned()));
    }
    shots
}

/// The fixed part of the parameter prompt for `tool`.
pub(crate) fn params_prefix(tool: &ToolManifest) -> String {
    let mut system = format!(
        "Fill in the parameters of the tool {}: {}\nParameters:\n",
        tool.name,
        clip(&tool.description)
    );
    for (name, description) in &tool.parameters {
        let kind = match tool.param_type(name) {
            ParamType::String => "text",
            ParamType::Int => "integer",
            ParamType::Float => "number",
            ParamType::Bool => "true or false",
        };
        system.push_str(&format!("- {name} ({kind}): {}\n", clip(description)));
    }
    system.push_str(
        "Copy each value from the user's message exactly as it is written. \
         Write null for a parameter the message does not give.",
    );
    let mut prompt = String::new();
    push_turn(&mut prompt, Role::System, &system);
    prompt
}

/// What follows the parameter prefix for one message: the message and the
/// assistant's turn, up to the first key.
pub(crate) fn params_suffix(message: &str) -> String {
    let mut suffix = String::new();
    push_turn(&mut suffix, Role::User, &clip(message));
    open_assistant(&mut suffix);
    suffix
}

/// The JSON text before the value of the `index`th parameter `name`.
pub(crate) fn param_key(index: usize, name: &str) -> String {
    let key = serde_json::to_string(name).unwrap_or_else(|_| format!("\"{name}\""));
    if index == 0 {
        format!("{{{key}:")
    } else {
        format!(", {key}:")
    }
}

/// Content-free messages whose scores calibrate each candidate name: a name
/// the model favours whatever the message says is discounted by its score
/// on these.
pub(crate) const CONTENT_FREE: &[&str] = &["N/A", "...", "[message]"];

fn clip(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(MAX_TEXT_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use indexmap::IndexMap;

    fn manifest(name: &str, examples: &[&str]) -> ToolManifest {
        ToolManifest {
            name: name.to_owned(),
            description: format!("the {name} tool"),
            parameters: IndexMap::from([("city".to_owned(), "a city".to_owned())]),
            examples: examples.iter().map(|e| (*e).to_owned()).collect(),
            parameter_types: IndexMap::new(),
        }
    }

    #[test]
    fn shots_alternate_between_tools_and_small_talk() {
        let tools = [manifest("a", &["a1", "a2", "a3"]), manifest("b", &["b1"])];
        let order: Vec<String> = shots(&tools)
            .into_iter()
            .map(|(message, _)| message)
            .collect();
        assert_eq!(
            order,
            [
                "a1",
                "b1",
                "Hello!",
                "a2",
                "Thank you, that's all.",
                "ありがとう"
            ]
        );
    }

    #[test]
    fn a_shot_reply_is_the_prefix_and_candidate_together() {
        assert_eq!(choice_reply("clock"), "{\"tool\": \"clock\"}");
        assert!(choice_suffix("hi").ends_with("<|im_start|>assistant\n{\"tool\": \""));
    }

    #[test]
    fn keys_are_json_strings() {
        assert_eq!(param_key(0, "city"), "{\"city\":");
        assert_eq!(param_key(1, "to \"x\""), ", \"to \\\"x\\\"\":");
    }

    #[test]
    fn long_texts_are_clipped() {
        let long = "x".repeat(500);
        assert_eq!(clip(&long).chars().count(), MAX_TEXT_CHARS + 1);
    }
}
