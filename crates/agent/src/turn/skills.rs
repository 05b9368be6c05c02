//! Skills applied to a turn before the model is asked.
//!
//! `/NAME args` at the start of the message applies that skill alone, and
//! the model answers `args`; otherwise every keyword skill the message
//! matches applies. A skill's instruction joins the turn's system prompt
//! (never the message: the embedded model routes on the user's message
//! alone, so an instruction cannot turn it from the call it would make). A
//! skill's steps run first, through the registry's normal call path (the
//! same approvals, sandbox and limits, shown as the turn's tool calls), and
//! what they produced, failures included, joins the system prompt too.

use async_trait::async_trait;
use riverse_llm::{ChatRequest, Message, ToolChoice, Usage};
use riverse_skills::{Skill, StepHost, run_steps};
use riverse_tool::{CallRecord, ToolManifest};
use serde_json::{Map, Value};
use tokio::sync::Mutex;

use super::asked::{Arguments, AskedCall};
use super::offer::Offer;
use super::{Agent, AppliedSkill, EventSink, SkillTrigger, prompts};

/// What the skills a message applies add to its turn.
#[derive(Default)]
pub(crate) struct Applying {
    pub skills: Vec<AppliedSkill>,
    /// What joins the turn's system prompt; empty when no skill applies.
    pub note: String,
    /// The message the model answers, when it is not the user's: the rest
    /// after `/NAME`.
    pub message: Option<String>,
    /// The steps' tool calls, in order.
    pub records: Vec<CallRecord>,
    pub usage: Option<Usage>,
}

impl Agent {
    /// Applies the skills `message` calls for: their instructions noted,
    /// their steps run.
    pub(crate) async fn apply_skills(
        &self,
        message: Option<&str>,
        on_event: EventSink<'_>,
    ) -> Applying {
        let mut applying = Applying::default();
        let Some(message) = message else {
            return applying;
        };
        let set = self.skills();
        let (chosen, trigger, input) = match set.explicit(message) {
            Some(explicit) => {
                if !explicit.args.is_empty() {
                    applying.message = Some(explicit.args.to_owned());
                }
                (vec![explicit.skill], SkillTrigger::Explicit, explicit.args)
            }
            None => (set.keyword_matches(message), SkillTrigger::Keyword, message),
        };
        let mut notes = Vec::new();
        for skill in chosen {
            tracing::info!("skill {} applies ({trigger:?})", skill.name);
            let mut note = vec![skill_heading(skill)];
            if !skill.instruction.trim().is_empty() {
                note.push(skill.instruction.trim().to_owned());
            }
            let mut run = None;
            if skill.has_steps() {
                let host = TurnSteps::new(self, &skill.name, &mut *on_event);
                let ran = run_steps(skill, input, &host).await;
                let output = prompts::skill_output(self.options.language, &ran.text());
                note.push(output);
                applying.records.extend(host.records.into_inner());
                applying.usage = Usage::sum(applying.usage.take(), host.usage.into_inner());
                run = Some(ran);
            }
            notes.push(note.join("\n"));
            applying.skills.push(AppliedSkill {
                name: skill.name.clone(),
                trigger,
                run,
            });
        }
        applying.note = notes.join("\n\n");
        applying
    }
}

/// `[Skill: NAME — description]`, the line that opens a skill's note.
fn skill_heading(skill: &Skill) -> String {
    match skill.description.trim() {
        "" => format!("[Skill: {}]", skill.name),
        description => format!("[Skill: {} — {description}]", skill.name),
    }
}

/// The system prompt with the applied skills' note after it.
pub(crate) fn with_note(system: &str, note: &str) -> String {
    match note.is_empty() {
        true => system.to_owned(),
        false => format!("{system}\n\n{note}"),
    }
}

/// A skill's steps run in the turn: tool calls through the registry, shown
/// and recorded as the turn's, and `respond` asked of the turn's provider.
struct TurnSteps<'t, 'e> {
    agent: &'t Agent,
    skill: &'t str,
    on_event: Mutex<EventSink<'e>>,
    records: Mutex<Vec<CallRecord>>,
    /// `agent.max_tool_calls`, for the steps of one skill.
    calls_left: Mutex<usize>,
    usage: Mutex<Option<Usage>>,
    /// The tools a step may call: every available one.
    tools: Vec<ToolManifest>,
}

impl<'t, 'e> TurnSteps<'t, 'e> {
    fn new(agent: &'t Agent, skill: &'t str, on_event: EventSink<'e>) -> Self {
        TurnSteps {
            agent,
            skill,
            on_event: Mutex::new(on_event),
            records: Mutex::new(Vec::new()),
            calls_left: Mutex::new(agent.options.max_tool_calls),
            usage: Mutex::new(None),
            tools: agent.registry().available_manifests().cloned().collect(),
        }
    }
}

#[async_trait]
impl StepHost for TurnSteps<'_, '_> {
    async fn call_tool(&self, name: &str, params: Map<String, Value>) -> Result<String, String> {
        if !self.tools.iter().any(|tool| tool.name == name) {
            return Err(format!("there is no tool {name:?}"));
        }
        let mut records = self.records.lock().await;
        let call = AskedCall {
            id: format!("skill_{}_{}", self.skill, records.len() + 1),
            tool: name.to_owned(),
            arguments: Arguments::Object(params),
        };
        let offer = Offer::new(&self.tools, &ToolChoice::Auto);
        let mut calls_left = self.calls_left.lock().await;
        let mut on_event = self.on_event.lock().await;
        let first = records.len();
        let replies = self
            .agent
            .run_round(
                &[call],
                offer,
                &mut calls_left,
                &mut records,
                &mut **on_event,
            )
            .await;
        let reply = replies.into_iter().next().unwrap_or_default();
        match records.get(first) {
            Some(record) if record.succeeded() => Ok(reply.content),
            Some(record) if !record.error.is_empty() => Err(record.error.clone()),
            _ => Err(reply.content),
        }
    }

    async fn respond(&self, prompt: &str) -> Result<String, String> {
        let system = prompts::system(self.agent.options.language).to_owned();
        let messages = [Message::System(system), Message::User(prompt.to_owned())];
        let request = ChatRequest {
            messages: &messages,
            tools: &[],
            temperature: None,
            max_tokens: None,
            tool_choice: &ToolChoice::Auto,
            parallel_tool_calls: None,
        };
        match self.agent.provider.complete(request, None).await {
            Ok(response) => {
                let mut usage = self.usage.lock().await;
                *usage = Usage::sum(usage.take(), response.usage);
                Ok(response.text)
            }
            Err(error) => Err(error.to_string()),
        }
    }
}
