//! The built-in `skill` tool: how the model reaches the skills offered to it
//! by name and description only (SKILL.md skills without keywords).
//!
//! It is shown with the other tools when at least one skill is offered.
//! Called with `name`, it returns the skill's instruction; with `file` too,
//! that file of the skill's folder, read by [`riverse_skills::Skill::read_file`]
//! (no absolute path, no `..`, no symbolic link out). A project tool named
//! `skill` wins: the built-in one is then not shown, and a warning says why.
//!
//! A configured MCP server's skills are listed too, as `SERVER__NAME`, by
//! name and description only: nothing of them is fetched until the model
//! calls one. Then its `SKILL.md` (or the listed file asked for) is read from
//! the server by [`riverse_mcp::RemoteSkill::read_file`], which checks the
//! digest the server listed, and returned marked with the server it came
//! from.

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
        if self.skills().offered().next().is_none()
            && self.remote_skills().usable().next().is_none()
        {
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
        let local = set
            .offered()
            .map(|skill| (&skill.name, skill.description.as_str()));
        let remote = self
            .remote_skills()
            .usable()
            .map(|skill| (&skill.name, skill.description()));
        let listed: Vec<String> = local
            .chain(remote)
            .map(|(name, description)| format!("- {name}: {}", description.trim()))
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
    /// files; a server's skill's read from the server.
    pub(crate) async fn call_skill_tool(
        &self,
        params: &serde_json::Map<String, Value>,
    ) -> ToolResult {
        let set = self.skills();
        let text = |key: &str| params.get(key).and_then(Value::as_str).map(str::trim);
        let Some(name) = text("name").filter(|name| !name.is_empty()) else {
            return ToolResult::failed(
                FailureKind::BadParameters,
                "name: a skill's name is needed",
            );
        };
        let file = text("file").filter(|file| !file.is_empty());
        if set.get(name).is_none()
            && let Some(remote) = self.remote_skills().get(name)
        {
            return call_remote_skill(remote, file).await;
        }
        let Some(skill) = set.get(name) else {
            let remote = self.remote_skills().usable().map(|skill| &skill.name);
            let offered: Vec<&str> = set
                .offered()
                .map(|skill| &skill.name)
                .chain(remote)
                .map(String::as_str)
                .collect();
            return ToolResult::failed(
                FailureKind::BadParameters,
                format!(
                    "there is no skill {name:?} (skills: {})",
                    offered.join(", ")
                ),
            );
        };
        match file {
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

/// A call of a configured MCP server's skill: its `SKILL.md` (the body, after
/// the front matter) or the listed `file`, read from the server and opened by
/// a line that names the server it came from.
async fn call_remote_skill(skill: &riverse_mcp::RemoteSkill, file: Option<&str>) -> ToolResult {
    let bytes = match skill.read_file(file.unwrap_or("SKILL.md")).await {
        Ok(bytes) => bytes,
        Err(error) => return ToolResult::failed(FailureKind::Denied, error.to_string()),
    };
    let text = String::from_utf8_lossy(&bytes);
    let (what, content) = match file {
        Some(file) => (format!("file {file} of skill"), text.as_ref()),
        None => ("skill".to_owned(), body_of(&text)),
    };
    ToolResult::ok(format!(
        "[From MCP server {:?}: {what} {} ({})]\n{}",
        skill.server,
        skill.name,
        skill.entry.uri,
        content.trim()
    ))
}

/// A `SKILL.md`'s instruction: what follows its `---` front matter (the
/// whole text when it has none).
fn body_of(skill_md: &str) -> &str {
    let mut lines = skill_md.split_inclusive('\n');
    if lines.next().map(str::trim_end) != Some("---") {
        return skill_md;
    }
    let mut at = 0;
    for line in skill_md.split_inclusive('\n') {
        at += line.len();
        if at > line.len() && line.trim_end() == "---" {
            return &skill_md[at..];
        }
    }
    skill_md
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
        let Some(asked) = record
            .params
            .as_object()
            .and_then(|params| params.get("name"))
            .and_then(Value::as_str)
            .map(str::trim)
        else {
            continue;
        };
        let name = match set.get(asked) {
            Some(skill) => Some(&skill.name),
            None => agent.remote_skills().get(asked).map(|skill| &skill.name),
        };
        if let Some(name) = name
            && !applied.iter().any(|done| done.name == *name)
        {
            applied.push(AppliedSkill {
                name: name.clone(),
                trigger: SkillTrigger::Model,
                run: None,
            });
        }
    }
    applied
}

#[cfg(test)]
mod tests {
    use super::body_of;

    #[test]
    fn a_skill_md_body_follows_its_front_matter() {
        let skill_md = "---\nname: a\ndescription: b\n---\n\nDo it.\n";
        assert_eq!(body_of(skill_md), "\nDo it.\n");
        assert_eq!(body_of("---\r\nname: a\r\n---\r\nDo it."), "Do it.");
        // No front matter, or one never closed: the whole text.
        assert_eq!(body_of("Do it.\n---\n"), "Do it.\n---\n");
        assert_eq!(body_of("----\nname: a\n---\nx"), "----\nname: a\n---\nx");
        assert_eq!(body_of("---\nname: a\n"), "---\nname: a\n");
    }
}
