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
use riverse_llm::{ChatRequest, ChatResponse, Message, Provider, ToolCall};
use riverse_tool::{CallError, Params, Registry, ToolManifest, ToolResult};
use serde::Serialize;
use serde_json::Value;

use crate::{Language, Settings, ToolMode, dispatcher, prompts};

/// How turns run (`agent.*` and `language`).
#[derive(Debug, Clone, PartialEq)]
pub struct TurnOptions {
    pub tool_mode: ToolMode,
    /// Model calls that may ask for tools in one turn.
    pub max_rounds: usize,
    /// Tool calls run in one turn.
    pub max_tool_calls: usize,
    pub language: Language,
}

impl TurnOptions {
    pub fn from_settings(settings: &Settings) -> Self {
        TurnOptions {
            tool_mode: settings.agent.tool_mode,
            max_rounds: settings.agent.max_rounds,
            max_tool_calls: settings.agent.max_tool_calls,
            language: settings.language,
        }
    }
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
    #[serde(rename = "duration_ms", serialize_with = "milliseconds")]
    pub duration: Duration,
}

fn milliseconds<S: serde::Serializer>(
    duration: &Duration,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_u64(u64::try_from(duration.as_millis()).unwrap_or(u64::MAX))
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
}

#[derive(Debug, thiserror::Error)]
pub enum TurnError {
    #[error(transparent)]
    Llm(#[from] riverse_llm::Error),
}

/// Receives a turn's events.
pub type EventSink<'a> = &'a mut (dyn FnMut(TurnEvent) + Send);

/// A registry and a provider, ready to run turns.
pub struct Agent {
    registry: Registry,
    provider: Arc<dyn Provider>,
    options: TurnOptions,
    /// Set in `auto` mode once the provider refused tools, so later turns go
    /// to the dispatcher straight away.
    tools_refused: AtomicBool,
}

impl Agent {
    pub fn new(registry: Registry, provider: Arc<dyn Provider>, options: TurnOptions) -> Self {
        Agent {
            registry,
            provider,
            options,
            tools_refused: AtomicBool::new(false),
        }
    }

    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    pub fn provider(&self) -> &dyn Provider {
        self.provider.as_ref()
    }

    pub fn options(&self) -> &TurnOptions {
        &self.options
    }

