//! Whether a call may run: `tools.<name>.approval`, and what was decided.
//!
//! A policy is a mode (`auto`, `ask`, `deny`) or a mode with rules over the
//! call's arguments:
//!
//! ```yaml
//! approval:
//!   default: ask
//!   auto: [{command: {prefix: "git status"}}, {command: {prefix: ls}}]
//!   deny: [{command: {regex: ".*rm\\s+-rf.*"}}]
//! ```
//!
//! Each rule is a map of parameters to patterns, all of which must match. Of
//! the rules that match a call, the strictest wins (`deny`, then `ask`, then
//! `auto`); when none matches, `default` does. A pattern is a string (the
//! value equals it), `{prefix: …}`, `{regex: …}` (the whole value matches),
//! or a list of patterns (any matches). A prefix never matches a value with
//! a shell operator or a `..` component, so `git status; rm -rf ~` and
//! `notes/../.ssh` pass no `auto` rule.
//!
//! A rule reads a string in every form a tool may act on ([`spelling`]:
//! as sent, stripped, as a path, as a path with its symlinks followed), and
//! the strictest reading wins: an `auto` rule lets a call through only when
//! it matches every form, exactly, of a value that reads plainly; an `ask` or
//! `deny` rule holds it back when it matches any form, without regard to
//! case. So `notes/run.sh/` meets `deny` as `notes/run.sh`, and `notes//x`
//! meets `auto` as `notes/x` too.

mod question;
mod spelling;

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use regex_lite::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::params::Params;
pub use question::{MAX_ARGUMENTS_CHARS, ShownArgument, TooManyArguments};
use spelling::{Form, Places};

/// What a policy says of one call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ApprovalMode {
    /// Runs without asking.
    #[default]
    Auto,
    /// Runs once the person behind the front end says yes.
    Ask,
    /// Never runs.
    Deny,
}

impl ApprovalMode {
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalMode::Auto => "auto",
            ApprovalMode::Ask => "ask",
            ApprovalMode::Deny => "deny",
        }
    }

    fn from_name(name: &str) -> Option<ApprovalMode> {
        [ApprovalMode::Auto, ApprovalMode::Ask, ApprovalMode::Deny]
            .into_iter()
            .find(|mode| mode.as_str() == name)
    }
}

/// `tools.<name>.approval`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ApprovalPolicy {
    /// The settings key, for the messages that name it.
    key: String,
    default: ApprovalMode,
    rules: Vec<Rule>,
    /// Where the paths in arguments lead.
    places: Places,
}

/// One rule: when every parameter matches its pattern, `mode` applies.
#[derive(Debug, Clone, PartialEq)]
struct Rule {
    /// `tools.<name>.approval.auto[0]`.
    key: String,
    mode: ApprovalMode,
    when: Vec<(String, Pattern)>,
}

#[derive(Debug, Clone)]
enum Pattern {
    Exact(String),
    Prefix(String),
    /// Anchored at both ends; `folded` ignores ASCII case.
    Regex {
        exact: Regex,
        folded: Regex,
    },
    Any(Vec<Pattern>),
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

/// What a policy decided for one call, and the key of the rule that did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub mode: ApprovalMode,
    /// The settings key that decided: `tools.x.approval`, or one rule's.
    pub rule: String,
    /// Whether a rule decided (not the policy's default).
    pub by_rule: bool,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.by_rule {
            write!(f, "{} matched ({})", self.rule, self.mode.as_str())
        } else {
            write!(f, "{} is {}", self.rule, self.mode.as_str())
        }
    }
}

impl ApprovalPolicy {
    /// A policy of one mode for every call.
    pub fn mode(key: impl Into<String>, mode: ApprovalMode) -> Self {
        ApprovalPolicy {
            key: key.into(),
            default: mode,
            rules: Vec::new(),
            places: Places::default(),
        }
    }

    /// This policy reading the paths in arguments as the tools do: relative
    /// to `project`, `~` as this user's home, symlinks followed on the disk.
    /// Without it, paths are read without looking at the disk.
    pub fn within(mut self, project: &Path) -> Self {
        self.places = Places::new(project);
        self
    }

