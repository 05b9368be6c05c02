//! The built-in `skill` tool: how the model reaches the skills offered to it
//! by name and description only (SKILL.md skills without keywords).
//!
//! It is shown with the other tools when at least one skill is offered.
//! Called with `name`, it returns the skill's instruction; with `file` too,
//! that file of the skill's folder, read by [`riverse_skills::Skill::read_file`]
//! (no absolute path, no `..`, no symbolic link out). A project tool named
//! `skill` wins: the built-in one is then not shown, and a warning says why.

use riverse_tool::{CallRecord, FailureKind, ToolManifest, ToolResult};
use serde_json::{Value, json};

use super::{Agent, AppliedSkill, SkillTrigger};

/// The built-in tool's name.
pub(crate) const SKILL_TOOL: &str = "skill";

const FILE_PARAMETER: &str =
    "Optional: a file of the skill's folder to read, as its instructions name it";

impl Agent {
    /// Whether the built-in `skill` tool is shown: some skill is offered and
    /// no tool of the project takes the name.
    pub(crate) fn offers_skill_tool(&self) -> bool {
        if self.skills().offered().next().is_none() {
            return false;
        }
        if self.registry().get(SKILL_TOOL).is_some() {
            tracing::warn!(
                "a tool named {SKILL_TOOL:?} hides the built-in one: skills without keywords are not offered"
            );
            return false;
        }
        true
    }

    /// The built-in tool's manifest, listing the skills offered.
    pub(crate) fn skill_manifest(&self) -> ToolManifest {
        let set = self.skills();
        let listed: Vec<String> = set
            .offered()
            .map(|skill| format!("- {}: {}", skill.name, skill.description.trim()))
            .collect();
        let description = format!(
            "Load a skill: instructions for one kind of request. Call it with the skill's name \
             when the request fits one of these skills, then follow what it returns.\n{}",
            listed.join("\n")
        );
        let parameters = [("name", "The skill's name"), ("file", FILE_PARAMETER)]
            .into_iter()
            .map(|(name, text)| (name.to_owned(), text.to_owned()))
            .collect();
        ToolManifest {
            name: SKILL_TOOL.to_owned(),
            description,
            parameters,
            input_schema: Some(json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "The skill's name"},
                    "file": {
                        "type": "string",
                        "description": FILE_PARAMETER
                    }
                },
                "required": ["name"]
            })),
            ..ToolManifest::default()
        }
    }

    /// A call of the built-in tool: the skill's instruction, or one of its
    /// files.
    pub(crate) fn call_skill_tool(&self, params: &serde_json::Map<String, Value>) -> ToolResult {
        let set = self.skills();
        let text = |key: &str| params.get(key).and_then(Value::as_str).map(str::trim);
        let Some(name) = text("name").filter(|name| !name.is_empty()) else {
            return ToolResult::failed(
                FailureKind::BadParameters,
                "name: a skill's name is needed",
            );
        };
        let Some(skill) = set.get(name) else {
            let offered: Vec<&str> = set.offered().map(|skill| skill.name.as_str()).collect();
            return ToolResult::failed(
                FailureKind::BadParameters,
                format!(
                    "there is no skill {name:?} (skills: {})",
                    offered.join(", ")
                ),
            );
        };
        match text("file").filter(|file| !file.is_empty()) {
            None if skill.instruction.trim().is_empty() => {
                ToolResult::ok(format!("Skill {} has no instruction.", skill.name))
            }
            None => ToolResult::ok(skill.instruction.clone()),
            Some(file) => match skill.read_file(file) {
                Ok(bytes) => ToolResult::ok(String::from_utf8_lossy(&bytes).into_owned()),
                Err(error) => ToolResult::failed(FailureKind::Denied, error.to_string()),
            },
        }
    }
}

/// The skills the model applied through the built-in tool, once each, in
/// the order first called.
pub(crate) fn chosen_by_model(agent: &Agent, records: &[CallRecord]) -> Vec<AppliedSkill> {
    if agent.registry().get(SKILL_TOOL).is_some() {
        return Vec::new();
    }
    let set = agent.skills();
    let mut applied: Vec<AppliedSkill> = Vec::new();
    for record in records {
        if record.tool != SKILL_TOOL || !record.succeeded() {
            continue;
        }
        let name = record
            .params
            .as_object()
            .and_then(|params| params.get("name"))
            .and_then(Value::as_str)
            .and_then(|name| set.get(name.trim()));
        if let Some(skill) = name
            && !applied.iter().any(|done| done.name == skill.name)
        {
            applied.push(AppliedSkill {
                name: skill.name.clone(),
                trigger: SkillTrigger::Model,
                run: None,
            });
        }
    }
    applied
}
