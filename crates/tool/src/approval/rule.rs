//! One rule of a policy and how it reads a call's arguments: its patterns
//! ([`ArgumentPattern`]) matched against every form of each value.

use std::collections::BTreeMap;

use regex_lite::Regex;
use serde_json::Value;

use super::ApprovalMode;
use super::spelling::{self, Form, Places};

/// What one parameter's value must be for a rule to match: a string it
/// equals, a prefix, a regex over the whole value, or any of several.
#[derive(Debug, Clone, PartialEq)]
pub struct ArgumentPattern(Pattern);

#[derive(Debug, Clone)]
enum Pattern {
    Exact(String),
    Prefix(String),
    /// Anchored at both ends; `folded` ignores ASCII case.
    Regex {
        exact: Regex,
        folded: Regex,
    },
    Any(Vec<ArgumentPattern>),
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Pattern::Exact(a), Pattern::Exact(b)) | (Pattern::Prefix(a), Pattern::Prefix(b)) => {
                a == b
            }
            (Pattern::Regex { exact: a, .. }, Pattern::Regex { exact: b, .. }) => {
                a.as_str() == b.as_str()
            }
            (Pattern::Any(a), Pattern::Any(b)) => a == b,
            _ => false,
        }
    }
}

impl ArgumentPattern {
    /// The value equals `text` (a value that is no string, as its JSON).
    pub fn exact(text: impl Into<String>) -> Self {
        ArgumentPattern(Pattern::Exact(text.into()))
    }

    /// The value starts with `text`, at a word boundary; for an `auto`
    /// rule, it chains no shell command and has no `..` component.
    pub fn prefix(text: impl Into<String>) -> Self {
        ArgumentPattern(Pattern::Prefix(text.into()))
    }

    /// The whole value matches `regex`.
    pub fn regex(regex: &str) -> Result<Self, regex_lite::Error> {
        let compile = |flags: &str| Regex::new(&format!("{flags}^(?:{regex})$"));
        Ok(ArgumentPattern(Pattern::Regex {
            exact: compile("")?,
            folded: compile("(?i)")?,
        }))
    }

    /// Any of `patterns` matches.
    pub fn any(patterns: Vec<ArgumentPattern>) -> Self {
        ArgumentPattern(Pattern::Any(patterns))
    }
}

/// One rule: when every parameter matches its pattern, `mode` applies.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Rule {
    /// `tools.<name>.approval.auto[0]`.
    pub(super) key: String,
    pub(super) mode: ApprovalMode,
    pub(super) when: Vec<(String, ArgumentPattern)>,
}

impl Rule {
    pub(super) fn matches(&self, arguments: &BTreeMap<&str, Argument>, places: &Places) -> bool {
        self.when.iter().all(|(param, pattern)| {
            arguments
                .get(param.as_str())
                .is_some_and(|argument| match self.mode {
                    ApprovalMode::Auto => argument.lets_through(pattern, places),
                    ApprovalMode::Ask | ApprovalMode::Deny => argument.holds_back(pattern, places),
                })
        })
    }
}

/// How a rule reads a value: in one form, and folded or not.
#[derive(Debug, Clone, Copy)]
struct Reading {
    form: Form,
    /// Composed and in lower case: how rules that hold calls back read.
    folded: bool,
}

impl Reading {
    fn of(self, text: &str, places: &Places) -> String {
        let read = places.read(self.form, text);
        if self.folded {
            spelling::folded(&read)
        } else {
            read
        }
    }
}

/// One argument as its rules read it: a string in every form, anything else
/// as its JSON.
pub(super) struct Argument {
    readings: Vec<(Reading, String)>,
    /// Whether an `auto` rule may let it through at all.
    plain: bool,
}

impl Argument {
    pub(super) fn read(value: &Value, places: &Places) -> Argument {
        let (text, forms) = match value {
            Value::String(text) => (text.clone(), &Form::ALL[..]),
            other => (other.to_string(), &[Form::Sent][..]),
        };
        let readings = [false, true]
            .into_iter()
            .flat_map(|folded| forms.iter().map(move |&form| Reading { form, folded }))
            .map(|reading| (reading, reading.of(&text, places)))
            .collect();
        Argument {
            readings,
            plain: places.reads_plainly(&text),
        }
    }

    /// Whether an `auto` rule's `pattern` lets this through: it matches
    /// every form, as it is written.
    fn lets_through(&self, pattern: &ArgumentPattern, places: &Places) -> bool {
        self.plain
            && self
                .readings
                .iter()
                .filter(|(reading, _)| !reading.folded)
                .all(|(reading, text)| pattern.matches(text, *reading, places, true))
    }

    /// Whether an `ask` or `deny` rule's `pattern` holds this back: it
    /// matches any form, folded or not.
    fn holds_back(&self, pattern: &ArgumentPattern, places: &Places) -> bool {
        self.readings
            .iter()
            .any(|(reading, text)| pattern.matches(text, *reading, places, false))
    }
}

/// Characters that make one shell command several, or substitute one.
const SHELL_OPERATORS: &[char] = &[';', '&', '|', '<', '>', '$', '`', '(', ')', '\n', '\r'];

impl ArgumentPattern {
    /// Whether `value`, read as `reading`, matches; a pattern's text is read
    /// the same way first. `lets_through`: for an `auto` rule, whose prefix
    /// matches no chained command and no `..`.
    fn matches(&self, value: &str, reading: Reading, places: &Places, lets_through: bool) -> bool {
        match &self.0 {
            Pattern::Exact(text) => value == reading.of(text, places),
            Pattern::Regex { exact, folded } => {
                if reading.folded {
                    folded.is_match(value)
                } else {
                    exact.is_match(value)
                }
            }
            Pattern::Any(patterns) => patterns
                .iter()
                .any(|pattern| pattern.matches(value, reading, places, lets_through)),
            Pattern::Prefix(text) => {
                let mut prefix = reading.of(text, places);
                // Read as a path, `notes/` is `notes`, which `notes.sh` starts with.
                if (text.ends_with('/') || text.ends_with("/.")) && !prefix.ends_with('/') {
                    prefix.push('/');
                }
                let Some(rest) = value.strip_prefix(prefix.as_str()) else {
                    return false;
                };
                // `ls` is not a prefix of `lsblk`; `notes/` is of `notes/a`.
                let at_boundary = rest.is_empty()
                    || !prefix.ends_with(|c: char| c.is_alphanumeric())
                    || !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '-');
                at_boundary
                    && !(lets_through
                        && (value.contains(SHELL_OPERATORS) || has_parent_component(value)))
            }
        }
    }
}

fn has_parent_component(value: &str) -> bool {
    value
        .split(|c: char| c == '/' || c == '\\' || c.is_whitespace())
        .any(|component| component == "..")
}
