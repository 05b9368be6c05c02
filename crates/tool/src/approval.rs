//! Whether a call may run: the policy of `tools.<name>.approval`, the
//! engine that decides each call by it, and what was decided.
//!
//! A policy is a mode (`auto`, `ask`, `deny`) or a mode with rules over the
//! call's arguments; the settings read it from a tool's section (in
//! `riverse-agent`) and build it with [`ApprovalPolicy::with_rule`]:
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

mod outcome;
mod question;
mod rule;
mod spelling;

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::params::Params;
pub use outcome::{Approval, ApprovalRecord, ApprovalRequest, Decision, FOR_SESSION};
pub use question::{MAX_ARGUMENTS_CHARS, ShownArgument, TooManyArguments};
pub use rule::ArgumentPattern;
use rule::{Argument, Rule};
use spelling::Places;

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
    pub const ALL: [ApprovalMode; 3] = [ApprovalMode::Auto, ApprovalMode::Ask, ApprovalMode::Deny];

    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalMode::Auto => "auto",
            ApprovalMode::Ask => "ask",
            ApprovalMode::Deny => "deny",
        }
    }

    /// The mode `name` names (`auto`, `ask`, `deny`); `None` for another.
    pub fn from_name(name: &str) -> Option<ApprovalMode> {
        ApprovalMode::ALL
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

    /// This policy with one more rule: when every parameter of `when`
    /// matches its pattern, `mode` applies. The rule's key is the policy's
    /// with the mode and the rule's place among that mode's
    /// (`tools.x.approval.auto[0]`), as the settings list them.
    pub fn with_rule(mut self, mode: ApprovalMode, when: Vec<(String, ArgumentPattern)>) -> Self {
        let index = self.rules.iter().filter(|rule| rule.mode == mode).count();
        self.rules.push(Rule {
            key: format!("{}.{}[{index}]", self.key, mode.as_str()),
            mode,
            when,
        });
        self
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

#[cfg(test)]
mod tests;
