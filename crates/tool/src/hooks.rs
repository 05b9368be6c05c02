//! Hooks: code a person writes that sees every call before it runs and
//! after it ends, and may deny it, ask first, rewrite its arguments or
//! replace its result. The registry runs them ([`Registry`](crate::Registry)'s
//! `checked_call`); a source implements [`CallHooks`] (the Python host's
//! hook pool). With no hooks the registry holds `None` and a call pays one
//! `Option` check.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::manifest::{ToolAnnotations, ToolSource};
use crate::params::Params;
use crate::result::ToolResult;

/// One hook, in the order hooks run, with the phases it takes part in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookInfo {
    /// How records and errors name it: `FILE:CLASS`.
    pub name: String,
    /// It defines `before_call`.
    pub before: bool,
    /// It defines `after_call`.
    pub after: bool,
}

/// What a hook made of a call before it runs.
#[derive(Debug, Clone, PartialEq)]
pub enum BeforeCall {
    /// Go on.
    Go,
    /// Refuse it, for this reason.
    Deny(String),
    /// Ask the person behind the front end first, showing this reason.
    Ask(String),
    /// Run it with these arguments instead, checked again.
    Rewrite(Params),
}

/// What a hook made of a call's result.
#[derive(Debug, Clone, PartialEq)]
pub enum AfterCall {
    Keep,
    Replace(Box<ToolResult>),
}

/// What a hook failing does to the call (`hooks.on_error`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnHookError {
    /// The call is refused (the default).
    #[default]
    Deny,
    /// The call goes on as if the hook had said nothing.
    Allow,
}

/// What a hook decided about one call, recorded with it. Hooks that let a
/// call go on unchanged leave no record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookRecord {
    /// `FILE:CLASS`.
    pub hook: String,
    pub decision: HookDecision,
    /// The hook's reason, or why it failed.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HookDecision {
    /// `Deny`: the call did not run.
    Denied,
    /// `Ask`, and the person said yes.
    Approved,
    /// `Ask`, and the person said no.
    Declined,
    /// `Ask`, and nobody answered.
    Unanswered,
    /// `Rewrite`: the call ran with the hook's arguments.
    Rewrote,
    /// `after_call` replaced the result.
    Replaced,
    /// The hook raised, timed out or returned something else than a
    /// decision, and `hooks.on_error: deny` refused the call.
    Failed,
    /// The hook failed and `hooks.on_error: allow` let the call go on.
    FailedAllowed,
}

/// Hooks as the registry runs them, in order. Each method runs one hook;
/// an `Err` says why it failed (raised, timed out, returned nonsense).
#[async_trait::async_trait]
pub trait CallHooks: Send + Sync {
    fn hooks(&self) -> &[HookInfo];
    fn on_error(&self) -> OnHookError;
    /// `hook`'s `before_call` of `call` ([`HookedCall::to_json`]).
    async fn before(&self, hook: &str, call: &Value) -> Result<BeforeCall, String>;
    /// `hook`'s `after_call` of `call` and its `result`.
    async fn after(
        &self,
        hook: &str,
        call: &Value,
        result: &ToolResult,
    ) -> Result<AfterCall, String>;
}

/// A call as hooks see it.
pub struct HookedCall<'a> {
    pub tool: &'a str,
    pub source: &'a ToolSource,
    pub params: &'a Params,
    pub front_end: Option<&'a str>,
    pub conversation: Option<&'a str>,
    /// The tool's MCP annotations, when its manifest has them.
    pub annotations: Option<&'a ToolAnnotations>,
}

impl HookedCall<'_> {
    /// `{"tool", "source", "params", "front_end", "conversation"}`, and
    /// `"annotations"` (MCP's names) when the tool has them; `source` is
    /// `python`, `standard` (a Python tool of Riverse's standard set),
    /// `yaml` or `mcp`.
    pub fn to_json(&self) -> Value {
        let mut shown = json!({
            "tool": self.tool,
            "source": source_kind(self.source),
            "params": Value::Object(self.params.clone()),
            "front_end": self.front_end,
            "conversation": self.conversation,
        });
        if let Some(annotations) = self.annotations {
            shown["annotations"] = json!(annotations);
        }
        shown
    }
}