    /// Reads the value of `key` (`tools.<name>.approval`): a mode's name, or
    /// a map of `default` and rule lists. The error names the key at fault.
    pub fn from_value(key: &str, value: &Value) -> Result<ApprovalPolicy, ApprovalError> {
        let map = match value {
            Value::String(name) => return Ok(ApprovalPolicy::mode(key, mode_named(key, name)?)),
            Value::Object(map) => map,
            other => {
                let why = format!("expected auto, ask, deny or a map of rules, got {other}");
                return Err(fault(key, why));
            }
        };
        let mut policy = ApprovalPolicy::mode(key, ApprovalMode::Auto);
        for (field, value) in map {
            let field_key = format!("{key}.{field}");
            if field == "default" {
                let name = value.as_str().ok_or_else(|| {
                    fault(
                        &field_key,
                        format!("expected auto, ask or deny, got {value}"),
                    )
                })?;
                policy.default = mode_named(&field_key, name)?;
                continue;
            }
            let Some(mode) = ApprovalMode::from_name(field) else {
                let why = "unknown key; an approval takes default, auto, ask and deny";
                return Err(fault(&field_key, why));
            };
            let Value::Array(rules) = value else {
                let why = format!("expected a list of rules ({{parameter: pattern}}), got {value}");
                return Err(fault(&field_key, why));
            };
            for (index, rule) in rules.iter().enumerate() {
                policy
                    .rules
                    .push(read_rule(format!("{field_key}[{index}]"), mode, rule)?);
            }
        }
        Ok(policy)
    }

    /// Whether every call runs with nothing to record: no rule to read.
    pub(crate) fn runs_all_unrecorded(&self) -> bool {
        self.default == ApprovalMode::Auto && self.rules.is_empty()
    }

    /// Whether the policy asks or refuses anything at all.
    pub fn is_auto(&self) -> bool {
        self.default == ApprovalMode::Auto
            && self
                .rules
                .iter()
                .all(|rule| rule.mode == ApprovalMode::Auto)
    }

    /// How this policy reads in `riverse tools`: `ask`, `ask, 2 rules`.
    pub fn summary(&self) -> String {
        match self.rules.len() {
            0 => self.default.as_str().to_owned(),
            1 => format!("{}, 1 rule", self.default.as_str()),
            rules => format!("{}, {rules} rules", self.default.as_str()),
        }
    }

    /// What applies to a call with `params`.
    pub fn decide(&self, params: &Params) -> Verdict {
        let mut arguments = BTreeMap::new();
        for (param, _) in self.rules.iter().flat_map(|rule| &rule.when) {
            if let Some(value) = params.get(param) {
                arguments
                    .entry(param.as_str())
                    .or_insert_with(|| Argument::read(value, &self.places));
            }
        }
        let strictest = self
            .rules
            .iter()
            .filter(|rule| rule.matches(&arguments, &self.places))
            .max_by_key(|rule| rule.mode);
        match strictest {
            Some(rule) => Verdict {
                mode: rule.mode,
                rule: rule.key.clone(),
                by_rule: true,
            },
            None => Verdict {
                mode: self.default,
                rule: if self.key.is_empty() {
                    "the approval policy".to_owned()
                } else {
                    self.key.clone()
                },
                by_rule: false,
            },
        }
    }
}

/// A fault in an approval policy: the settings key, and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {message}")]
pub struct ApprovalError {
    pub key: String,
    pub message: String,
}

fn fault(key: &str, message: impl Into<String>) -> ApprovalError {
    ApprovalError {
        key: key.to_owned(),
        message: message.into(),
    }
}

fn mode_named(key: &str, name: &str) -> Result<ApprovalMode, ApprovalError> {
    ApprovalMode::from_name(name.trim())
        .ok_or_else(|| fault(key, format!("expected auto, ask or deny, got {name:?}")))
}

fn read_rule(key: String, mode: ApprovalMode, value: &Value) -> Result<Rule, ApprovalError> {
    let Value::Object(map) = value else {
        let why = format!("expected a map of parameters to patterns, got {value}");
        return Err(fault(&key, why));
    };
    if map.is_empty() {
        let why = "a rule names at least one parameter (an empty rule would match every call)";
        return Err(fault(&key, why));
    }
    let when = map
        .iter()
        .map(|(param, pattern)| {
            let pattern = read_pattern(&format!("{key}.{param}"), pattern)?;
            Ok((param.clone(), pattern))
        })
        .collect::<Result<_, ApprovalError>>()?;
    Ok(Rule { key, mode, when })
}