    /// The routing the next turn uses.
    pub fn routing(&self) -> ToolMode {
        match self.options.tool_mode {
            ToolMode::Auto
                if self.provider.supports_tools()
                    && !self.tools_refused.load(Ordering::Relaxed) =>
            {
                ToolMode::Native
            }
            ToolMode::Auto => ToolMode::Dispatcher,
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
        let turn = match self.routing() {
            ToolMode::Dispatcher => self.dispatched_turn(history, message, on_event).await,
            _ => match self.native_turn(history, message, on_event).await {
                Err(TurnError::Llm(err))
                    if self.options.tool_mode == ToolMode::Auto && refuses_tools(&err) =>
                {
                    tracing::warn!("{err}; routing with the dispatcher prompt instead");
                    self.tools_refused.store(true, Ordering::Relaxed);
                    self.dispatched_turn(history, message, on_event).await
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
        message: &str,
        on_event: EventSink<'_>,
    ) -> Result<Turn, TurnError> {
        let language = self.options.language;
        let tools: Vec<ToolManifest> = self.registry.available_manifests().cloned().collect();
        let mut conversation = Vec::with_capacity(history.len() + 4);
        conversation.push(Message::System(prompts::system(language).to_owned()));
        conversation.extend_from_slice(history);
        let first_new = conversation.len();
        conversation.push(Message::User(message.to_owned()));
        let mut calls_left = self.options.max_tool_calls;
        let mut records = Vec::new();
        for _ in 0..self.options.max_rounds {
            if calls_left == 0 {
                break;
            }
            let response = self.complete(&conversation, &tools, None, on_event).await?;
            if response.tool_calls.is_empty() {
                return Ok(finish(conversation, first_new, response.text, records));
            }
            let calls = response.tool_calls.clone();
            conversation.push(Message::Assistant {
                content: response.text,
                tool_calls: response.tool_calls,
            });
            let contents = self
                .run_calls(&calls, &mut calls_left, &mut records, on_event)
                .await;
            for (call, (content, failed)) in calls.iter().zip(contents) {
                conversation.push(Message::Tool {
                    call_id: call.id.clone(),
                    content,
                    failed,
                });
            }
        }
        // Limits of zero mean no tools at all, not a limit reached.
        let noted = conversation.len() > first_new + 1;
        if noted {
            tracing::info!("tool limits reached; asking for an answer without tools");
            conversation.push(Message::System(prompts::limit_reached(language).to_owned()));
        }
        let response = self.complete(&conversation, &[], None, on_event).await?;
        if noted {
            // The note was for this call only; the history keeps the exchange.
            conversation.pop();
        }
        Ok(finish(conversation, first_new, response.text, records))
    }

    /// Dispatcher routing: one temperature-0 call picks the tools, they run,
    /// and the answer call reads their results.
    async fn dispatched_turn(
        &self,
        history: &[Message],
        message: &str,
        on_event: EventSink<'_>,
    ) -> Result<Turn, TurnError> {
        let language = self.options.language;
        let tools: Vec<ToolManifest> = self.registry.available_manifests().cloned().collect();
        let mut records = Vec::new();
        let mut results = None;
        if !tools.is_empty() && self.options.max_rounds > 0 && self.options.max_tool_calls > 0 {
            let mut routing = Vec::with_capacity(history.len() + 2);
            routing.push(Message::System(prompts::dispatcher(language, &tools)));
            routing.extend_from_slice(history);
            routing.push(Message::User(message.to_owned()));
            let request = ChatRequest {
                messages: &routing,
                tools: &[],
                temperature: Some(0.0),
            };
            let reply = self.provider.complete(request, None).await?;
            let calls: Vec<ToolCall> = dispatcher::parse(&reply.text)
                .into_iter()
                .filter(|call| {
                    let known = self.registry.get(&call.tool).is_some();
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
            if !calls.is_empty() {
                let mut calls_left = self.options.max_tool_calls;
                let contents = self
                    .run_calls(&calls, &mut calls_left, &mut records, on_event)
                    .await;
                let listed: Vec<(String, String)> = calls
                    .iter()
                    .zip(contents)
                    .map(|(call, (content, _))| {
                        (format!("{} {}", call.name, call.arguments), content)
                    })
                    .collect();
                results = Some(prompts::dispatched_results(language, &listed));
            }
        }
        let mut conversation = Vec::with_capacity(history.len() + 3);
        conversation.push(Message::System(prompts::answer_system(language).to_owned()));
        conversation.extend_from_slice(history);
        let first_new = conversation.len();
        conversation.push(Message::User(message.to_owned()));
        if let Some(results) = results {
            conversation.push(Message::System(results));
        }
        let response = self.complete(&conversation, &[], None, on_event).await?;
        Ok(finish(conversation, first_new, response.text, records))
    }

    /// One streamed model call; its text goes out as answer deltas.
    async fn complete(
        &self,
        messages: &[Message],
        tools: &[ToolManifest],
        temperature: Option<f32>,
        on_event: EventSink<'_>,
    ) -> Result<ChatResponse, TurnError> {
        let mut sink = |text: &str| on_event(TurnEvent::AnswerDelta(text.to_owned()));
        let request = ChatRequest {
            messages,
            tools,
            temperature,
        };
        Ok(self.provider.complete(request, Some(&mut sink)).await?)
    }

    /// Runs one round's calls concurrently and returns what the model reads
    /// for each call, in order, and whether the call failed. Identical calls run once and share a result;
    /// calls past the budget, and calls whose arguments are not a JSON
    /// object, do not run and say why.
    async fn run_calls(
        &self,
        calls: &[ToolCall],
        calls_left: &mut usize,
        records: &mut Vec<ToolCallRecord>,
        on_event: EventSink<'_>,
    ) -> Vec<(String, bool)> {
        let language = self.options.language;
        let mut contents: Vec<Option<(String, bool)>> = vec![None; calls.len()];
        // Records of this round by the position of their call.
        let mut finished: Vec<(usize, ToolCallRecord)> = Vec::new();
        let mut unique: Vec<Planned> = Vec::new();
        for (position, call) in calls.iter().enumerate() {
            let params = match parse_arguments(&call.arguments) {
                Ok(params) => params,
                Err(reason) => {
                    let record = ToolCallRecord {
                        call_id: call.id.clone(),
                        tool: call.name.clone(),
                        params: Value::String(call.arguments.clone()),
                        success: false,
                        data: String::new(),
                        error: reason,
                        duration: Duration::ZERO,
                    };
                    contents[position] = Some((
                        prompts::tool_failed(language, &call.name, &record.error),
                        true,
                    ));
                    on_event(TurnEvent::ToolCallStarted {
                        call_id: call.id.clone(),
                        tool: call.name.clone(),
                        params: record.params.clone(),
                    });
                    on_event(TurnEvent::ToolCallFinished(record.clone()));
                    finished.push((position, record));
                    continue;
                }
            };
            if let Some(same) = unique
                .iter_mut()
                .find(|p| p.tool == call.name && p.params == params)
            {
                same.positions.push(position);
                continue;
            }
            if *calls_left == 0 {
                tracing::info!("{} not run: agent.max_tool_calls reached", call.name);
                contents[position] = Some((
                    prompts::not_run(language, self.options.max_tool_calls),
                    true,
                ));
                continue;
            }
            *calls_left -= 1;
            unique.push(Planned {
                call_id: call.id.clone(),
                tool: call.name.clone(),
                params,
                positions: vec![position],
            });
        }
        for planned in &unique {
            on_event(TurnEvent::ToolCallStarted {
                call_id: planned.call_id.clone(),
                tool: planned.tool.clone(),
                params: Value::Object(planned.params.clone()),
            });
        }
        let mut running: FuturesUnordered<_> = unique
            .iter()
            .enumerate()
            .map(|(index, planned)| async move {
                let started = Instant::now();
                let result = self.call_tool(&planned.tool, planned.params.clone()).await;
                (index, result, started.elapsed())
            })
            .collect();
        while let Some((index, result, duration)) = running.next().await {
            let planned = &unique[index];
            let content = if result.success {
                result.data.clone()
            } else {
                prompts::tool_failed(language, &planned.tool, &result.error)
            };
            for &position in &planned.positions {
                contents[position] = Some((content.clone(), !result.success));
            }
            let record = ToolCallRecord {
                call_id: planned.call_id.clone(),
                tool: planned.tool.clone(),
                params: Value::Object(planned.params.clone()),
                success: result.success,
                data: result.data,
                error: result.error,
                duration,
            };
            on_event(TurnEvent::ToolCallFinished(record.clone()));
            finished.push((planned.positions[0], record));
        }
        finished.sort_by_key(|(position, _)| *position);
        records.extend(finished.into_iter().map(|(_, record)| record));
        contents
            .into_iter()
            .map(Option::unwrap_or_default)
            .collect()
    }

    async fn call_tool(&self, name: &str, params: Params) -> ToolResult {
        match self.registry.call(name, params).await {
            Ok(result) => result,
            Err(err @ CallError::UnknownTool(_)) => {
                let names: Vec<&str> = self
                    .registry
                    .available_manifests()
                    .map(|m| m.name.as_str())
                    .collect();
                ToolResult::failure(format!(
                    "{err}; the available tools are: {}",
                    names.join(", ")
                ))
            }
            Err(err) => ToolResult::failure(err.to_string()),
        }
    }
}

/// A distinct call of a round, and the positions of the calls it answers.
struct Planned {
    call_id: String,
    tool: String,
    params: Params,
    positions: Vec<usize>,
}

fn finish(
    mut conversation: Vec<Message>,
    first_new: usize,
    answer: String,
    tool_calls: Vec<ToolCallRecord>,
) -> Turn {
    conversation.push(Message::assistant(answer.clone()));
    Turn {
        answer,
        tool_calls,
        messages: conversation.split_off(first_new),
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
            duration: Duration::from_micros(12_900),
        };
        assert_eq!(
            serde_json::to_value(&record).unwrap(),
            json!({"tool": "weather", "params": {"city": "Tokyo"}, "success": true,
                   "data": "sunny", "error": "", "duration_ms": 12})
        );
    }
}