/// The files of `riverse init --tools standard`.
const STANDARD_FILES: [&str; 5] = [
    "file_read.py",
    "file_list.py",
    "file_write.py",
    "grep.py",
    "shell_exec.py",
];

/// `python`, `standard` (a file of `riverse init --tools standard`), `yaml`
/// or `mcp`.
pub fn source_kind(source: &ToolSource) -> &'static str {
    match source {
        ToolSource::Python { file }
            if file
                .file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| STANDARD_FILES.contains(&name)) =>
        {
            "standard"
        }
        ToolSource::Python { .. } | ToolSource::PythonHost { .. } => "python",
        ToolSource::Mcp { .. } => "mcp",
        ToolSource::Agent { .. } => "yaml",
    }
}

/// A result as hooks see it: `{"success", "data", "error"}` and its
/// structured content when it has some.
pub fn result_json(result: &ToolResult) -> Value {
    let mut shown = Map::new();
    shown.insert("success".into(), json!(result.success));
    shown.insert("data".into(), json!(result.data));
    shown.insert("error".into(), json!(result.error));
    if let Some(structured) = &result.structured {
        shown.insert("structured".into(), structured.clone());
    }
    Value::Object(shown)
}

/// The hooks a registry runs: `None` when there are none, which is all a
/// call then checks. Two are equal when they are the same hooks.
#[derive(Clone, Default)]
pub struct Hooks(pub Option<std::sync::Arc<dyn CallHooks>>);

impl PartialEq for Hooks {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Some(one), Some(other)) => std::sync::Arc::ptr_eq(one, other),
            (one, other) => one.is_none() && other.is_none(),
        }
    }
}

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self
            .0
            .iter()
            .flat_map(|hooks| hooks.hooks().iter().map(|hook| hook.name.as_str()))
            .collect();
        f.debug_tuple("Hooks").field(&names).finish()
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn a_call_as_hooks_see_it_names_its_source_kind() {
        let python = |file: &str| ToolSource::Python {
            file: PathBuf::from(file),
        };
        let kinds: Vec<&str> = [
            python("agent/tools/weather.py"),
            python("agent/tools/file_write.py"),
            ToolSource::Agent {
                file: PathBuf::from("agent/config/agents_en.yaml"),
            },
            ToolSource::Mcp {
                server: "demo".into(),
            },
        ]
        .iter()
        .map(source_kind)
        .collect();
        assert_eq!(kinds, ["python", "standard", "yaml", "mcp"]);
        let params = json!({"city": "Oslo"}).as_object().unwrap().clone();
        let call = HookedCall {
            tool: "weather",
            source: &python("agent/tools/weather.py"),
            params: &params,
            front_end: Some("chat"),
            conversation: None,
            annotations: None,
        };
        assert_eq!(
            call.to_json(),
            json!({"tool": "weather", "source": "python", "params": {"city": "Oslo"},
                   "front_end": "chat", "conversation": null})
        );
        let annotations = ToolAnnotations {
            read_only_hint: Some(true),
            ..ToolAnnotations::default()
        };
        let annotated = HookedCall {
            annotations: Some(&annotations),
            ..call
        };
        assert_eq!(
            annotated.to_json()["annotations"],
            json!({"readOnlyHint": true})
        );
    }

    #[test]
    fn a_record_leaves_out_an_empty_reason() {
        let record = HookRecord {
            hook: "audit.py:Audit".into(),
            decision: HookDecision::FailedAllowed,
            reason: String::new(),
        };
        assert_eq!(
            json!(record),
            json!({"hook": "audit.py:Audit", "decision": "failed_allowed"})
        );
        assert_eq!(Hooks::default(), Hooks(None));
    }
}
