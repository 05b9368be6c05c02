//! Which skills a turn applied, and how: what `riverse ask --json` prints
//! under `skills`, the server stores with the answer and the page shows.

use riverse_skills::SkillRun;
use serde::Serialize;

/// How a skill came to apply to a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkillTrigger {
    /// One of its keywords is in the message.
    Keyword,
    /// The message starts with `/NAME`.
    Explicit,
    /// The LLM asked for it through the built-in `skill` tool.
    Model,
}

/// One skill a turn applied.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AppliedSkill {
    pub name: String,
    pub trigger: SkillTrigger,
    /// Its steps as they ran, for a skill made of steps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<SkillRun>,
}
