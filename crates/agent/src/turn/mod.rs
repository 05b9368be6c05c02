//! One agent turn: a message in, tools run, an answer out.
//!
//! The turn builds the conversation (system prompt, history, the message),
//! lets the model pick tools (natively, or through the dispatcher prompt),
//! runs each round's calls concurrently, gives every result back, failures
//! included, and streams the answer. Front ends watch it through
//! [`TurnEvent`]s and keep the [`Turn`]'s messages as their history.
//!
//! The two routing modes live in `native` and `dispatcher`; both run their
//! calls through the round executor, `round`.
//!
//! Skills apply before the model is asked (`skills`: `/NAME`, keywords,
//! instructions into the system prompt, steps run through `round`); the
//! skills offered to the model are reached through the built-in `skill`
//! tool (`skill_tool`). [`Turn::skills`] records them.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;
use riverse_llm::{ChatRequest, ChatResponse, Message, Provider, ToolCall, ToolChoice, Usage};
use riverse_skills::SkillSet;
use riverse_tool::{
    Arguments, CallRecord, LiveRegistry, LogLine, Progress, Question, Registry, Sampler,
    ToolManifest,
};
use tracing::Instrument;

use crate::{Language, ToolMode};

mod applied;
mod asked;
mod background;
mod client;
mod conversation;
mod dispatcher;
mod listening;
mod native;
mod offer;
mod plan;
mod prompts;
mod record;
mod reply;
mod round;
mod route;
mod selection;
mod shown;
mod skill_tool;
mod skills;
mod span;

pub use applied::{AppliedSkill, SkillTrigger};
pub use background::{BackgroundTask, CANCELLED, TaskEnd, TaskQuestion};
pub use client::ToolUse;
pub use listening::{ProviderSampler, QuestionReply};
pub use route::RoutedCall;
pub use selection::ToolSelector;
use shown::Selection;
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
    /// `tools.<name>.background`, by tool.
    pub background: std::collections::BTreeMap<String, crate::Background>,
}

/// What a turn reports as it goes.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnEvent {
    ToolCallStarted {
        call_id: String,
        tool: String,
        params: Arguments,
    },
    ToolCallFinished(CallRecord),
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
    /// A call still running after its tool's `background.after` became
    /// this task: it goes on after the turn, and the model was told so. The
    /// call's `ToolCallFinished` follows, with what the model read.
    TaskStarted(BackgroundTask),
    /// A piece of the model's text, as it streams in.
    AnswerDelta(String),
    Done {
        answer: String,
    },
}

/// A finished turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub answer: String,
    /// In the order the model asked for them.
    pub tool_calls: Vec<CallRecord>,
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
    /// The skills the turn applied, in the order they were applied.
    pub skills: Vec<AppliedSkill>,
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
    /// The project's skills: a set, or the reloaded sets it follows.
    skills: parking_lot::RwLock<Skills>,
    /// The configured MCP servers' skills (`SERVER__NAME`), offered to the
    /// model through the built-in `skill` tool.
    remote_skills: Arc<riverse_mcp::McpSkills>,
}

/// Where a turn's skills come from.
enum Skills {
    Fixed(Arc<SkillSet>),
    /// Each turn takes the set in use then (hot reload).
    Following(tokio::sync::watch::Receiver<Arc<SkillSet>>),
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
            skills: parking_lot::RwLock::new(Skills::Fixed(Arc::new(SkillSet::default()))),
            remote_skills: Arc::default(),
        }
    }

    /// The agent, offering the configured MCP servers' `remote` skills to
    /// the model beside its own.
    pub fn with_remote_skills(mut self, remote: riverse_mcp::McpSkills) -> Self {
        self.remote_skills = Arc::new(remote);
        self
    }

    /// The configured MCP servers' skills this agent offers.
    pub fn remote_skills(&self) -> &riverse_mcp::McpSkills {
        &self.remote_skills
    }

    /// The agent, applying `skills` to its turns.
    pub fn with_skills(self, skills: SkillSet) -> Self {
        self.set_skills(skills);
        self
    }

    /// Replaces the skills, for the next turn on.
    pub fn set_skills(&self, skills: SkillSet) {
        *self.skills.write() = Skills::Fixed(Arc::new(skills));
    }

    /// From now on, each turn applies the set `changes` holds then: the
    /// skills hot reload keeps up to date (`riverse_mcp::LiveSkills`).
    pub fn follow_skills(&self, changes: tokio::sync::watch::Receiver<Arc<SkillSet>>) {
        *self.skills.write() = Skills::Following(changes);
    }

    /// The skills in use now.
    pub fn skills(&self) -> Arc<SkillSet> {
        match &*self.skills.read() {
            Skills::Fixed(set) => set.clone(),
            Skills::Following(changes) => changes.borrow().clone(),
        }
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
        let applying = self.apply_skills(message, on_event).await;
        let message = applying.message.as_deref().or(message);
        let note = applying.note.as_str();
        let turn = match self.routing() {
            ToolMode::Dispatcher => {
                self.dispatched_turn(history, message, note, tool_use, on_event)
                    .await
            }
            _ => match self
                .native_turn(history, message, note, tool_use, on_event)
                .await
            {
                Err(TurnError::Llm(err)) if self.falls_back(&err) => {
                    self.dispatched_turn(history, message, note, tool_use, on_event)
                        .await
                }
                other => other,
            },
        }?;
        let turn = self.with_skills_applied(turn, applying);
        on_event(TurnEvent::Done {
            answer: turn.answer.clone(),
        });
        Ok(turn)
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
}

impl Agent {
    /// `turn` with the skills applied before it and those the model chose,
    /// the steps' calls first among its tool calls.
    fn with_skills_applied(&self, turn: Turn, applying: skills::Applying) -> Turn {
        let mut applied = applying.skills;
        applied.extend(skill_tool::chosen_by_model(self, &turn.tool_calls));
        let mut tool_calls = applying.records;
        tool_calls.extend(turn.tool_calls);
        Turn {
            skills: applied,
            tool_calls,
            usage: Usage::sum(applying.usage, turn.usage),
            ..turn
        }
    }
}

fn refuses_tools(err: &riverse_llm::Error) -> bool {
    match err {
        riverse_llm::Error::ToolsUnsupported { .. } => true,
        riverse_llm::Error::GaveUp { last, .. } => refuses_tools(last),
        _ => false,
    }
}
