//! Every skill a directory yielded, and the ones a message applies.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::LoadError;
use crate::matching::{fold, slash_command};
use crate::model::{Skill, Source, Step, Trigger};

/// What became of one skill, or of a file that yielded none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Enabled,
    /// `enabled: false`.
    Disabled,
    /// The file, or this entry of it, could not be read: see the error.
    Error,
    /// Another file already has this name; the first in load order keeps it.
    Conflict,
    /// A bundled skill whose name a project file took: the project's wins.
    Overridden,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Enabled => "enabled",
            Status::Disabled => "disabled",
            Status::Error => "error",
            Status::Conflict => "conflict",
            Status::Overridden => "overridden",
        }
    }
}

/// One skill, or one failure to read one; serialized as `riverse skills
/// --json` lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// `None` when the error came before the name.
    pub name: Option<String>,
    pub status: Status,
    pub source: Source,
    /// `None` for an error.
    pub skill: Option<Skill>,
    pub error: Option<LoadError>,
    /// Why a skill is overridden: the file that took its name.
    pub overridden_by: Option<PathBuf>,
}

/// An entry as listed: the skill's fields beside its status and error.
#[derive(Serialize)]
struct Listed<'a> {
    name: Option<&'a str>,
    description: Option<&'a str>,
    status: Status,
    source: &'a Source,
    trigger: Option<&'a Trigger>,
    instruction: Option<&'a str>,
    steps: &'a [Step],
    variables: Option<&'a Map<String, Value>>,
    examples: &'a [String],
    error: Option<&'a LoadError>,
    #[serde(skip_serializing_if = "Option::is_none")]
    overridden_by: Option<&'a Path>,
}

impl Serialize for Entry {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let skill = self.skill.as_ref();
        Listed {
            name: self.name.as_deref(),
            description: skill.map(|s| s.description.as_str()),
            status: self.status,
            source: &self.source,
            trigger: skill.map(|s| &s.trigger),
            instruction: skill.map(|s| s.instruction.as_str()),
            steps: skill.map_or(&[], |s| s.steps.as_slice()),
            variables: skill.map(|s| &s.variables),
            examples: skill.map_or(&[], |s| s.examples.as_slice()),
            error: self.error.as_ref(),
            overridden_by: self.overridden_by.as_deref(),
        }
        .serialize(serializer)
    }
}

/// A skill applied by `/NAME` at the start of a message.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Explicit<'a> {
    pub skill: &'a Skill,
    /// The rest of the message, trimmed.
    pub args: &'a str,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct SkillSet {
    /// The directory read (as shown).
    pub(crate) dir: PathBuf,
    /// `false` when `skills.enabled` turned every skill off.
    pub(crate) enabled: bool,
    pub(crate) entries: Vec<Entry>,
}

impl SkillSet {
    /// In load order: project files, then folders, then the bundled file.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The directory skills were read from, as shown.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `false` when settings turned skills off.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// The skills that can apply: enabled, and holding their name.
    pub fn skills(&self) -> impl Iterator<Item = &Skill> {
        self.entries
            .iter()
            .filter(|entry| entry.status == Status::Enabled)
            .filter_map(|entry| entry.skill.as_ref())
    }

    /// An enabled skill by name, in any case.
    pub fn get(&self, name: &str) -> Option<&Skill> {
        let wanted = fold(name);
        self.skills().find(|skill| fold(&skill.name) == wanted)
    }

    /// The keyword skills whose keywords `message` contains, in load order.
    pub fn keyword_matches(&self, message: &str) -> Vec<&Skill> {
        let message = fold(message);
        if message.trim().is_empty() {
            return Vec::new();
        }
        self.skills()
            .filter(|skill| match &skill.trigger {
                Trigger::Keyword { keywords } => keywords
                    .iter()
                    .any(|keyword| message.contains(&fold(keyword))),
                _ => false,
            })
            .collect()
    }

    /// The skill `message` names with `/NAME` at its start, and the rest of
    /// the message; `None` when it names no enabled skill.
    pub fn explicit<'a>(&'a self, message: &'a str) -> Option<Explicit<'a>> {
        let (name, args) = slash_command(message)?;
        Some(Explicit {
            skill: self.get(name)?,
            args,
        })
    }

    /// What a message applies without the LLM: the skill it names with
    /// `/NAME`, else every keyword skill it matches.
    pub fn choose(&self, message: &str) -> Vec<&Skill> {
        let named = slash_command(message).and_then(|(name, _)| self.get(name));
        match named {
            Some(skill) => vec![skill],
            None => self.keyword_matches(message),
        }
    }

    /// The skills offered to the LLM by name and description.
    pub fn offered(&self) -> impl Iterator<Item = &Skill> {
        self.skills()
            .filter(|skill| skill.trigger == Trigger::Model)
    }

    /// The skills run on a schedule.
    pub fn scheduled(&self) -> impl Iterator<Item = &Skill> {
        self.skills()
            .filter(|skill| matches!(skill.trigger, Trigger::Schedule { .. }))
    }
}
