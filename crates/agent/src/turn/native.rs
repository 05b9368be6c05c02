//! Native routing: the model sees the tools as functions and calls them over
//! as many rounds as the limits allow, then answers.

use riverse_llm::{Message, ToolCall, ToolChoice, Usage};

use super::asked::AskedCall;
use super::client::ToolUse;
use super::conversation::{conversation, finish, hand_back};
use super::offer::Offer;
use super::prompts;
use super::record;
use super::skills::with_note;
use super::{Agent, EventSink, Turn, TurnError};
use riverse_tool::CallRecord;

/// A native turn between its rounds.
struct Rounds {
    conversation: Vec<Message>,
    /// Where the turn's own messages begin.
    first_new: usize,
    /// Where the messages the rounds added begin.
    opening: usize,
    records: Vec<CallRecord>,
    calls_left: usize,
    usage: Option<Usage>,
}

impl Rounds {
    fn finish(self, answer: String, limits_reached: bool) -> Turn {
        let turn = finish(
            self.conversation,
            self.first_new,
            answer,
            self.records,
            limits_reached,
        );
        Turn {
            usage: self.usage,
            ..turn
        }
    }

    fn hand_back(self, text: String, client_calls: Vec<ToolCall>) -> Turn {
        let turn = hand_back(
            self.conversation,
            self.first_new,
            text,
            self.records,
            client_calls,
        );
        Turn {
            usage: self.usage,
            ..turn
        }
    }
}

impl Agent {
    /// Native routing: the model sees the tools as functions and calls them
    /// over as many rounds as the limits allow.
    pub(crate) async fn native_turn(
        &self,
        history: &[Message],
        message: Option<&str>,
        note: &str,
        tool_use: &ToolUse,
        on_event: EventSink<'_>,
    ) -> Result<Turn, TurnError> {
        let tools = self.tools_for(history, message, tool_use);
        let system = with_note(prompts::system(self.options.language), note);
        let (conversation, first_new) = conversation(system, history, message);
        let mut rounds = Rounds {
            opening: conversation.len(),
            conversation,
            first_new,
            records: Vec::new(),
            calls_left: self.options.max_tool_calls,
            usage: None,
        };
        // Later rounds leave the choice to the model, or they would never
        // end; but none holds for the whole turn.
        let later = match tool_use.choice {
            ToolChoice::None => ToolChoice::None,
            _ => ToolChoice::Auto,
        };
        let mut choice = tool_use.choice.clone();
        for _ in 0..self.options.max_rounds {
            if rounds.calls_left == 0 {
                break;
            }
            let response = self
                .complete(
                    &rounds.conversation,
                    &tools,
                    choice.clone(),
                    tool_use.parallel,
                    on_event,
                )
                .await?;
            let round_choice = std::mem::replace(&mut choice, later.clone());
            let offer = Offer::new(&tools, &round_choice);
            rounds.usage = Usage::sum(rounds.usage.take(), response.usage);
            if response.tool_calls.is_empty() {
                return Ok(rounds.finish(response.text, false));
            }
            let (own_calls, client_calls) = tool_use.split(response.tool_calls, offer);
            let mut text = Some(response.text);
            if !own_calls.is_empty() {
                // The text goes with the client's calls when there are any:
                // it is what the caller is shown with them.
                let content = if client_calls.is_empty() {
                    text.take().unwrap_or_default()
                } else {
                    String::new()
                };
                self.run_own_calls(&mut rounds, own_calls, content, offer, on_event)
                    .await;
            }
            if !client_calls.is_empty() {
                return Ok(rounds.hand_back(text.unwrap_or_default(), client_calls));
            }
        }
        self.answer_at_limits(rounds, on_event).await
    }

    /// Runs a round's calls of the agent's own tools, made with `content`,
    /// and adds the exchange to the conversation: the calls, their results,
    /// and their images for a model that sees them.
    async fn run_own_calls(
        &self,
        rounds: &mut Rounds,
        own_calls: Vec<ToolCall>,
        content: String,
        offer: Offer<'_>,
        on_event: EventSink<'_>,
    ) {
        let asked: Vec<AskedCall> = own_calls.iter().map(AskedCall::read).collect();
        rounds.conversation.push(Message::Assistant {
            content,
            tool_calls: own_calls,
        });
        let round_start = rounds.records.len();
        let replies = self
            .run_round(
                &asked,
                offer,
                &mut rounds.calls_left,
                &mut rounds.records,
                on_event,
            )
            .await;
        for (call, reply) in asked.into_iter().zip(replies) {
            rounds.conversation.push(Message::Tool {
                call_id: call.id,
                content: reply.content,
                failed: reply.failed,
            });
        }
        if self.provider.accepts_images() {
            let images = record::images(&rounds.records[round_start..]);
            if !images.is_empty() {
                rounds.conversation.push(Message::Images(images));
            }
        }
    }

    /// The answer once the rounds are over, asked for without tools; a model
    /// still calling tools is told the limits were reached.
    async fn answer_at_limits(
        &self,
        mut rounds: Rounds,
        on_event: EventSink<'_>,
    ) -> Result<Turn, TurnError> {
        // Limits of zero mean no tools at all, not a limit reached.
        let noted = rounds.conversation.len() > rounds.opening;
        if noted {
            tracing::info!("tool limits reached; asking for an answer without tools");
            let note = prompts::limit_reached(self.options.language).to_owned();
            rounds.conversation.push(Message::System(note));
        }
        let response = self
            .complete(&rounds.conversation, &[], ToolChoice::Auto, true, on_event)
            .await?;
        if noted {
            // The note was for this call only; the history keeps the exchange.
            rounds.conversation.pop();
        }
        rounds.usage = Usage::sum(rounds.usage.take(), response.usage);
        Ok(rounds.finish(response.text, noted))
    }
}
