//! A skill's steps, run in order through whatever hosts the turn.
//!
//! As in Riverse, a tool step's result is kept under its `save_as` for later
//! steps, and a failed step's error is kept there too, as
//! `[tool error: ...]`, so that a `respond` prompt that uses it tells the LLM
//! what went wrong. Riverse could still lose an error that no prompt used;
//! here [`SkillRun::text`] adds every failure the reply does not already
//! carry.

use async_trait::async_trait;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::interpolate::{interpolate_text, interpolate_value};
use crate::model::{Skill, Step};

/// The variable that holds the user's message (the rest after `/NAME`),
/// unless the skill defines its own.
pub const MESSAGE_VARIABLE: &str = "message";

/// What runs a skill's steps: the turn, with its tools and its LLM.
#[async_trait]
pub trait StepHost: Send + Sync {
    /// Calls tool `name`: its result's text, or the error a person reads.
    async fn call_tool(&self, name: &str, params: Map<String, Value>) -> Result<String, String>;
    /// The LLM's reply to `prompt`, or why there is none.
    async fn respond(&self, prompt: &str) -> Result<String, String>;
}

/// Every step that ran, and what the skill produced.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkillRun {
    pub skill: String,
    pub steps: Vec<StepRecord>,
    /// The LLM's reply from `respond`, else the tool results a line each.
    pub reply: String,
}

/// One step as it ran.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepRecord {
    /// From 1, as a person counts.
    pub step: usize,
    /// `respond`, or the tool called.
    pub tool: Option<String>,
    /// The params after interpolation, or the prompt.
    pub input: Value,
    pub output: StepOutput,
    /// `{name}`s that no variable defined; they were left as written.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing_variables: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepOutput {
    Ok(String),
    Error(String),
}

impl StepRecord {
    fn what(&self) -> String {
        match &self.tool {
            Some(tool) => format!("step {} (tool {tool})", self.step),
            None => format!("step {} (respond)", self.step),
        }
    }
}

impl SkillRun {
    /// `step 2 (tool weather): no city` for each step that failed.
    pub fn failures(&self) -> Vec<String> {
        self.steps
            .iter()
            .filter_map(|record| match &record.output {
                StepOutput::Error(error) => Some(format!("{}: {error}", record.what())),
                StepOutput::Ok(_) => None,
            })
            .collect()
    }

    /// What the turn adds to the conversation: the reply, and every failure
    /// whose error it does not already carry.
    pub fn text(&self) -> String {
        let unsaid: Vec<String> = self
            .steps
            .iter()
            .filter_map(|record| match &record.output {
                StepOutput::Error(error) if !self.reply.contains(error.as_str()) => Some(format!(
                    "[skill {} failed at {}: {error}]",
                    self.skill,
                    record.what()
                )),
                _ => None,
            })
            .collect();
        match (self.reply.is_empty(), unsaid.is_empty()) {
            (_, true) => self.reply.clone(),
            (true, false) => unsaid.join("\n"),
            (false, false) => format!("{}\n\n{}", self.reply, unsaid.join("\n")),
        }
    }
}

/// Runs `skill`'s steps for `message`; a `respond` step ends them.
pub async fn run_steps(skill: &Skill, message: &str, host: &dyn StepHost) -> SkillRun {
    let mut variables = skill.variables.clone();
    variables
        .entry(MESSAGE_VARIABLE)
        .or_insert_with(|| Value::String(message.to_owned()));
    let mut records = Vec::new();
    let mut results = Vec::new();
    for (index, step) in skill.steps.iter().enumerate() {
        let number = index + 1;
        match step {
            Step::Tool {
                tool,
                params,
                save_as,
            } => {
                let (input, missing) =
                    interpolate_value(&Value::Object(params.clone()), &variables);
                let params = match &input {
                    Value::Object(params) => params.clone(),
                    _ => Map::new(),
                };
                let (output, text) = match host.call_tool(tool, params).await {
                    Ok(data) => (StepOutput::Ok(data.clone()), data),
                    Err(error) => (
                        StepOutput::Error(error.clone()),
                        format!("[tool error: {error}]"),
                    ),
                };
                if let Some(name) = save_as {
                    variables.insert(name.clone(), Value::String(text.clone()));
                }
                results.push(text);
                records.push(StepRecord {
                    step: number,
                    tool: Some(tool.clone()),
                    input,
                    output,
                    missing_variables: missing,
                });
            }
            Step::Respond { respond } => {
                let (prompt, missing) = interpolate_text(respond, &variables);
                let output = match host.respond(&prompt).await {
                    Ok(reply) => StepOutput::Ok(reply),
                    Err(error) => StepOutput::Error(error),
                };
                let reply = match &output {
                    StepOutput::Ok(reply) => reply.clone(),
                    StepOutput::Error(_) => results.join("\n"),
                };
                records.push(StepRecord {
                    step: number,
                    tool: None,
                    input: Value::String(prompt),
                    output,
                    missing_variables: missing,
                });
                return SkillRun {
                    skill: skill.name.clone(),
                    steps: records,
                    reply,
                };
            }
        }
    }
    SkillRun {
        skill: skill.name.clone(),
        steps: records,
        reply: results.join("\n"),
    }
}
