//! The prompts routing runs on.
//!
//! Two prompts, each split into a fixed prefix (cached per tool set, or per
//! tool) and a short per-message suffix:
//! - the choice prompt lists every tool and shows the manifests' examples as
//!   finished exchanges (`{"tool": "clock"}`), then asks for the message's
//!   tool name;
//! - the parameter prompt describes one tool's parameters, then the message,
//!   then the JSON object being filled.

use riverse_route::words::SMALL_TALK_SHOTS;
use riverse_tool::{ParamType, ToolManifest};

use crate::inference::chatml::{Role, clip, open_assistant, push_turn};
use crate::tuning::{MAX_TEXT_CHARS, SHOTS_PER_TOOL};

/// The name the choice prompt uses for "no tool".
pub(crate) const NONE: &str = "none";

/// The fixed part of the choice prompt for `tools`.
pub(crate) fn choice_prefix(tools: &[ToolManifest]) -> String {
    let mut system = String::from(
        "You choose the tool that answers the user's message. Reply with JSON: \
         {\"tool\": NAME}. Reply {\"tool\": \"none\"} when no tool fits, for \
         small talk and for questions you can answer yourself.\n\nTools:\n",
    );
    for tool in tools {
        system.push_str(&format!(
            "- {}: {}\n",
            tool.name,
            clip_text(&tool.description)
        ));
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
    push_turn(&mut suffix, Role::User, &clip_text(message));
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
/// go between them. A tool without examples (as MCP servers' and YAML
/// agents' tools often are) is shown once with its description as the
/// message: otherwise only `none` would have shots, and the model learns
/// from the prompt that the answer is almost always `none`.
fn shots(tools: &[ToolManifest]) -> Vec<(String, String)> {
    let mut shots = Vec::new();
    for round in 0..SHOTS_PER_TOOL {
        for tool in tools {
            let example = match (tool.examples.get(round), round) {
                (Some(example), _) => Some(example.clone()),
                (None, 0) if tool.examples.is_empty() => Some(clip_text(&tool.description)),
                (None, _) => None,
            };
            if let Some(example) = example {
                shots.push((example, tool.name.clone()));
            }
        }
        if let Some(talk) = SMALL_TALK_SHOTS.entries().get(round) {
            shots.push(((*talk).to_owned(), NONE.to_owned()));
        }
    }
    for talk in SMALL_TALK_SHOTS.entries().iter().skip(SHOTS_PER_TOOL) {
        shots.push(((*talk).to_owned(), NONE.to_owned()));
    }
    shots
}

/// The fixed part of the parameter prompt for `tool`.
pub(crate) fn params_prefix(tool: &ToolManifest) -> String {
    let mut system = format!(
        "Fill in the parameters of the tool {}: {}\nParameters:\n",
        tool.name,
        clip_text(&tool.description)
    );
    for (name, description) in &tool.parameters {
        let kind = match tool.param_type(name) {
            ParamType::String => "text",
            ParamType::Int => "integer",
            ParamType::Float => "number",
            ParamType::Bool => "true or false",
        };
        system.push_str(&format!("- {name} ({kind}): {}\n", clip_text(description)));
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
    push_turn(&mut suffix, Role::User, &clip_text(message));
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

/// A manifest's or a message's text as a prompt keeps it.
fn clip_text(text: &str) -> String {
    clip(text.trim(), MAX_TEXT_CHARS)
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
            input_schema: None,
            output_schema: None,
            annotations: None,
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
                "Hi, how are you?",
                "a2",
                "Thank you, that's all.",
                "ありがとう"
            ]
        );
    }

    #[test]
    fn a_tool_without_examples_is_shown_with_its_description() {
        let mut bare = manifest("bare", &[]);
        bare.description = "Does a thing".into();
        let tools = [manifest("a", &["a1"]), bare];
        let shown: Vec<(String, String)> = shots(&tools).into_iter().take(2).collect();
        assert_eq!(
            shown,
            [
                ("a1".to_owned(), "a".to_owned()),
                ("Does a thing".to_owned(), "bare".to_owned())
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
        assert_eq!(clip_text(&long).chars().count(), MAX_TEXT_CHARS + 1);
    }

    /// A message as compared for leaks: lowercase, without its closing
    /// punctuation.
    fn bare(text: &str) -> String {
        text.trim()
            .trim_end_matches(|c: char| c.is_ascii_punctuation() || "？！。".contains(c))
            .to_lowercase()
    }

    /// The entries of a `class: word` (or `LANG KIND? word`) data file.
    fn data_entries(
        file: &'static str,
        data: &'static str,
    ) -> impl Iterator<Item = (&'static str, &'static str)> {
        data.lines()
            .filter(|line| !line.trim_start().starts_with('#'))
            .filter_map(|line| line.split_once(": ").or_else(|| line.split_once("? ")))
            .map(move |(_, entry)| (file, entry.trim()))
    }

    /// Covers every test split: the one beside the dev split, and those
    /// written from the manifests alone (independent, small talk, tools
    /// without examples, answers), and the message-form words, which
    /// routing reads. (The fixed replies' markers are not: they choose a
    /// reply's wording after routing, which no split measures.)
    #[test]
    fn no_test_message_appears_in_a_prompt_or_word_list() {
        let mut cases: Vec<serde_json::Value> =
            serde_json::from_str(include_str!("../../eval/routing-cases.json")).unwrap();
        let independent: Vec<serde_json::Value> =
            serde_json::from_str(include_str!("../../eval/independent-cases.json")).unwrap();
        cases.extend(independent);
        for split in [
            include_str!("../../eval/smalltalk-cases.json"),
            include_str!("../../eval/noexample-cases.json"),
            include_str!("../../eval/answer-cases.json"),
        ] {
            let split: Vec<serde_json::Value> = serde_json::from_str(split).unwrap();
            cases.extend(split);
        }
        let mut prompts: Vec<String> = CONTENT_FREE.iter().map(|text| text.to_string()).collect();
        for tools in [
            include_str!("../../eval/routing-tools.json"),
            include_str!("../../eval/template-tools.json"),
            include_str!("../../eval/independent-tools.json"),
            include_str!("../../eval/noexample-tools.json"),
        ] {
            let tools: Vec<ToolManifest> = serde_json::from_str(tools).unwrap();
            prompts.push(choice_prefix(&tools));
            prompts.extend(tools.iter().map(params_prefix));
        }
        let prompts: Vec<String> = prompts.iter().map(|prompt| prompt.to_lowercase()).collect();
        let listed: Vec<(&str, &str)> = riverse_route::words::all()
            .into_iter()
            .flat_map(|(file, list)| list.entries().iter().map(move |entry| (file, *entry)))
            .chain(riverse_route::glossary::terms().map(|term| ("glossary.txt", term)))
            .chain(data_entries(
                "form_english.txt",
                include_str!("../../../route/data/form_english.txt"),
            ))
            .chain(data_entries(
                "form_cjk.txt",
                include_str!("../../../route/data/form_cjk.txt"),
            ))
            .chain(data_entries(
                "actions.txt",
                include_str!("../../../route/data/actions.txt"),
            ))
            .collect();
        let test_messages = cases
            .iter()
            .filter(|case| case["split"] == "test")
            .map(|case| case["message"].as_str().unwrap());
        for message in test_messages {
            let message = bare(message);
            for prompt in &prompts {
                assert!(!prompt.contains(&message), "{message:?} is in a prompt");
            }
            for (file, entry) in &listed {
                assert_ne!(bare(entry), message, "{message:?} is in {file}");
            }
        }
    }
}
