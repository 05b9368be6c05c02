//! One agent turn: a message in, tools run, an answer out.
//!
//! The turn builds the conversation (system prompt, history, the message),
//! lets the model pick tools (natively, or through the dispatcher prompt),
//! runs each round's calls concurrently, gives every result back, failures
//! included, and streams the answer. Front ends watch it through
//! [`TurnEvent`]s and keep the [`Turn`]'s messages as their history.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use parking_lot::Mutex;
use riverse_llm::{
    ChatRequest, ChatResponse, Image, Message, Provider, ToolCall, ToolChoice, Usage,
};
use riverse_tool::{
    ApprovalRecord, CallContext, CallError, Content, FailureKind, LiveRegistry, LogLine, Params,
    Progress, Question, Registry, Sampler, ToolManifest, ToolResult, WeakRegistry,
};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::mpsc;
use tracing::Instrument;

use crate::{Language, ToolMode};

mod client;
mod dispatcher;
mod listening;
mod offer;
mod prompts;
mod selection;
mod span;

pub use client::ToolUse;
pub use listening::{ProviderSampler, QuestionReply};
use offer::Offer;
pub use selection::ToolSelector;
pub use span::turn_span;

/// How turns run (`agent.*` and `language`).
#[derive(Debug, Clone, PartialEq)]
pub struct TurnOptions {
    pub tool_mode: ToolMode,
    /// Model calls that may ask for tools in one turn.
    pub max_rounds: usize,
    /// Tool calls run in one turn.
    pub max_tool_calls: usize,
    /// With more tools than this, a turn shows the most relevant; 0 shows all.
    pub max_tools_shown: usize,
    pub language: Language,
}

/// What a turn reports as it goes.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnEvent {
    ToolCallStarted {
        call_id: String,
        tool: String,
        params: Value,
    },
    ToolCallFinished(ToolCallRecord),
    /// How far a running call has got (`self.progress`).
    ToolProgress {
        call_id: String,
        tool: String,
        progress: Progress,
    },
    /// A line a running call logged (`self.log`).
    ToolLog {
        call_id: String,
        tool: String,
        line: LogLine,
    },
    /// A running call asks the person a question (`self.ask`) and waits for
    /// the answer given through `reply`; a front end with nobody to ask
    /// drops it, which is a cancel.
    ToolQuestion {
        call_id: String,
        tool: String,
        question: Question,
        reply: QuestionReply,
    },
    /// A piece of the model's text, as it streams in.
    AnswerDelta(String),
    Done {
        answer: String,
    },
}

/// One tool call of a turn, as `riverse ask --json` prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolCallRecord {
    /// The model's id for the call (the first one, when identical calls ran once).
    #[serde(skip)]
    pub call_id: String,
    pub tool: String,
    /// The arguments as an object, or as the model's text when they were not
    /// a JSON object.
    pub params: Value,
    pub success: bool,
    pub data: String,
    pub error: String,
    /// Why the call failed; absent when it succeeded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<FailureKind>,
    /// Images, audio and files the call returned beside its data.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub content: Vec<Content>,
    /// How the call was let through or kept back, when its approval asked,
    /// refused, or let it run by a rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval: Option<ApprovalRecord>,
    #[serde(rename = "duration_ms", serialize_with = "milliseconds")]
    pub duration: Duration,
}

fn milliseconds<S: serde::Serializer>(
    duration: &Duration,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_u64(u64::try_from(duration.as_millis()).unwrap_or(u64::MAX))
}

/// A call the model chose, not run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoutedCall {
    pub tool: String,
    /// The arguments as an object, or as the model's text when they were not
    /// a JSON object.
    pub params: Value,
}

