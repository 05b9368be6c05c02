//! `riverse new --skill NAME`: a commented SKILL.md folder to start from.

use anyhow::Context;
use riverse_agent::Settings;
use riverse_skills::is_valid_skill_name;

use crate::output::{Exit, print, usage};

const SKILL_MD: &str = include_str!("../../templates/new/SKILL.md");

pub fn run(settings: &Settings, name: &str) -> anyhow::Result<Exit> {
    // A folder starting with `_` is skipped when skills are read.
    if !is_valid_skill_name(name) || name.starts_with('_') {
        return Err(usage(format!(
            "{name:?} can't name a skill: use up to 64 letters, digits, _ and - (neither first), as in release-notes"
        )));
    }
    let folder = settings.skills_dir().join(name);
    if folder.exists() {
        return Err(usage(format!("{} already exists", folder.display())));
    }
    std::fs::create_dir_all(&folder)
        .with_context(|| format!("can't create {}", folder.display()))?;
    let file = folder.join("SKILL.md");
    std::fs::write(&file, SKILL_MD.replace("__NAME__", name))
        .with_context(|| format!("can't write {}", file.display()))?;
    print(&format!(
        "created {}\nNext:\n  edit {}\n  riverse --dir {} skills",
        file.display(),
        file.display(),
        settings.project_dir.display()
    ))?;
    Ok(Exit::Success)
}
