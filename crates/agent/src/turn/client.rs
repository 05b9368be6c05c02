//! The tools a turn's caller brings: an OpenAI client's `tools`, shown to the
//! model beside the agent's own, whose calls are handed back to the caller
//! instead of run; and how the model may use tools (`tool_choice`,
//! `parallel_tool_calls`).

use riverse_llm::{Message, ToolCall, ToolChoice};
use riverse_tool::ToolManifest;

use crate::Language;

use super::offer::Offer;
use super::prompts;

/// What a turn's caller asks of tools beyond the agent's own.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolUse {
    /// The caller's tools: the model sees them beside the agent's, and a call
    /// of one ends the turn with it in [`super::Turn::client_calls`], for the
    /// caller to run. Their names must not be the agent's tools' names.
    pub client_tools: Vec<ToolManifest>,
    /// Whether the model must call tools, asked of the turn's first model
    /// call; later rounds leave it to the model, or they would never end.
    /// `None` shows the model no tools at all, the agent's included, in any
    /// round; a call it makes anyway is refused, as is any call of a tool a
    /// round did not offer.
    pub choice: ToolChoice,
    /// `false`: one call a round; a model that asks for more has only its
    /// first kept.
    pub parallel: bool,
}

impl Default for ToolUse {
    fn default() -> Self {
        ToolUse {
            client_tools: Vec::new(),
            choice: ToolChoice::Auto,
            parallel: true,
        }
    }
}

impl ToolUse {
    pub(crate) fn is_client_tool(&self, name: &str) -> bool {
        self.client_tools.iter().any(|tool| tool.name == name)
    }

    /// A round's calls, split into the agent's (run now) and the caller's
    /// (handed back), each in the model's order; past the first when calls
    /// are not parallel, none. A call of a client tool the round did not
    /// `offer` is not handed back: it stays with the agent's, to be refused.
    pub(crate) fn split<C: RoundCall>(
        &self,
        mut calls: Vec<C>,
        offer: Offer<'_>,
    ) -> (Vec<C>, Vec<ToolCall>) {
        if !self.parallel {
            calls.truncate(1);
        }
        let (client, own): (Vec<_>, Vec<_>) = calls
            .into_iter()
            .partition(|call| self.is_client_tool(call.tool()) && offer.includes(call.tool()));
        let handed = client
            .into_iter()
            .map(|call| handed_back(call.into_tool_call()))
            .collect();
        (own, handed)
    }
}

/// A call of a round as [`ToolUse::split`] sorts it: a model's function
/// call, or a call the dispatcher read with its arguments parsed.
pub(crate) trait RoundCall {
    fn tool(&self) -> &str;
    fn into_tool_call(self) -> ToolCall;
}

impl RoundCall for ToolCall {
    fn tool(&self) -> &str {
        &self.name
    }

    fn into_tool_call(self) -> ToolCall {
        self
    }
}

/// A call of a client's tool, under an id of Riverse's making: the caller
/// answers it by that id, so it must not repeat across conversations the
/// way a model's own ids (`call_0`) do.
fn handed_back(call: ToolCall) -> ToolCall {
    ToolCall {
        id: format!("call_{}", uuid::Uuid::new_v4().simple()),
        ..call
    }
}

