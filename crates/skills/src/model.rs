//! A skill once read: the same for a YAML skill and a SKILL.md folder.

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Map, Value};

/// The longest skill name, as for tools.
pub const MAX_NAME_CHARS: usize = 64;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skill {
    pub name: String,
    pub description: String,
    /// `enabled: false` keeps the skill listed, and its name taken, but it is
    /// never applied.
    pub enabled: bool,
    pub trigger: Trigger,
    /// What joins the turn's system prompt when the skill applies: a YAML
    /// skill's `instruction`, a SKILL.md's body.
    pub instruction: String,
    /// When there are any, they run instead of the instruction.
    pub steps: Vec<Step>,
    /// Values for `{name}` in the steps, as written.
    pub variables: Map<String, Value>,
    /// Messages that should apply this skill (scored by `riverse eval`).
    pub examples: Vec<String>,
    pub source: Source,
    /// The front matter as written (a YAML skill's keys but `instruction`),
    /// with `name` and `description` always present: what the MCP skills
    /// extension lists.
    #[serde(skip)]
    pub(crate) frontmatter: Map<String, Value>,
    #[serde(skip)]
    pub(crate) content: Content,
}

/// Where a skill's `SKILL.md` and files come from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Content {
    /// A SKILL.md folder (absolute): its files are read from disk.
    Folder(PathBuf),
    /// A YAML skill: a SKILL.md made from its entry, and no other file.
    Rendered(String),
}

/// When a skill applies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Trigger {
    /// To a turn whose message contains one of the keywords, compared in any
    /// script and case ([`crate::fold`]).
    Keyword { keywords: Vec<String> },
    /// On a schedule: five cron fields, kept as written.
    Schedule { cron: String },
    /// Offered to the LLM by name and description, applied when it asks
    /// (a skill written without a trigger or keywords).
    Model,
}

impl fmt::Display for Trigger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Trigger::Keyword { keywords } => {
                let quoted: Vec<String> = keywords.iter().map(|k| format!("{k:?}")).collect();
                write!(f, "keywords {}", quoted.join(", "))
            }
            Trigger::Schedule { cron } => write!(f, "schedule {cron:?}"),
            Trigger::Model => f.write_str("chosen by the LLM"),
        }
    }
}

/// One step of a skill, serialized as it is written.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Step {
    /// Calls `tool` with `params`, `{var}` interpolated; its result (or its
    /// error) is kept as `save_as` for later steps.
    Tool {
        tool: String,
        params: Map<String, Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        save_as: Option<String>,
    },
    /// Has the LLM write the reply from this prompt, `{var}` interpolated;
    /// the skill ends here.
    Respond { respond: String },
}

/// Which file a skill (or a failure) comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Source {
    pub kind: SourceKind,
    /// Relative to the project when inside it.
    pub file: PathBuf,
    /// The entry's place in the file's `skills:` list, from 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(index) = self.index {
            write!(f, " skills[{index}]")?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    /// A `*.yaml` file of the project's own.
    Yaml,
    /// The `skills_{language}.yaml` that came with Riverse.
    Bundled,
    /// A `NAME/SKILL.md` folder.
    Folder,
}

/// Up to 64 letters (any script), digits, `_` and `-`, not starting with
/// `-`: a name that `/NAME` can spell and a `skill://` URI can carry.
pub fn is_valid_skill_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().count() <= MAX_NAME_CHARS
        && !name.starts_with('-')
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
}

impl Skill {
    /// Whether `steps` run instead of the instruction.
    pub fn has_steps(&self) -> bool {
        !self.steps.is_empty()
    }

    /// The SKILL.md folder, for a skill that has one.
    pub fn folder(&self) -> Option<&std::path::Path> {
        match &self.content {
            Content::Folder(folder) => Some(folder),
            Content::Rendered(_) => None,
        }
    }

    /// The front matter as written, `name` and `description` always present.
    pub fn frontmatter(&self) -> &Map<String, Value> {
        &self.frontmatter
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_take_any_script_but_no_spaces_or_slashes() {
        for good in ["explain_code", "pdf-processing", "天気", "コード解説", "a1"] {
            assert!(is_valid_skill_name(good), "{good}");
        }
        let long = "x".repeat(65);
        for bad in ["", "-x", "two words", "a/b", "a.b", long.as_str()] {
            assert!(!is_valid_skill_name(bad), "{bad}");
        }
    }
}