/// A finished turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub answer: String,
    /// In the order the model asked for them.
    pub tool_calls: Vec<ToolCallRecord>,
    /// What this turn adds to the conversation: the message, tool calls and
    /// their results, the answer. Append them to the history for the next turn.
    pub messages: Vec<Message>,
    /// The model was still calling tools at `max_rounds` or `max_tool_calls`,
    /// so the answer was asked for without tools.
    pub limits_reached: bool,
    /// Tokens the turn's model calls took, summed, when the provider said.
    pub usage: Option<Usage>,
    /// Calls of the caller's tools ([`ToolUse::client_tools`]) the model
    /// made: the turn stops there, its `answer` being what the model said
    /// with them and its `messages` ending with them. Once their results
    /// (`Message::Tool`, by these ids) follow in the history, a turn without
    /// a message goes on from them.
    pub client_calls: Vec<ToolCall>,
}

/// Why a turn has no answer. Failing tools never end a turn: their failures
/// go back to the model as results it can explain.
#[derive(Debug, thiserror::Error)]
pub enum TurnError {
    /// The model could not be reached or understood. In `auto` mode, an
    /// [`riverse_llm::Error::ToolsUnsupported`] does not end the turn: it is
    /// run again with the dispatcher prompt, and so is every later turn.
    #[error(transparent)]
    Llm(#[from] riverse_llm::Error),
}

/// Receives a turn's events.
pub type EventSink<'a> = &'a mut (dyn FnMut(TurnEvent) + Send);

/// A registry and a provider, ready to run turns.
pub struct Agent {
    /// Replaced whole by hot reload; each lookup takes the generation in use.
    tools: LiveRegistry,
    provider: Arc<dyn Provider>,
    options: TurnOptions,
    /// Set in `auto` mode once the provider refused tools, so later turns go
    /// to the dispatcher straight away.
    tools_refused: AtomicBool,
    /// The selection for the generation it was built from.
    selection: Mutex<Selection>,
    /// Answers the tools' `self.sample`: the provider.
    sampler: Arc<dyn Sampler>,
}

/// A generation and its [`ToolSelector`], present when it has more tools than
/// a turn shows. The generation is not kept alive by it: a replaced one's
/// workers exit once its calls are done.
struct Selection {
    registry: WeakRegistry,
    selector: Option<Arc<ToolSelector>>,
}

impl Selection {
    fn of(registry: &Registry, shown: usize) -> Self {
        let selector = ToolSelector::new(registry.available_manifests().cloned().collect(), shown)
            .map(Arc::new);
        Selection {
            registry: registry.downgrade(),
            selector,
        }
    }
}

impl Agent {
    pub fn new(
        registry: impl Into<LiveRegistry>,
        provider: Arc<dyn Provider>,
        options: TurnOptions,
    ) -> Self {
        let tools = registry.into();
        let selection = Selection::of(&tools.current(), options.max_tools_shown);
        Agent {
            tools,
            sampler: Arc::new(ProviderSampler::new(provider.clone())),
            provider,
            options,
            tools_refused: AtomicBool::new(false),
            selection: Mutex::new(selection),
        }
    }

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
    fn tools_for(
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

    /// The tools in use now.
    pub fn registry(&self) -> Registry {
        self.tools.current()
    }

    /// The slot hot reload replaces; share it to serve the same tools
    /// elsewhere (over MCP).
    pub fn live_registry(&self) -> &LiveRegistry {
        &self.tools
    }

    /// The agent's own LLM as a sampler, for `self.sample` in calls that do
    /// not run in a turn (`riverse mcp`, `riverse call`).
    pub fn sampler(&self) -> Arc<dyn Sampler> {
        self.sampler.clone()
    }

    pub fn provider(&self) -> &dyn Provider {
        self.provider.as_ref()
    }

    pub fn options(&self) -> &TurnOptions {
        &self.options
    }

    /// `auto`'s fallback: when the provider refused tools (`err`), this turn
    /// and every later one route with the dispatcher prompt. True when it
    /// falls back.
    fn falls_back(&self, err: &riverse_llm::Error) -> bool {
        if self.options.tool_mode != ToolMode::Auto || !refuses_tools(err) {
            return false;
        }
        tracing::warn!("{err}; routing with the dispatcher prompt instead");
        self.tools_refused.store(true, Ordering::Relaxed);
        true
    }

    /// The routing the next turn uses.
    pub fn routing(&self) -> ToolMode {
        match self.options.tool_mode {
            ToolMode::Auto if self.tools_refused.load(Ordering::Relaxed) => ToolMode::Dispatcher,
            ToolMode::Auto => ToolMode::Native,
            mode => mode,
        }
    }

    /// Runs one turn for `message`, after `history`. `Err` only when the model
    /// cannot be reached or understood; failing tools are part of the turn.
    pub async fn turn(
        &self,
        history: &[Message],
        message: &str,
        on_event: EventSink<'_>,
    ) -> Result<Turn, TurnError> {
        self.turn_with(history, Some(message), &ToolUse::default(), on_event)
            .await
    }

    /// [`Agent::turn`] with the caller's tools and choice of tools. Without
    /// a `message`, the turn goes on from the history, which ends with the
    /// results of the client calls an earlier turn handed back. The turn is
    /// traced as an `invoke_agent` span ([`turn_span`]), its model and tool
    /// calls as its children.
    pub async fn turn_with(
        &self,
        history: &[Message],
        message: Option<&str>,
        tool_use: &ToolUse,
        on_event: EventSink<'_>,
    ) -> Result<Turn, TurnError> {
        let span = span::for_turn();
        let turn = self
            .routed_turn(history, message, tool_use, on_event)
            .instrument(span.clone())
            .await;
        span::record_end(&span, &turn);
        turn
    }

    /// [`Agent::turn_with`], in its span.
    async fn routed_turn(
        &self,
        history: &[Message],
        message: Option<&str>,
        tool_use: &ToolUse,
        on_event: EventSink<'_>,
    ) -> Result<Turn, TurnError> {
        let turn = match self.routing() {
            ToolMode::Dispatcher => {
                self.dispatched_turn(history, message, tool_use, on_event)
                    .await
            }
            _ => match self.native_turn(history, message, tool_use, on_event).await {
                Err(TurnError::Llm(err)) if self.falls_back(&err) => {
                    self.dispatched_turn(history, message, tool_use, on_event)
                        .await
                }
                other => other,
            },
        }?;
        on_event(TurnEvent::Done {
            answer: turn.answer.clone(),
        });
        Ok(turn)
    }

    /// Native routing: the model sees the tools as functions and calls them
    /// over as many rounds as the limits allow.
    async fn native_turn(
        &self,
        history: &[Message],
        message: Option<&str>,
        tool_use: &ToolUse,
        on_event: EventSink<'_>,
    ) -> Result<Turn, TurnError> {
        let language = self.options.language;
        let tools = self.tools_for(history, message, tool_use);
        let (mut conversation, first_new) =
            conversation(prompts::system(language).to_owned(), history, message);
        let opening = conversation.len();
        // Later rounds leave the choice to the model, or they would never
        // end; but none holds for the whole turn.
        let later = match tool_use.choice {
            ToolChoice::None => ToolChoice::None,
            _ => ToolChoice::Auto,
        };
        let mut choice = tool_use.choice.clone();
        let mut calls_left = self.options.max_tool_calls;
        let mut records = Vec::new();
        let mut usage = None;
        for _ in 0..self.options.max_rounds {
            if calls_left == 0 {
                break;
            }
            let response = self
                .complete(
                    &conversation,
                    &tools,
                    choice.clone(),
                    tool_use.parallel,
                    on_event,
                )
                .await?;
            let round_choice = std::mem::replace(&mut choice, later.clone());
            let offer = Offer::new(&tools, &round_choice);
            usage = Usage::sum(usage, response.usage);
            if response.tool_calls.is_empty() {
                let turn = finish(conversation, first_new, response.text, records, false);
                return Ok(Turn { usage, ..turn });
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
                conversation.push(Message::Assistant {
                    content,
                    tool_calls: own_calls.clone(),
                });
                let round_start = records.len();
                let replies = self
                    .run_round(&own_calls, offer, &mut calls_left, &mut records, on_event)
                    .await;
                for (call, reply) in own_calls.iter().zip(replies) {
                    conversation.push(Message::Tool {
                        call_id: call.id.clone(),
                        content: reply.content,
                        failed: reply.failed,
                    });
                }
                if self.provider.accepts_images() {
                    let images = images_of(&records[round_start..]);
                    if !images.is_empty() {
                        conversation.push(Message::Images(images));
                    }
                }
            }
            if !client_calls.is_empty() {
                let text = text.unwrap_or_default();
                let turn = hand_back(conversation, first_new, text, records, client_calls);
                return Ok(Turn { usage, ..turn });
            }
        }
        // Limits of zero mean no tools at all, not a limit reached.
        let noted = conversation.len() > opening;
        if noted {
            tracing::info!("tool limits reached; asking for an answer without tools");
            conversation.push(Message::System(prompts::limit_reached(language).to_owned()));
        }
        let response = self
            .complete(&conversation, &[], ToolChoice::Auto, true, on_event)
            .await?;
        if noted {
            // The note was for this call only; the history keeps the exchange.
            conversation.pop();
        }
        let turn = finish(conversation, first_new, response.text, records, noted);
        Ok(Turn {
            usage: Usage::sum(usage, response.usage),
            ..turn
        })
    }

    /// Dispatcher routing: one temperature-0 call picks the tools, they run,
    /// and the answer call reads their results.
    async fn dispatched_turn(
        &self,
        history: &[Message],
        message: Option<&str>,
        tool_use: &ToolUse,
        on_event: EventSink<'_>,
    ) -> Result<Turn, TurnError> {
        let language = self.options.language;
        let tools = self.tools_for(history, message, tool_use);
        let history = client::dispatchable(language, history);
        let mut records = Vec::new();
        let mut results = None;
        let mut client_calls = Vec::new();
        let mut usage = None;
        // Going on from a client's results, the tools were chosen already.
        let dispatching = message.filter(|_| {
            !tools.is_empty() && self.options.max_rounds > 0 && self.options.max_tool_calls > 0
        });
        if let Some(message) = dispatching {
            let (calls, dispatch_usage) =
                self.dispatch(&tools, &history, message, tool_use).await?;
            usage = dispatch_usage;
            let offer = Offer::new(&tools, &tool_use.choice);
            let (own_calls, handed) = tool_use.split(calls, offer);
            client_calls = handed;
            if !own_calls.is_empty() {
                let mut calls_left = self.options.max_tool_calls;
                let replies = self
                    .run_round(&own_calls, offer, &mut calls_left, &mut records, on_event)
                    .await;
                let listed: Vec<(String, String)> = own_calls
                    .iter()
                    .zip(replies)
                    .map(|(call, reply)| {
                        (format!("{} {}", call.name, call.arguments), reply.content)
                    })
                    .collect();
                results = Some(prompts::dispatched_results(language, &listed));
            }
        }
        let (mut conversation, first_new) = conversation(
            prompts::answer_system(language).to_owned(),
            &history,
            message,
        );
        if let Some(results) = results {
            conversation.push(Message::System(results));
        }
        if !client_calls.is_empty() {
            let turn = hand_back(
                conversation,
                first_new,
                String::new(),
                records,
                client_calls,
            );
            return Ok(Turn { usage, ..turn });
        }
        let response = self
            .complete(&conversation, &[], ToolChoice::Auto, true, on_event)
            .await?;
        let turn = finish(conversation, first_new, response.text, records, false);
        Ok(Turn {
            usage: Usage::sum(usage, response.usage),
            ..turn
        })
    }

    /// The dispatcher's choice: one temperature-0 call that names the tools
    /// to run, read tolerantly; calls of tools that are not available are
    /// dropped, never run. Those of tools it was not shown go on, to be
    /// refused by the round.
    async fn dispatch(
        &self,
        tools: &[ToolManifest],
        history: &[Message],
        message: &str,
        tool_use: &ToolUse,
    ) -> Result<(Vec<ToolCall>, Option<Usage>), TurnError> {
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
        let calls = dispatcher::parse(&reply.text)
            .into_iter()
            .filter(|call| {
                let known =
                    registry.get(&call.tool).is_some() || tool_use.is_client_tool(&call.tool);
                if !known {
                    tracing::info!(
                        "the dispatcher named no available tool {:?}; not run",
                        call.tool
                    );
                }
                known
            })
            .enumerate()
            .map(|(index, call)| ToolCall {
                id: format!("dispatch_{index}"),
                name: call.tool,
                arguments: Value::Object(call.params).to_string(),
            })
            .collect();
        Ok((calls, reply.usage))
    }

    /// The calls the model makes first for `message`, without running them or
    /// asking for an answer: what `riverse eval` measures. Routes as
    /// [`Agent::turn`] does, `auto`'s fallback to the dispatcher included.
    pub async fn route(&self, message: &str) -> Result<Vec<RoutedCall>, TurnError> {
        let tools = self.tools_shown(&[], message);
        let calls = match self.routing() {
            ToolMode::Dispatcher => {
                self.dispatch(&tools, &[], message, &ToolUse::default())
                    .await?
                    .0
            }
            _ => {
                let (conversation, _) = conversation(
                    prompts::system(self.options.language).to_owned(),
                    &[],
                    Some(message),
                );
                let request = ChatRequest {
                    messages: &conversation,
                    tools: &tools,
                    temperature: None,
                    max_tokens: None,
                    tool_choice: &ToolChoice::Auto,
                    parallel_tool_calls: None,
                };
                match self.provider.complete(request, None).await {
                    Ok(response) => response.tool_calls,
                    Err(err) if self.falls_back(&err) => {
                        self.dispatch(&tools, &[], message, &ToolUse::default())
                            .await?
                            .0
                    }
                    Err(err) => return Err(err.into()),
                }
            }
        };
        Ok(calls
            .into_iter()
            .map(|call| RoutedCall {
                params: parse_arguments(&call.arguments)
                    .map(Value::Object)
                    .unwrap_or(Value::String(call.arguments)),
                tool: call.name,
            })
            .collect())
    }

    /// One streamed model call; its text goes out as answer deltas.
    async fn complete(
        &self,
        messages: &[Message],
        tools: &[ToolManifest],
        tool_choice: ToolChoice,
        parallel_tool_calls: bool,
        on_event: EventSink<'_>,
    ) -> Result<ChatResponse, TurnError> {
        let mut sink = |text: &str| on_event(TurnEvent::AnswerDelta(text.to_owned()));
        let request = ChatRequest {
            messages,
            tools,
            temperature: None,
            max_tokens: None,
            tool_choice: &tool_choice,
            parallel_tool_calls: (!parallel_tool_calls).then_some(false),
        };
        Ok(self.provider.complete(request, Some(&mut sink)).await?)
    }

    /// Runs one round's calls of tools it offered and returns what the model
    /// reads for each, in the order of `calls`. Records of the calls that ran
    /// (or were malformed, or not offered) are added to `records` in that
    /// order too.
    async fn run_round(
        &self,
        calls: &[ToolCall],
        offer: Offer<'_>,
        calls_left: &mut usize,
        records: &mut Vec<ToolCallRecord>,
        on_event: EventSink<'_>,
    ) -> Vec<ToolReply> {
        let plan = plan_round(calls, offer, calls_left, &self.options);
        let mut replies = vec![ToolReply::default(); calls.len()];
        // Records of this round by the position of their call.
        let mut finished: Vec<(usize, ToolCallRecord)> = Vec::new();
        for rejected in plan.rejected {
            replies[rejected.position] = rejected.reply;
            if let Some(record) = rejected.record {
                on_event(TurnEvent::ToolCallStarted {
                    call_id: record.call_id.clone(),
                    tool: record.tool.clone(),
                    params: record.params.clone(),
                });
                on_event(TurnEvent::ToolCallFinished(record.clone()));
                finished.push((rejected.position, record));
            }
        }
        for planned in &plan.to_run {
            on_event(TurnEvent::ToolCallStarted {
                call_id: planned.call_id.clone(),
                tool: planned.tool.clone(),
                params: Value::Object(planned.params.clone()),
            });
        }
        let (events, mut heard) = mpsc::unbounded_channel();
        let mut running: FuturesUnordered<_> = plan
            .to_run
            .iter()
            .map(|planned| {
                let context = listening::call_context(
                    &planned.call_id,
                    &planned.tool,
                    &events,
                    &self.sampler,
                );
                async move {
                    let started = Instant::now();
                    let result = self
                        .call_tool(
                            &planned.tool,
                            &planned.call_id,
                            planned.params.clone(),
                            &context,
                        )
                        .await;
                    (planned, result, started.elapsed())
                }
            })
            .collect();
        loop {
            let finished_call = tokio::select! {
                Some(event) = heard.recv() => {
                    on_event(event);
                    continue;
                }
                finished_call = running.next() => finished_call,
            };
            let Some((planned, result, duration)) = finished_call else {
                break;
            };
            // What the call said before it ended comes before its end.
            while let Ok(event) = heard.try_recv() {
                on_event(event);
            }
            let max_bytes = self.registry().limits().max_output_bytes;
            let reply = ToolReply::of(self.options.language, &planned.tool, &result, max_bytes);
            for &position in &planned.positions {
                replies[position] = reply.clone();
            }
            let record = ToolCallRecord {
                call_id: planned.call_id.clone(),
                tool: planned.tool.clone(),
                params: Value::Object(planned.params.clone()),
                success: result.success,
                failure: result.failure_kind(),
                data: result.data,
                error: result.error,
                content: result.content,
                approval: result.approval,
                duration,
            };
            on_event(TurnEvent::ToolCallFinished(record.clone()));
            finished.push((planned.positions[0], record));
        }
        finished.sort_by_key(|(position, _)| *position);
        records.extend(finished.into_iter().map(|(_, record)| record));
        replies
    }

    async fn call_tool(
        &self,
        name: &str,
        call_id: &str,
        params: Params,
        context: &CallContext,
    ) -> ToolResult {
        let registry = self.registry();
        match registry
            .call_with_id(name, Some(call_id), params, context)
            .await
        {
            Ok(result) => result,
            Err(err @ CallError::UnknownTool(_)) => {
                let names: Vec<&str> = registry
                    .available_manifests()
                    .map(|m| m.name.as_str())
                    .collect();
                let message = format!("{err}; the available tools are: {}", names.join(", "));
                ToolResult::failed(FailureKind::Unavailable, message)
            }
            Err(err) => ToolResult::failed(FailureKind::Unavailable, err.to_string()),
        }
    }
}

/// The images of a round's calls, as a model that sees images is shown them.
fn images_of(records: &[ToolCallRecord]) -> Vec<Image> {
    records
        .iter()
        .flat_map(|record| {
            record.content.iter().filter_map(|block| match block {
                Content::Image { data, mime_type } => Some(Image {
                    from: format!("the tool \"{}\"", record.tool),
                    mime_type: mime_type.clone(),
                    data: data.clone(),
                }),
                _ => None,
            })
        })
        .collect()
}

/// A result as a model reads it: its data, then each content block's text
/// (a text resource) or the line that names it (`[image image/png, 12.3 KB]`).
/// The text resources together are cut to `max_bytes`, like `data`.
fn readable(result: &ToolResult, max_bytes: usize) -> String {
    let mut text = result.data.clone();
    let mut resource_bytes_left = max_bytes;
    for block in &result.content {
        if !text.is_empty() {
            text.push('\n');
        }
        match block.text() {
            Some(resource_text) => {
                let kept = riverse_tool::cap_output(resource_text.to_owned(), resource_bytes_left);
                resource_bytes_left = resource_bytes_left.saturating_sub(kept.len());
                text.push_str(&kept);
            }
            None => text.push_str(&block.summary()),
        }
    }
    text
}

/// What the model reads for one tool call.
#[derive(Debug, Clone, Default, PartialEq)]
struct ToolReply {
    content: String,
    failed: bool,
}

impl ToolReply {
    fn of(language: Language, tool: &str, result: &ToolResult, max_bytes: usize) -> Self {
        if result.success {
            ToolReply {
                content: readable(result, max_bytes),
                failed: false,
            }
        } else {
            ToolReply::failure(prompts::tool_failed(language, tool, &result.error))
        }
    }

