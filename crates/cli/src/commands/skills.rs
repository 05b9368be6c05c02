//! `riverse skills [--json]`

use std::path::Path;

use riverse_agent::Settings;
use riverse_agent::options::skills_options;
use riverse_mcp::{McpSkills, RemoteSkill};
use riverse_skills::{Entry, Skill, SkillSet, Status, Step};
use serde::Serialize;
use serde_json::{Value, json};

use crate::output::{Exit, print, print_json};

/// `riverse skills --json`.
#[derive(Serialize)]
struct Listing<'a> {
    /// The directory read, relative to the project when inside it.
    dir: &'a Path,
    /// `skills.enabled`.
    enabled: bool,
    /// The local entries, then the MCP servers' skills.
    skills: Vec<Value>,
}

pub async fn run(settings: &Settings, as_json: bool) -> anyhow::Result<Exit> {
    let set = riverse_skills::load(&skills_options(settings));
    let remote = riverse_agent::mcp_skills(settings, &set).await;
    if as_json {
        let mut skills: Vec<Value> = set
            .entries()
            .iter()
            .map(serde_json::to_value)
            .collect::<Result<_, _>>()?;
        skills.extend(remote.skills.iter().map(remote_json));
        skills.extend(remote.failures.iter().map(failure_json));
        print_json(&Listing {
            dir: set.dir(),
            enabled: set.is_enabled(),
            skills,
        })?;
    } else {
        print(&format!("{}{}", table(&set), remote_table(&remote)))?;
    }
    Ok(Exit::Success)
}

/// A server's skill as `riverse skills --json` lists it: the keys of a
/// local one, `source.kind` `mcp`.
fn remote_json(skill: &RemoteSkill) -> Value {
    let status = match (&skill.refused, skill.conflict) {
        (None, _) => "enabled",
        (Some(_), true) => "conflict",
        (Some(_), false) => "error",
    };
    json!({
        "name": skill.name,
        "description": skill.description(),
        "status": status,
        "source": {"kind": "mcp", "server": skill.server, "uri": skill.entry.uri},
        "trigger": {"type": "model"},
        "instruction": null,
        "steps": [],
        "variables": {},
        "examples": [],
        "error": skill.refused.as_ref().map(|message| json!({"message": message})),
    })
}

/// A server that could not list its skills.
fn failure_json(error: &riverse_mcp::Error) -> Value {
    json!({
        "name": null,
        "status": "error",
        "source": {"kind": "mcp"},
        "error": {"message": error.to_string()},
    })
}

/// The servers' skills below the local table.
fn remote_table(remote: &McpSkills) -> String {
    let mut out = String::new();
    if remote.skills.is_empty() && remote.failures.is_empty() {
        return out;
    }
    out.push_str("\n\nFrom MCP servers:\n");
    for skill in &remote.skills {
        let status = remote_json(skill)["status"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let description = skill.description().lines().next().unwrap_or_default();
        out.push_str(&format!(
            "{}  {status}  mcp server \"{}\" {}  {description}\n",
            skill.name, skill.server, skill.entry.uri
        ));
        if let Some(why) = &skill.refused {
            out.push_str(&format!("    └ {why}\n"));
        }
    }
    for failure in &remote.failures {
        out.push_str(&format!("-  error  └ {failure}\n"));
    }
    let usable = remote.usable().count();
    out.push_str(&format!("{usable} of {} usable", remote.skills.len()));
    out
}

/// One row per entry; its trigger, what it applies and its error beneath.
fn table(set: &SkillSet) -> String {
    let entries = set.entries();
    if !set.is_enabled() {
        return "no skills: skills.enabled is false".to_owned();
    }
    if entries.is_empty() {
        return format!("no skills in {}", set.dir().display());
    }
    let name_of = |entry: &Entry| entry.name.clone().unwrap_or_else(|| "-".to_owned());
    let name_width = entries
        .iter()
        .map(|e| name_of(e).chars().count())
        .max()
        .unwrap_or(0)
        .max(4);
    let source_width = entries
        .iter()
        .map(|e| e.source.to_string().chars().count())
        .max()
        .unwrap_or(0)
        .max(6);
    let mut out = format!(
        "{:name_width$}  {:10}  {:source_width$}  DESCRIPTION\n",
        "NAME", "STATUS", "SOURCE"
    );
    let below = |out: &mut String, line: &str| {
        out.push_str(&format!("{:name_width$}    {line}\n", ""));
    };
    for entry in entries {
        let description = entry
            .skill
            .as_ref()
            .and_then(|skill| skill.description.lines().next())
            .unwrap_or_default();
        let row = format!(
            "{:name_width$}  {:10}  {:source_width$}  {description}",
            name_of(entry),
            entry.status.as_str(),
            entry.source.to_string(),
        );
        out.push_str(row.trim_end());
        out.push('\n');
        if let Some(skill) = entry
            .skill
            .as_ref()
            .filter(|_| entry.status != Status::Overridden)
        {
            below(&mut out, &format!("trigger: {}", skill.trigger));
            below(&mut out, &format!("applies: {}", applies(skill)));
        }
        if let Some(holder) = &entry.overridden_by {
            below(&mut out, &format!("overridden by {}", holder.display()));
        }
        if let Some(error) = &entry.error {
            below(&mut out, &format!("└ {error}"));
        }
    }
    let enabled = set.skills().count();
    out.push_str(&format!("\n{enabled} of {} enabled", entries.len()));
    out
}

/// `instruction (3 lines)`, or `steps: tool weather, respond`.
fn applies(skill: &Skill) -> String {
    if !skill.has_steps() {
        let lines = skill.instruction.trim().lines().count();
        let plural = if lines == 1 { "" } else { "s" };
        return format!("instruction ({lines} line{plural})");
    }
    let steps: Vec<String> = skill
        .steps
        .iter()
        .map(|step| match step {
            Step::Tool { tool, .. } => format!("tool {tool}"),
            Step::Respond { .. } => "respond".to_owned(),
        })
        .collect();
    format!("steps: {}", steps.join(", "))
}

/// How often a long-running command looks for changed skill files.
const SKILLS_POLL: std::time::Duration = std::time::Duration::from_millis(300);

/// The project's skills for `riverse mcp` and `/mcp`, reloaded when their
/// files change for as long as the task lives; `None` when the project has
/// no skills directory (or `skills.enabled` is false): nothing of skills is
/// declared then.
pub fn served_skills(
    settings: &Settings,
) -> Option<(riverse_mcp::LiveSkills, riverse_mcp::ReloadTask)> {
    let options = skills_options(settings);
    if !options.enabled || !options.dir.is_dir() {
        return None;
    }
    let live = riverse_mcp::LiveSkills::new(riverse_skills::load(&options));
    let task = live.reload_on_change(options, SKILLS_POLL);
    Some((live, task))
}
