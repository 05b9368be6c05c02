//! Which tools a turn shows the model: all of the agent's, or past
//! `agent.max_tools_shown` those the generation's [`ToolSelector`] picks,
//! then the caller's, narrowed by the turn's choice of tools.

use riverse_llm::{Message, ToolChoice};
use riverse_tool::{Registry, ToolManifest, WeakRegistry};
use std::sync::Arc;

use crate::ToolMode;

use super::Agent;
use super::client::ToolUse;
use super::selection::ToolSelector;

/// A generation and its [`ToolSelector`], present when it has more tools than
/// a turn shows. The generation is not kept alive by it: a replaced one's
/// workers exit once its calls are done.
pub(crate) struct Selection {
    registry: WeakRegistry,
    selector: Option<Arc<ToolSelector>>,
}

impl Selection {
    pub(crate) fn of(registry: &Registry, shown: usize) -> Self {
        let selector = ToolSelector::new(registry.available_manifests().cloned().collect(), shown)
            .map(Arc::new);
        Selection {
            registry: registry.downgrade(),
            selector,
        }
    }
}

impl Agent {
    /// The tools a turn for `message` after `history` offers the model: all
    /// of them, or past `agent.max_tools_shown` those [`ToolSelector`] picks.
    pub fn tools_shown(&self, history: &[Message], message: &str) -> Vec<ToolManifest> {
        match self.selector() {
            Some(selector) => selector.select(history, message),
            None => self.registry().available_manifests().cloned().collect(),
        }
    }

    /// The tools a turn shows the model: the agent's (as [`Agent::tools_shown`]
    /// picks them for the message, or for the last one in `history` when the
    /// turn goes on without one, and the one [`ToolChoice::Function`] names),
    /// then the caller's; none for [`ToolChoice::None`], only the one named
    /// for the dispatcher.
    pub(crate) fn tools_for(
        &self,
        history: &[Message],
        message: Option<&str>,
        tool_use: &ToolUse,
    ) -> Vec<ToolManifest> {
        if tool_use.choice == ToolChoice::None {
            return Vec::new();
        }
        let message = message.or_else(|| last_user_message(history)).unwrap_or("");
        let mut tools = self.tools_shown(history, message);
        if let ToolChoice::Function(name) = &tool_use.choice
            && !tools.iter().any(|tool| tool.name == *name)
        {
            let registry = self.registry();
            let named = registry
                .available_manifests()
                .find(|tool| tool.name == *name);
            tools.extend(named.cloned());
        }
        if self.offers_skill_tool() {
            tools.push(self.skill_manifest());
        }
        tools.extend(tool_use.client_tools.iter().cloned());
        // The dispatcher prompt can't be made to call a tool; shown only the
        // one named, it is the one it calls if it calls any.
        if let (ToolChoice::Function(name), ToolMode::Dispatcher) =
            (&tool_use.choice, self.routing())
        {
            tools.retain(|tool| tool.name == *name);
        }
        tools
    }

    /// Whether turns show only some of the tools.
    pub fn is_selecting(&self) -> bool {
        self.selector().is_some()
    }

    /// The selector of the generation in use, built once per generation.
    fn selector(&self) -> Option<Arc<ToolSelector>> {
        let registry = self.tools.current();
        let mut selection = self.selection.lock();
        if !selection.registry.is_of(&registry) {
            *selection = Selection::of(&registry, self.options.max_tools_shown);
        }
        selection.selector.clone()
    }
}

fn last_user_message(history: &[Message]) -> Option<&str> {
    history.iter().rev().find_map(|message| match message {
        Message::User(text) => Some(text.as_str()),
        _ => None,
    })
}