    fn failure(content: String) -> Self {
        ToolReply {
            content,
            failed: true,
        }
    }
}

/// A round's calls sorted into those that run and those that don't.
struct RoundPlan {
    /// Distinct calls, in the order first asked for.
    to_run: Vec<Planned>,
    rejected: Vec<Rejected>,
}

/// A distinct call of a round, and the positions of the calls it answers.
struct Planned {
    call_id: String,
    tool: String,
    params: Params,
    positions: Vec<usize>,
}

/// A call that does not run, and why, in the model's words.
struct Rejected {
    position: usize,
    reply: ToolReply,
    /// Malformed calls and calls of tools not offered are shown as failed
    /// calls; calls past the budget are not.
    record: Option<ToolCallRecord>,
}

impl Rejected {
    /// `call`, at `position`, shown as a call that failed with `error`.
    fn failed(
        position: usize,
        call: &ToolCall,
        failure: FailureKind,
        error: String,
        language: Language,
    ) -> Self {
        Rejected {
            position,
            reply: ToolReply::failure(prompts::tool_failed(language, &call.name, &error)),
            record: Some(ToolCallRecord {
                call_id: call.id.clone(),
                tool: call.name.clone(),
                params: parse_arguments(&call.arguments)
                    .map(Value::Object)
                    .unwrap_or_else(|_| Value::String(call.arguments.clone())),
                success: false,
                data: String::new(),
                error,
                failure: Some(failure),
                content: Vec::new(),
                approval: None,
                duration: Duration::ZERO,
            }),
        }
    }
}

/// Identical calls run once and share a result; calls of tools the round
/// did not `offer`, calls past the budget, and calls whose arguments are not
/// a JSON object, do not run and say why.
fn plan_round(
    calls: &[ToolCall],
    offer: Offer<'_>,
    calls_left: &mut usize,
    options: &TurnOptions,
) -> RoundPlan {
    let mut plan = RoundPlan {
        to_run: Vec::new(),
        rejected: Vec::new(),
    };
    for (position, call) in calls.iter().enumerate() {
        if let Some(refusal) = offer.refusal(&call.name) {
            tracing::info!("{refusal}; not run");
            plan.rejected.push(Rejected::failed(
                position,
                call,
                FailureKind::Unavailable,
                refusal,
                options.language,
            ));
            continue;
        }
        let params = match parse_arguments(&call.arguments) {
            Ok(params) => params,
            Err(reason) => {
                plan.rejected.push(Rejected::failed(
                    position,
                    call,
                    FailureKind::BadParameters,
                    reason,
                    options.language,
                ));
                continue;
            }
        };
        if let Some(same) = plan
            .to_run
            .iter_mut()
            .find(|planned| planned.tool == call.name && planned.params == params)
        {
            same.positions.push(position);
            continue;
        }
        if *calls_left == 0 {
            tracing::info!("{} not run: agent.max_tool_calls reached", call.name);
            plan.rejected.push(Rejected {
                position,
                reply: ToolReply::failure(prompts::not_run(
                    options.language,
                    options.max_tool_calls,
                )),
                record: None,
            });
            continue;
        }
        *calls_left -= 1;
        plan.to_run.push(Planned {
            call_id: call.id.clone(),
            tool: call.name.clone(),
            params,
            positions: vec![position],
        });
    }
    plan
}

/// The start of a turn's conversation: its system prompt, the history and the
/// user's message, if any; the index after the history is where the turn's
/// own messages begin.
fn conversation(
    system: String,
    history: &[Message],
    message: Option<&str>,
) -> (Vec<Message>, usize) {
    let mut conversation = Vec::with_capacity(history.len() + 4);
    conversation.push(Message::System(system));
    conversation.extend_from_slice(history);
    let first_new = conversation.len();
    if let Some(message) = message {
        conversation.push(Message::User(message.to_owned()));
    }
    (conversation, first_new)
}

fn last_user_message(history: &[Message]) -> Option<&str> {
    history.iter().rev().find_map(|message| match message {
        Message::User(text) => Some(text.as_str()),
        _ => None,
    })
}

fn finish(
    mut conversation: Vec<Message>,
    first_new: usize,
    answer: String,
    tool_calls: Vec<ToolCallRecord>,
    limits_reached: bool,
) -> Turn {
    conversation.push(Message::assistant(answer.clone()));
    let mut messages = conversation.split_off(first_new);
    // Images are shown to the model in the turn that got them, not carried
    // in the history (every later turn would send them again).
    messages.retain(|message| !matches!(message, Message::Images(_)));
    Turn {
        answer,
        tool_calls,
        messages,
        limits_reached,
        usage: None,
        client_calls: Vec::new(),
    }
}

/// A turn that stops at the calls of the caller's tools the model made,
/// with `text`, what it said with them.
fn hand_back(
    conversation: Vec<Message>,
    first_new: usize,
    text: String,
    tool_calls: Vec<ToolCallRecord>,
    client_calls: Vec<ToolCall>,
) -> Turn {
    let mut turn = finish(conversation, first_new, text, tool_calls, false);
    if let Some(Message::Assistant { tool_calls, .. }) = turn.messages.last_mut() {
        tool_calls.clone_from(&client_calls);
    }
    Turn {
        client_calls,
        ..turn
    }
}

/// The model's argument text as an object. Empty text means no arguments.
fn parse_arguments(text: &str) -> Result<Params, String> {
    if text.trim().is_empty() {
        return Ok(Params::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(params)) => Ok(params),
        Ok(Value::Null) => Ok(Params::new()),
        Ok(other) => Err(format!("the arguments must be a JSON object, got {other}")),
        Err(err) => Err(format!("the arguments are not valid JSON ({err}): {text}")),
    }
}

fn refuses_tools(err: &riverse_llm::Error) -> bool {
    match err {
        riverse_llm::Error::ToolsUnsupported { .. } => true,
        riverse_llm::Error::GaveUp { last, .. } => refuses_tools(last),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn arguments_must_be_a_json_object() {
        assert_eq!(parse_arguments("").unwrap(), Params::new());
        assert_eq!(parse_arguments("null").unwrap(), Params::new());
        assert_eq!(
            Value::Object(parse_arguments(r#"{"a": 1}"#).unwrap()),
            json!({"a": 1})
        );
        assert_eq!(
            parse_arguments("[1]").unwrap_err(),
            "the arguments must be a JSON object, got [1]"
        );
        assert!(
            parse_arguments("{city: Tokyo")
                .unwrap_err()
                .starts_with("the arguments are not valid JSON")
        );
    }

    #[test]
    fn a_record_serializes_as_ask_json_prints_it() {
        let record = ToolCallRecord {
            call_id: "c1".into(),
            tool: "weather".into(),
            params: json!({"city": "Tokyo"}),
            success: true,
            data: "sunny".into(),
            error: String::new(),
            failure: None,
            content: Vec::new(),
            approval: None,
            duration: Duration::from_micros(12_900),
        };
        assert_eq!(
            serde_json::to_value(&record).unwrap(),
            json!({"tool": "weather", "params": {"city": "Tokyo"}, "success": true,
                   "data": "sunny", "error": "", "duration_ms": 12})
        );
        let failed = ToolCallRecord {
            success: false,
            data: String::new(),
            error: "tool \"weather\" timed out after 1s".into(),
            failure: Some(FailureKind::Timeout),
            ..record
        };
        assert_eq!(
            serde_json::to_value(&failed).unwrap()["failure"],
            json!("timeout")
        );
    }
}
