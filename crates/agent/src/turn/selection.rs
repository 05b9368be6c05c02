//! Which tools a turn shows the model when there are many.
//!
//! Every manifest in every request costs tokens and confuses small models.
//! Past `agent.max_tools_shown`, a turn shows the tools whose descriptions and
//! examples are most similar to the conversation's latest user messages (the
//! character n-gram similarity, with the glossary, that the embedded router
//! uses), plus every tool the conversation has already called.

use std::collections::HashSet;

use riverse_llm::Message;
use riverse_route::SimilarityIndex;
use riverse_tool::ToolManifest;

/// Ranks a fixed set of tools against messages.
#[derive(Debug, Clone)]
pub struct ToolSelector {
    /// The tools, in registry order.
    manifests: Vec<ToolManifest>,
    index: SimilarityIndex,
    /// How many to show.
    shown: usize,
}

impl ToolSelector {
    /// `None` when every tool is shown anyway: `shown` is 0 (no limit) or
    /// not below the number of tools.
    pub fn new(manifests: Vec<ToolManifest>, shown: usize) -> Option<Self> {
        if shown == 0 || manifests.len() <= shown {
            return None;
        }
        let texts: Vec<Vec<String>> = manifests.iter().map(texts_of).collect();
        Some(ToolSelector {
            index: SimilarityIndex::new(&texts),
            manifests,
            shown,
        })
    }

    /// The tools to show for `message` after `history`, in registry order.
    pub fn select(&self, history: &[Message], message: &str) -> Vec<ToolManifest> {
        let called: HashSet<&str> = history
            .iter()
            .flat_map(|message| match message {
                Message::Assistant { tool_calls, .. } => tool_calls.as_slice(),
                _ => &[],
            })
            .map(|call| call.name.as_str())
            .collect();
        // The message, and the user's message before it: a follow-up ("and in
        // Rome?") often names its tool only in the turn before.
        let previous = history.iter().rev().find_map(|message| match message {
            Message::User(text) => Some(text.as_str()),
            _ => None,
        });
        let query = match previous {
            Some(previous) => format!("{message}\n{previous}"),
            None => message.to_owned(),
        };
        let scores = self.index.scores(&query);
        let mut ranked: Vec<usize> = (0..self.manifests.len()).collect();
        // Stable: ties keep registry order.
        ranked.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        let mut chosen: Vec<bool> = vec![false; self.manifests.len()];
        for &index in ranked.iter().take(self.shown) {
            chosen[index] = true;
        }
        for (index, manifest) in self.manifests.iter().enumerate() {
            if called.contains(manifest.name.as_str()) {
                chosen[index] = true;
            }
        }
        self.manifests
            .iter()
            .zip(chosen)
            .filter(|(_, chosen)| *chosen)
            .map(|(manifest, _)| manifest.clone())
            .collect()
    }
}

/// What a tool is matched on: its name as words, description and examples.
fn texts_of(manifest: &ToolManifest) -> Vec<String> {
    let mut texts = vec![
        manifest.name.replace(['_', '-'], " "),
        manifest.description.clone(),
    ];
    texts.extend(manifest.examples.iter().cloned());
    texts
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use riverse_llm::ToolCall;
    use serde_json::json;

    use super::*;

    fn manifest(name: &str, description: &str, examples: &[&str]) -> ToolManifest {
        serde_json::from_value(json!({
            "name": name, "description": description, "examples": examples
        }))
        .unwrap()
    }

    fn tools() -> Vec<ToolManifest> {
        vec![
            manifest(
                "weather",
                "Current weather of a city",
                &["Is it raining in London?"],
            ),
            manifest(
                "clock",
                "The current time in a time zone",
                &["What time is it in Tokyo?"],
            ),
            manifest("stocks", "The price of a stock", &["How much is AAPL?"]),
            manifest(
                "translate",
                "Translate text to another language",
                &["Say hello in French"],
            ),
        ]
    }

    fn names(selected: &[ToolManifest]) -> Vec<&str> {
        selected.iter().map(|m| m.name.as_str()).collect()
    }

    #[test]
    fn few_tools_are_all_shown() {
        assert!(ToolSelector::new(tools(), 4).is_none());
        assert!(ToolSelector::new(tools(), 0).is_none());
    }

    #[test]
    fn the_most_similar_tools_are_shown_in_registry_order() {
        let selector = ToolSelector::new(tools(), 2).unwrap();
        let selected = selector.select(&[], "will it rain in Paris tomorrow? what's the weather");
        assert!(
            names(&selected).contains(&"weather"),
            "{:?}",
            names(&selected)
        );
        assert_eq!(selected.len(), 2);
        let selected = selector.select(&[], "東京は今何時？");
        assert!(
            names(&selected).contains(&"clock"),
            "{:?}",
            names(&selected)
        );
    }

    #[test]
    fn tools_the_conversation_called_stay_shown() {
        let selector = ToolSelector::new(tools(), 1).unwrap();
        let history = vec![
            Message::User("hello there".into()),
            Message::Assistant {
                content: String::new(),
                tool_calls: vec![ToolCall {
                    id: "c1".into(),
                    name: "stocks".into(),
                    arguments: "{}".into(),
                }],
            },
        ];
        let selected = selector.select(&history, "translate this into German");
        assert_eq!(names(&selected), ["stocks", "translate"]);
    }
}
