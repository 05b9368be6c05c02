//! `riverse skills [--json]`

use std::path::Path;

use riverse_agent::Settings;
use riverse_agent::options::skills_options;
use riverse_skills::{Entry, Skill, SkillSet, Status, Step};
use serde::Serialize;

use crate::output::{Exit, print, print_json};

/// `riverse skills --json`.
#[derive(Serialize)]
struct Listing<'a> {
    /// The directory read, relative to the project when inside it.
    dir: &'a Path,
    /// `skills.enabled`.
    enabled: bool,
    skills: &'a [Entry],
}

pub fn run(settings: &Settings, as_json: bool) -> anyhow::Result<Exit> {
    let set = riverse_skills::load(&skills_options(settings));
    if as_json {
        print_json(&Listing {
            dir: set.dir(),
            enabled: set.is_enabled(),
            skills: set.entries(),
        })?;
    } else {
        print(&table(&set))?;
    }
    Ok(Exit::Success)
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
