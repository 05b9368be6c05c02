//! Words that name the tool rather than give it a value: "weather" and 天気
//! call the weather tool, they are not its city. A value made of such words
//! only is never a value.
//!
//! Derived from the tool's manifest: the Latin-script words its name,
//! description and examples keep using (see [`recurring_words`]), and the
//! glossary terms of the concepts its name or those words name (時間 and 现在
//! for `clock`, 検索 and ネット for `web_search`), in any language.

use std::collections::{HashMap, HashSet};

use riverse_tool::ToolManifest;

use crate::glossary;
use crate::script::is_cjk;
use crate::tool_texts::tool_texts;

/// Letters two words must share at their start to be one word's forms
/// ("calculate" and "calculator", "remind" and "reminder").
const SHARED_STEM: usize = 5;

/// What names one tool.
#[derive(Debug, Clone)]
pub struct Triggers {
    /// Latin-script words, lowercase, that recur in the manifest, and the
    /// words of its name.
    pub recurring: HashSet<String>,
    /// The words of the tool's name (`web_search`: web, search).
    name_words: Vec<String>,
}

impl Triggers {
    pub fn of(tool: &ToolManifest) -> Self {
        let name_words: Vec<String> = tool
            .name
            .split(|c: char| !c.is_alphanumeric())
            .filter(|word| !word.is_empty())
            .map(str::to_lowercase)
            .collect();
        // The name's words name the tool even where its description words
        // them otherwise (`run_tests`, "Run the test suite"): "tests" is no
        // value of it.
        let mut recurring = recurring_words(tool);
        recurring.extend(name_words.iter().cloned());
        Triggers {
            recurring,
            name_words,
        }
    }

    /// `mask[i]`: byte `i` of `text` belongs to a glossary term that names
    /// the tool.
    pub fn glossary_mask(&self, text: &str) -> Vec<bool> {
        let lower = text.to_lowercase();
        let mut mask = vec![false; text.len()];
        if lower.len() != text.len() {
            return mask;
        }
        for span in glossary::term_spans(&lower, |word| self.names(word)) {
            mask[span].fill(true);
        }
        mask
    }

    /// Whether a concept's English `word` is a form of a word of the name,
    /// or a word the manifest keeps using ("time" for a clock).
    fn names(&self, word: &str) -> bool {
        self.name_words
            .iter()
            .chain(&self.recurring)
            .any(|name| same_stem(name, word))
    }
}

fn same_stem(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let shared = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    shared >= SHARED_STEM
}

/// Words (Latin script, lowercased) found in at least two of the tool's name,
/// description and examples. Values differ from example to example; the
/// words for the action recur.
pub fn recurring_words(tool: &ToolManifest) -> HashSet<String> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for text in tool_texts(tool) {
        let words: HashSet<String> = text
            .split(|c: char| !c.is_alphanumeric() || is_cjk(c))
            .filter(|word| !word.is_empty())
            .map(str::to_lowercase)
            .collect();
        for word in words {
            *counts.entry(word).or_default() += 1;
        }
    }
    counts
        .into_iter()
        .filter(|(_, count)| *count >= 2)
        .map(|(word, _)| word)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runs::runs;

    fn tool(name: &str, description: &str, examples: &[&str]) -> ToolManifest {
        serde_json::from_value(serde_json::json!({
            "name": name,
            "description": description,
            "parameters": {"value": "a value"},
            "examples": examples,
        }))
        .unwrap()
    }

    fn marked<'a>(text: &'a str, triggers: &Triggers) -> Vec<&'a str> {
        let mask = triggers.glossary_mask(text);
        runs(text, |at, _| mask.get(at).copied().unwrap_or(false))
            .into_iter()
            .map(|run| &text[run])
            .collect()
    }

    #[test]
    fn glossary_terms_of_the_tools_own_concept_are_triggers() {
        let clock = Triggers::of(&tool("clock", "Get the current time", &[]));
        assert_eq!(marked("ロンドンの今の時間は？", &clock), ["時間"]);
        let search = Triggers::of(&tool("web_search", "Search the web", &[]));
        assert_eq!(
            marked("大阪のラーメン屋をネットで探して", &search),
            ["ネット", "探して"]
        );
        let calculator = Triggers::of(&tool("calculator", "Evaluate", &[]));
        assert_eq!(marked("900割る3を計算して", &calculator), ["計算"]);
    }

    #[test]
    fn a_concept_the_manifest_keeps_naming_is_a_trigger() {
        let clock = Triggers::of(&tool(
            "clock",
            "Get the current time",
            &["What time is it in Tokyo?"],
        ));
        assert_eq!(marked("纽约现在几点？", &clock), ["现在几点"]);
    }

    #[test]
    fn another_tools_terms_are_values() {
        let convert = Triggers::of(&tool("convert_units", "Convert length", &[]));
        assert_eq!(marked("5マイルは何キロ？", &convert), Vec::<&str>::new());
        let translate = Triggers::of(&tool("translate", "Translate text", &[]));
        assert_eq!(marked("英語に翻訳して", &translate), ["翻訳して"]);
    }

    #[test]
    fn recurring_manifest_words_are_found() {
        let timer = tool(
            "set_timer",
            "Start a countdown timer",
            &["Set a timer for 10 minutes"],
        );
        let words = recurring_words(&timer);
        assert!(words.contains("timer") && words.contains("set"));
        assert!(!words.contains("minutes"));
    }
}
