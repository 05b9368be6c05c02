//! A skills directory read into a [`SkillSet`], in Riverse's order.
//!
//! Project files come first, then folders, then the bundled file, so that a
//! project's `explain_code.yaml` overrides the bundled `explain_code`, as in
//! Riverse. Within each kind, file names are read in order and the first
//! skill to take a name keeps it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::error::LoadError;
use crate::matching::fold;
use crate::model::SourceKind;
use crate::parse::{Parsed, skill_md, yaml_file};
use crate::set::{Entry, SkillSet, Status};

/// Where skills are read from, and what is read.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillsOptions {
    /// `skills.enabled`: `false` reads nothing.
    pub enabled: bool,
    /// The skills directory (`skills.dir`, `SKILLS_DIR`), absolute.
    pub dir: PathBuf,
    /// Paths inside it are shown relative to it.
    pub project_dir: PathBuf,
    /// `language`: which `skills_{language}.yaml` is read (`en`, `ja`, `zh`).
    pub language: String,
}

/// Case files beside the skills (`*.eval.yaml`) are read by `eval`, never as
/// skills.
pub(crate) const CASE_FILE_SUFFIX: &str = ".eval.yaml";

/// Reads every skill in `options.dir`; a directory that does not exist has
/// none.
pub fn load(options: &SkillsOptions) -> SkillSet {
    let mut set = SkillSet {
        dir: shown(&options.dir, &options.project_dir),
        enabled: options.enabled,
        entries: Vec::new(),
    };
    if !options.enabled {
        return set;
    }
    let names = sorted_names(&options.dir);
    let mut parsed: Vec<Parsed> = Vec::new();
    for name in names.iter().filter(|name| is_project_yaml(name)) {
        let path = options.dir.join(name);
        if path.is_file() {
            let shown = shown(&path, &options.project_dir);
            parsed.extend(yaml_file(&path, &shown, SourceKind::Yaml));
        }
    }
    for name in names.iter().filter(|name| !is_hidden(name)) {
        let folder = options.dir.join(name);
        if folder.join("SKILL.md").is_file() {
            let shown = shown(&folder.join("SKILL.md"), &options.project_dir);
            parsed.push(skill_md(&folder, &shown));
        }
    }
    if let Some(path) = bundled_file(&options.dir, &options.language) {
        let shown = shown(&path, &options.project_dir);
        parsed.extend(yaml_file(&path, &shown, SourceKind::Bundled));
    }
    set.entries = settle_names(parsed);
    set
}

/// The bundled file Riverse reads: the language's, else English, else
/// Japanese.
fn bundled_file(dir: &Path, language: &str) -> Option<PathBuf> {
    [language, "en", "ja"]
        .iter()
        .map(|language| dir.join(format!("skills_{language}.yaml")))
        .find(|path| path.is_file())
}

/// Entries with their status: a name already taken is a conflict, or, for a
/// bundled skill, overridden. A disabled skill still holds its name.
fn settle_names(parsed: Vec<Parsed>) -> Vec<Entry> {
    let mut taken: HashMap<String, PathBuf> = HashMap::new();
    parsed
        .into_iter()
        .map(|Parsed { source, result }| {
            let skill = match result {
                Ok(skill) => skill,
                Err(error) => {
                    return Entry {
                        name: None,
                        status: Status::Error,
                        source,
                        skill: None,
                        error: Some(error),
                        overridden_by: None,
                    };
                }
            };
            let mut entry = Entry {
                name: Some(skill.name.clone()),
                status: match skill.enabled {
                    true => Status::Enabled,
                    false => Status::Disabled,
                },
                source,
                skill: None,
                error: None,
                overridden_by: None,
            };
            match taken.get(&fold(&skill.name)) {
                Some(holder) if entry.source.kind == SourceKind::Bundled => {
                    entry.status = Status::Overridden;
                    entry.overridden_by = Some(holder.clone());
                }
                Some(holder) => {
                    let key = match entry.source.index {
                        Some(index) => format!("skills[{index}].name"),
                        None => "name".to_owned(),
                    };
                    let taken_by = format!(
                        "the name {:?} is already taken by {}",
                        skill.name,
                        holder.display()
                    );
                    entry.status = Status::Conflict;
                    entry.error = Some(LoadError::new(
                        &entry.source.file,
                        None,
                        Some(&key),
                        taken_by,
                    ));
                }
                None => {
                    taken.insert(fold(&skill.name), entry.source.file.clone());
                }
            }
            entry.skill = Some(skill);
            entry
        })
        .collect()
}

fn sorted_names(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().into_string().ok())
        .collect();
    names.sort();
    names
}

/// `_helper.yaml` and `.swap` files are not skills.
fn is_hidden(name: &str) -> bool {
    name.starts_with(['_', '.'])
}

/// A project's own skill file: not a bundled `skills_*.yaml` (only the
/// language's is read, later) and not a case file.
fn is_project_yaml(name: &str) -> bool {
    (name.ends_with(".yaml") || name.ends_with(".yml"))
        && !is_hidden(name)
        && !name.starts_with("skills_")
        && !name.ends_with(CASE_FILE_SUFFIX)
}

/// `path` relative to `project_dir` when inside it.
fn shown(path: &Path, project_dir: &Path) -> PathBuf {
    path.strip_prefix(project_dir)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| path.to_owned())
}
