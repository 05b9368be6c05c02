//! The `skills` section: whether skills are read, and from where.
//!
//! ```yaml
//! skills:
//!   enabled: true         # Riverse's key: false reads no skill
//!   dir: agent/skills     # relative to the project; SKILLS_DIR overrides it
//! ```

use std::path::PathBuf;

use serde::Deserialize;

use super::values::{NonEmpty, Scalar, Warnings};

const DEFAULT_SKILLS_DIR: &str = "agent/skills";
/// Riverse's variable for the skills directory, honoured as it was there.
pub const SKILLS_DIR_VARIABLE: &str = "SKILLS_DIR";

#[derive(Debug, Clone, PartialEq)]
pub struct SkillsSettings {
    /// `skills.enabled`.
    pub enabled: bool,
    /// `skills.dir`, or `SKILLS_DIR`: relative to the project, or absolute.
    pub dir: PathBuf,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawSkills {
    enabled: Option<Scalar<bool>>,
    dir: Option<NonEmpty>,
}

pub(super) fn skills_settings(raw: RawSkills, warnings: &mut Warnings) -> SkillsSettings {
    SkillsSettings {
        enabled: raw
            .enabled
            .is_none_or(|enabled| warnings.take("skills.enabled", enabled)),
        dir: PathBuf::from(
            raw.dir
                .map_or_else(|| DEFAULT_SKILLS_DIR.to_owned(), |dir| dir.0),
        ),
    }
}

impl SkillsSettings {
    /// `SKILLS_DIR`, when set and not empty, wins over `skills.dir`.
    pub(super) fn apply_env(&mut self, variable: &dyn Fn(&str) -> Option<String>) {
        if let Some(dir) = variable(SKILLS_DIR_VARIABLE).filter(|dir| !dir.trim().is_empty()) {
            self.dir = PathBuf::from(dir.trim());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use pretty_assertions::assert_eq;

    use crate::settings::{Settings, SettingsError};

    fn settings(yaml: &str) -> Result<Settings, SettingsError> {
        Settings::from_yaml(Path::new("/project"), None, yaml)
    }

    #[test]
    fn skills_default_to_agent_skills_and_read_their_section() {
        let default = settings("").unwrap();
        assert!(default.skills.enabled);
        assert_eq!(default.skills_dir(), Path::new("/project/agent/skills"));
        let own = settings("skills:\n  enabled: \"false\"\n  dir: my/skills\n").unwrap();
        assert!(!own.skills.enabled);
        assert_eq!(own.skills_dir(), Path::new("/project/my/skills"));
        assert_eq!(
            own.warnings,
            ["settings.yaml: skills.enabled: \"false\" is text; read as false"]
        );
        let absolute = settings("skills: {dir: /srv/skills}\n").unwrap();
        assert_eq!(absolute.skills_dir(), Path::new("/srv/skills"));
    }

    #[test]
    fn a_bad_skills_value_is_an_error_naming_the_key() {
        for (yaml, expected) in [
            (
                "skills:\n  dir: \"\"\n",
                "settings.yaml: skills.dir: must not be empty at line 2 column 8",
            ),
            (
                "skills:\n  enabled: maybe\n",
                "settings.yaml: skills.enabled: expected true or false, got \"maybe\" at line 2 column 12",
            ),
            (
                "skills: [agent/skills]\n",
                "settings.yaml: skills: invalid type: sequence, expected struct RawSkills at line 1 column 9",
            ),
        ] {
            let error = settings(yaml).unwrap_err().to_string();
            assert_eq!(error, expected, "{yaml}");
        }
    }

    #[test]
    fn skills_dir_in_the_environment_wins() {
        let mut skills = settings("skills: {dir: mine}\n").unwrap().skills;
        skills.apply_env(&|_| Some("  ".into()));
        assert_eq!(skills.dir, Path::new("mine"));
        skills.apply_env(&|name| (name == "SKILLS_DIR").then(|| "/opt/riverse/skills".into()));
        assert_eq!(skills.dir, Path::new("/opt/riverse/skills"));
    }
}