/// `history` for a model routed by the dispatcher prompt, which is never
/// shown tool messages: each exchange of calls and results becomes the
/// note of results the dispatcher's own answers read.
pub(crate) fn dispatchable(language: Language, history: &[Message]) -> Vec<Message> {
    let mut messages = Vec::with_capacity(history.len());
    let mut at = 0;
    while at < history.len() {
        let Message::Assistant { tool_calls, .. } = &history[at] else {
            messages.push(history[at].clone());
            at += 1;
            continue;
        };
        if tool_calls.is_empty() {
            messages.push(history[at].clone());
            at += 1;
            continue;
        }
        at += 1;
        let mut listed = Vec::new();
        while let Some(Message::Tool {
            call_id, content, ..
        }) = history.get(at)
        {
            let call = tool_calls.iter().find(|call| call.id == *call_id);
            let named = call.map_or_else(
                || call_id.clone(),
                |call| format!("{} {}", call.name, call.arguments),
            );
            listed.push((named, content.clone()));
            at += 1;
        }
        messages.push(Message::System(prompts::dispatched_results(
            language, &listed,
        )));
    }
    messages
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn call(id: &str, name: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: "{}".into(),
        }
    }

    fn offered() -> Vec<ToolManifest> {
        ["weather", "clock", "lookup"]
            .into_iter()
            .map(|name| ToolManifest {
                name: name.into(),
                ..ToolManifest::default()
            })
            .collect()
    }

    fn client(names: &[&str]) -> ToolUse {
        ToolUse {
            client_tools: names
                .iter()
                .map(|name| ToolManifest {
                    name: (*name).into(),
                    ..ToolManifest::default()
                })
                .collect(),
            ..ToolUse::default()
        }
    }

    #[test]
    fn a_round_splits_into_own_calls_and_client_calls_under_new_ids() {
        let tool_use = client(&["lookup"]);
        let tools = offered();
        let offer = Offer::new(&tools, &ToolChoice::Auto);
        let (own, handed) = tool_use.split(
            vec![
                call("call_0", "weather"),
                call("call_1", "lookup"),
                call("call_2", "clock"),
            ],
            offer,
        );
        assert_eq!(
            own,
            vec![call("call_0", "weather"), call("call_2", "clock")]
        );
        assert_eq!(handed.len(), 1);
        assert_eq!(handed[0].name, "lookup");
        assert!(handed[0].id.starts_with("call_") && handed[0].id.len() == 37);
        let (_, again) = tool_use.split(vec![call("call_1", "lookup")], offer);
        assert_ne!(again[0].id, handed[0].id);
    }

    #[test]
    fn calls_not_parallel_keep_the_first() {
        let tool_use = ToolUse {
            parallel: false,
            ..client(&["lookup"])
        };
        let tools = offered();
        let offer = Offer::new(&tools, &ToolChoice::Auto);
        let (own, handed) = tool_use.split(vec![call("a", "lookup"), call("b", "weather")], offer);
        assert!(own.is_empty());
        assert_eq!(handed.len(), 1);
        let (own, handed) = tool_use.split(vec![call("a", "weather"), call("b", "lookup")], offer);
        assert_eq!(own, vec![call("a", "weather")]);
        assert!(handed.is_empty());
    }

    #[test]
    fn a_call_of_a_client_tool_not_offered_is_not_handed_back() {
        let tool_use = client(&["lookup"]);
        let tools = offered();
        for choice in [ToolChoice::None, ToolChoice::Function("weather".into())] {
            let offer = Offer::new(&tools, &choice);
            let (own, handed) = tool_use.split(vec![call("a", "lookup")], offer);
            assert_eq!(own, vec![call("a", "lookup")], "{choice:?}");
            assert!(handed.is_empty(), "{choice:?}");
        }
        let (own, handed) = tool_use.split(
            vec![call("a", "lookup")],
            Offer::new(&[], &ToolChoice::Auto),
        );
        assert_eq!((own.len(), handed.len()), (1, 0));
    }

    #[test]
    fn the_dispatcher_reads_tool_exchanges_as_a_note_of_results() {
        let history = vec![
            Message::User("look it up".into()),
            Message::Assistant {
                content: String::new(),
                tool_calls: vec![call("c1", "lookup")],
            },
            Message::Tool {
                call_id: "c1".into(),
                content: "found it".into(),
                failed: false,
            },
            Message::assistant("Found."),
        ];
        let messages = dispatchable(Language::En, &history);
        assert_eq!(messages.len(), 3);
        assert_eq!(messages[0], history[0]);
        let Message::System(note) = &messages[1] else {
            panic!("{messages:?}");
        };
        assert!(note.contains("[lookup {}]\nfound it"), "{note}");
        assert_eq!(messages[2], history[3]);
    }
}
