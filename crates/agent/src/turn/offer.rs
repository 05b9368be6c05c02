//! The tools a round offers the model, and the one check that a round runs
//! only calls of those (issue 41): a model's reply, however it was made, is
//! not trusted to name only tools it was shown. A call of another tool, one
//! hidden by `tool_choice` or by `agent.max_tools_shown`, or of a name that
//! is no tool at all, is refused whatever the registry holds.

use riverse_llm::ToolChoice;
use riverse_tool::{CallFailure, ToolManifest, Unoffered};

/// The tools one round of a turn offers: those shown, narrowed by the
/// round's `tool_choice`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Offer<'a> {
    /// Every tool the round showed the model, the caller's included.
    shown: &'a [ToolManifest],
    choice: &'a ToolChoice,
}

impl<'a> Offer<'a> {
    pub(crate) fn new(shown: &'a [ToolManifest], choice: &'a ToolChoice) -> Self {
        Offer { shown, choice }
    }

    pub(crate) fn includes(&self, tool: &str) -> bool {
        self.refusal(tool).is_none()
    }

    /// Why a call of `tool` does not run in this round, as the model reads
    /// it; `None` when the round offered it.
    pub(crate) fn refusal(&self, tool: &str) -> Option<CallFailure> {
        let because = match self.choice {
            ToolChoice::None => Unoffered::ChoiceNone,
            ToolChoice::Function(named) if named != tool => Unoffered::ChoiceNames(named.clone()),
            _ if self.shown.iter().any(|shown| shown.name == tool) => return None,
            _ if self.shown.is_empty() => Unoffered::NoneShown,
            _ => Unoffered::NotShown(self.shown.iter().map(|shown| shown.name.clone()).collect()),
        };
        Some(CallFailure::NotOffered {
            tool: tool.to_owned(),
            because,
        })
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn shown(names: &[&str]) -> Vec<ToolManifest> {
        names
            .iter()
            .map(|name| ToolManifest {
                name: (*name).into(),
                ..ToolManifest::default()
            })
            .collect()
    }

    #[test]
    fn a_round_offers_the_tools_shown_under_auto_and_required() {
        let tools = shown(&["clock", "weather"]);
        for choice in [ToolChoice::Auto, ToolChoice::Required] {
            let offer = Offer::new(&tools, &choice);
            assert!(offer.includes("weather"));
            assert_eq!(
                offer.refusal("mark").unwrap().to_string(),
                "tool \"mark\" was not offered in this round: \
                 it is not among the tools shown (clock, weather)"
            );
        }
        assert_eq!(
            Offer::new(&[], &ToolChoice::Auto)
                .refusal("mark")
                .unwrap()
                .to_string(),
            "tool \"mark\" was not offered in this round: no tools were shown"
        );
    }

    #[test]
    fn a_choice_of_none_offers_nothing_and_a_named_function_only_itself() {
        let tools = shown(&["clock", "weather"]);
        let none = ToolChoice::None;
        assert_eq!(
            Offer::new(&tools, &none)
                .refusal("weather")
                .unwrap()
                .to_string(),
            "tool \"weather\" was not offered in this round: tool_choice is \"none\""
        );
        let named = ToolChoice::Function("clock".into());
        let offer = Offer::new(&tools, &named);
        assert!(offer.includes("clock"));
        assert_eq!(
            offer.refusal("weather").unwrap().to_string(),
            "tool \"weather\" was not offered in this round: tool_choice names \"clock\""
        );
        let hidden = ToolChoice::Function("mark".into());
        assert!(!Offer::new(&tools, &hidden).includes("mark"));
    }
}
