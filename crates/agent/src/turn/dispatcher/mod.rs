//! Dispatcher routing, for models without function calling: one
//! temperature-0 call with the dispatcher prompt picks the tools as JSON,
//! they run, and the answer call reads their results.

use riverse_llm::{ChatRequest, Message, ToolCall, ToolChoice, Usage};
use riverse_tool::ToolManifest;

use super::asked::{Arguments, AskedCall};
use super::client::{self, ToolUse};
use super::conversation::{conversation, finish, hand_back};
use super::offer::Offer;
use super::prompts;
use super::skill_tool::SKILL_TOOL;
use super::skills::with_note;
use super::{Agent, EventSink, Turn, TurnError};
use riverse_tool::CallRecord;

mod reply;

/// What the dispatcher picked for a message, and what came of it.
#[derive(Default)]
struct Picked {
    records: Vec<CallRecord>,
    /// The note of the results the answer call reads, when calls ran.
    results: Option<String>,
    client_calls: Vec<ToolCall>,
    usage: Option<Usage>,
}

impl Agent {
    /// Dispatcher routing: one temperature-0 call picks the tools, they run,
    /// and the answer call reads their results.
    pub(crate) async fn dispatched_turn(
        &self,
        history: &[Message],
        message: Option<&str>,
        note: &str,
        tool_use: &ToolUse,
        on_event: EventSink<'_>,
    ) -> Result<Turn, TurnError> {
        let language = self.options.language;
        let tools = self.tools_for(history, message, tool_use);
        let history = client::dispatchable(language, history);
        // Going on from a client's results, the tools were chosen already.
        let dispatching = message.filter(|_| {
            !tools.is_empty() && self.options.max_rounds > 0 && self.options.max_tool_calls > 0
        });
        let picked = match dispatching {
            Some(message) => {
                self.pick_and_run(&tools, &history, message, tool_use, on_event)
                    .await?
            }
            None => Picked::default(),
        };
        let system = with_note(prompts::answer_system(language), note);
        let (mut conversation, first_new) = conversation(system, &history, message);
        if let Some(results) = picked.results {
            conversation.push(Message::System(results));
        }
        if !picked.client_calls.is_empty() {
            let turn = hand_back(
                conversation,
                first_new,
                String::new(),
                picked.records,
                picked.client_calls,
            );
            return Ok(Turn {
                usage: picked.usage,
                ..turn
            });
        }
        let response = self
            .complete(&conversation, &[], ToolChoice::Auto, true, on_event)
            .await?;
        let turn = finish(
            conversation,
            first_new,
            response.text,
            picked.records,
            false,
        );
        Ok(Turn {
            usage: Usage::sum(picked.usage, response.usage),
            ..turn
        })
    }

    /// The dispatcher's pick for `message`: the agent's own calls run in one
    /// round, the caller's set aside to be handed back.
    async fn pick_and_run(
        &self,
        tools: &[ToolManifest],
        history: &[Message],
        message: &str,
        tool_use: &ToolUse,
        on_event: EventSink<'_>,
    ) -> Result<Picked, TurnError> {
        let (calls, usage) = self.dispatch(tools, history, message, tool_use).await?;
        let offer = Offer::new(tools, &tool_use.choice);
        let (own_calls, client_calls) = tool_use.split(calls, offer);
        let mut picked = Picked {
            client_calls,
            usage,
            ..Picked::default()
        };
        if own_calls.is_empty() {
            return Ok(picked);
        }
        let mut calls_left = self.options.max_tool_calls;
        let replies = self
            .run_round(
                &own_calls,
                offer,
                &mut calls_left,
                &mut picked.records,
                on_event,
            )
            .await;
        let listed: Vec<(String, String)> = own_calls
            .iter()
            .zip(replies)
            .map(|(call, reply)| {
                let named = format!("{} {}", call.tool, call.arguments.text());
                (named, reply.content)
            })
            .collect();
        picked.results = Some(prompts::dispatched_results(self.options.language, &listed));
        Ok(picked)
    }

    /// The dispatcher's choice: one temperature-0 call that names the tools
    /// to run, read tolerantly; calls of tools that are not available are
    /// dropped, never run. Those of tools it was not shown go on, to be
    /// refused by the round.
    pub(crate) async fn dispatch(
        &self,
        tools: &[ToolManifest],
        history: &[Message],
        message: &str,
        tool_use: &ToolUse,
    ) -> Result<(Vec<AskedCall>, Option<Usage>), TurnError> {
        let language = self.options.language;
        let (routing, _) =
            conversation(prompts::dispatcher(language, tools), history, Some(message));
        let request = ChatRequest {
            messages: &routing,
            tools: &[],
            temperature: Some(0.0),
            max_tokens: None,
            tool_choice: &ToolChoice::Auto,
            parallel_tool_calls: None,
        };
        let reply = self.provider.complete(request, None).await?;
        let registry = self.registry();
        let calls = reply::parse(&reply.text)
            .into_iter()
            .filter(|call| {
                let known = registry.get(&call.tool).is_some()
                    || tool_use.is_client_tool(&call.tool)
                    || (call.tool == SKILL_TOOL
                        && tools.iter().any(|tool| tool.name == SKILL_TOOL));
                if !known {
                    tracing::info!(
                        "the dispatcher named no available tool {:?}; not run",
                        call.tool
                    );
                }
                known
            })
            .enumerate()
            .map(|(index, call)| AskedCall {
                id: format!("dispatch_{index}"),
                tool: call.tool,
                arguments: Arguments::Object(call.params),
            })
            .collect();
        Ok((calls, reply.usage))
    }
}
