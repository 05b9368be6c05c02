//! Why a skill file, or one entry of it, yielded no skill.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// `agent/skills/bad.yaml:4: trigger.keywords: expected a list of text`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoadError {
    /// Relative to the project when inside it.
    pub file: PathBuf,
    /// From 1; none when the fault is the whole file's.
    pub line: Option<usize>,
    /// The key at fault, as a path (`skills[1].trigger`).
    pub key: Option<String>,
    pub message: String,
}

impl std::error::Error for LoadError {}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        f.write_str(": ")?;
        if let Some(key) = &self.key {
            write!(f, "{key}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl LoadError {
    pub(crate) fn new(
        file: &Path,
        line: Option<usize>,
        key: Option<&str>,
        message: String,
    ) -> Self {
        LoadError {
            file: file.to_owned(),
            line,
            key: key.map(str::to_owned),
            message,
        }
    }

    /// A YAML reader's error, its line moved down by `line_offset` (the
    /// lines before the YAML: a SKILL.md's opening `---`).
    pub(crate) fn from_yaml(file: &Path, err: &serde_yaml_ng::Error, line_offset: usize) -> Self {
        let line = err.location().map(|at| at.line() + line_offset);
        // The reader writes `path: message at line L column C`; the line is
        // kept apart, and so is the path, which names the key.
        let text = err.to_string();
        let text = text.split(" at line ").next().unwrap_or_default();
        let (key, message) = match text.split_once(": ") {
            Some((path, rest)) if looks_like_key_path(path) => (Some(path), rest),
            _ => (None, text),
        };
        LoadError::new(file, line, key, message.to_owned())
    }
}

/// `skills[1].trigger`, `name`: no spaces, and made of key characters.
fn looks_like_key_path(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '[' | ']'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_line_and_key_from_the_yaml_reader() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Shape {
            trigger: Inner,
        }
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Inner {
            keywords: Vec<String>,
        }
        let err = serde_yaml_ng::from_str::<Shape>("trigger:\n  keywords: 3\n").unwrap_err();
        let error = LoadError::from_yaml(Path::new("a.yaml"), &err, 0);
        assert_eq!(error.line, Some(2));
        assert_eq!(error.key.as_deref(), Some("trigger.keywords"));
        assert_eq!(
            error.to_string(),
            "a.yaml:2: trigger.keywords: invalid type: integer `3`, expected a sequence"
        );
    }

    #[test]
    fn a_syntax_error_keeps_its_line() {
        let err = serde_yaml_ng::from_str::<serde_yaml_ng::Value>("a: [1,\nb: 2\n").unwrap_err();
        let error = LoadError::from_yaml(Path::new("a.yaml"), &err, 1);
        assert!(error.line.is_some());
        assert_eq!(error.key, None);
        assert!(!error.message.contains("at line"), "{}", error.message);
    }
}