fn read_pattern(key: &str, value: &Value) -> Result<Pattern, ApprovalError> {
    const EXPECTED: &str = "expected a string, {prefix: ...}, {regex: ...} or a list of them";
    match value {
        Value::String(text) => Ok(Pattern::Exact(text.clone())),
        Value::Number(_) | Value::Bool(_) => Ok(Pattern::Exact(value.to_string())),
        Value::Array(items) => items
            .iter()
            .map(|item| read_pattern(key, item))
            .collect::<Result<_, _>>()
            .map(Pattern::Any),
        Value::Object(map) if map.len() == 1 => {
            let (kind, text) = map.iter().next().expect("one entry");
            let Some(text) = text.as_str() else {
                return Err(fault(
                    &format!("{key}.{kind}"),
                    format!("expected a string, got {text}"),
                ));
            };
            match kind.as_str() {
                "prefix" if text.is_empty() => Err(fault(
                    &format!("{key}.prefix"),
                    "an empty prefix would match every value",
                )),
                "prefix" => Ok(Pattern::Prefix(text.to_owned())),
                "regex" => {
                    let compile = |flags: &str| {
                        Regex::new(&format!("{flags}^(?:{text})$"))
                            .map_err(|err| fault(&format!("{key}.regex"), err.to_string()))
                    };
                    Ok(Pattern::Regex {
                        exact: compile("")?,
                        folded: compile("(?i)")?,
                    })
                }
                _ => Err(fault(key, format!("unknown pattern {kind:?}; {EXPECTED}"))),
            }
        }
        other => Err(fault(key, format!("{EXPECTED}, got {other}"))),
    }
}

impl Rule {
    fn matches(&self, arguments: &BTreeMap<&str, Argument>, places: &Places) -> bool {
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
struct Argument {
    readings: Vec<(Reading, String)>,
    /// Whether an `auto` rule may let it through at all.
    plain: bool,
}

impl Argument {
    fn read(value: &Value, places: &Places) -> Argument {
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
    fn lets_through(&self, pattern: &Pattern, places: &Places) -> bool {
        self.plain
            && self
                .readings
                .iter()
                .filter(|(reading, _)| !reading.folded)
                .all(|(reading, text)| pattern.matches(text, *reading, places, true))
    }

    /// Whether an `ask` or `deny` rule's `pattern` holds this back: it
    /// matches any form, folded or not.
    fn holds_back(&self, pattern: &Pattern, places: &Places) -> bool {
        self.readings
            .iter()
            .any(|(reading, text)| pattern.matches(text, *reading, places, false))
    }
}

/// Characters that make one shell command several, or substitute one.
const SHELL_OPERATORS: &[char] = &[';', '&', '|', '<', '>', '$', '`', '(', ')', '\n', '\r'];

impl Pattern {
    /// Whether `value`, read as `reading`, matches; a pattern's text is read
    /// the same way first. `lets_through`: for an `auto` rule, whose prefix
    /// matches no chained command and no `..`.
    fn matches(&self, value: &str, reading: Reading, places: &Places, lets_through: bool) -> bool {
        match self {
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

/// How a call that needed approval was let through or kept back, as it is
/// recorded with the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// An `auto` rule let it run without asking.
    Allowed,
    /// The person said yes to this call.
    Approved,
    /// The person said yes to this tool for the rest of the session.
    ApprovedForSession,
    /// The person said no.
    Declined,
    /// Nobody could be asked, or nobody answered in time.
    Unanswered,
    /// The settings refuse it.
    Denied,
}

/// The decision on one call, recorded with its result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalRecord {
    pub decision: Decision,
    /// The settings key that asked, refused or allowed.
    pub rule: String,
}

/// A call that waits for a person's yes: what a front end shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApprovalRequest {
    pub tool: String,
    /// The call's arguments, coerced: what will run.
    pub arguments: Params,
    /// The settings key that asks.
    pub rule: String,
}

/// What the person behind a front end made of an [`ApprovalRequest`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    Approved,
    /// Yes, and to every call of this tool for the rest of the session.
    ApprovedForSession,
    Declined,
    /// Nobody could answer, with why ("`riverse ask` has nobody to ask: …").
    Unanswered(String),
}

#[cfg(test)]
mod tests;
