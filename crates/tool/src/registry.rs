//! The registry: every tool the agent may call, and every failure to get one.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use tracing::Instrument;

use crate::Tool;
use crate::approval::{
    Approval, ApprovalMode, ApprovalPolicy, ApprovalRecord, ApprovalRequest, Decision,
};
use crate::call_metrics;
use crate::context::{CallContext, EndOnDrop};
use crate::limits::CallLimits;
use crate::manifest::{ToolManifest, ToolSource};
use crate::name::is_valid_name;
use crate::params::{Params, coerce_params};
use crate::result::{FailureKind, ToolResult};
use crate::truncate::cap_output;

/// What a tool source yields: a tool, or a failure to produce one. Clones
/// share the tool.
#[derive(Clone)]
pub enum Found {
    Tool {
        tool: Arc<dyn Tool>,
        /// False when the tool's own availability check said no.
        available: bool,
    },
    Failure {
        source: ToolSource,
        /// The tool's name, when it got far enough to have one.
        name: Option<String>,
        error: String,
    },
}

/// What the caller decides for one tool name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolPolicy {
    /// Disables the tool whatever its own check says, for this reason (in the
    /// caller's terms: the agent names the settings key).
    pub disabled: Option<String>,
    pub timeout: Option<Duration>,
    /// Whether a call runs, asks first, or is refused.
    pub approval: ApprovalPolicy,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RegistryOptions {
    /// `data` and `error` longer than its bound are cut, with a marker.
    pub limits: CallLimits,
    /// The deadline of a call when its tool has none of its own.
    pub default_timeout: Duration,
    pub policies: HashMap<String, ToolPolicy>,
}

impl Default for RegistryOptions {
    fn default() -> Self {
        RegistryOptions {
            limits: CallLimits::default(),
            default_timeout: Duration::from_secs(30),
            policies: HashMap::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Available,
    Unavailable,
    Error,
    Conflict,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Available => "available",
            Status::Unavailable => "unavailable",
            Status::Error => "error",
            Status::Conflict => "conflict",
        }
    }
}

/// One row of `riverse tools`: a tool, or a file or server that failed to yield one.
#[derive(Clone)]
pub enum Entry {
    /// Callable.
    Available {
        manifest: ToolManifest,
        source: ToolSource,
        tool: Arc<dyn Tool>,
    },
    /// A good tool that is switched off: by its own `is_available()`, or by
    /// the caller's [`ToolPolicy`].
    Unavailable {
        manifest: ToolManifest,
        source: ToolSource,
        reason: String,
    },
    /// A good tool whose name an earlier tool took.
    Conflict {
        manifest: ToolManifest,
        source: ToolSource,
        reason: String,
    },
    /// A file or server that yielded no usable tool; `manifest` when it got
    /// as far as having one (an invalid name).
    Error {
        name: Option<String>,
        manifest: Option<ToolManifest>,
        source: ToolSource,
        error: String,
    },
}

impl Entry {
    pub fn name(&self) -> Option<&str> {
        match self {
            Entry::Error { name, .. } => name.as_deref(),
            other => other.manifest().map(|manifest| manifest.name.as_str()),
        }
    }

    pub fn manifest(&self) -> Option<&ToolManifest> {
        match self {
            Entry::Available { manifest, .. }
            | Entry::Unavailable { manifest, .. }
            | Entry::Conflict { manifest, .. } => Some(manifest),
            Entry::Error { manifest, .. } => manifest.as_ref(),
        }
    }

    pub fn source(&self) -> &ToolSource {
        match self {
            Entry::Available { source, .. }
            | Entry::Unavailable { source, .. }
            | Entry::Conflict { source, .. }
            | Entry::Error { source, .. } => source,
        }
    }

    pub fn status(&self) -> Status {
        match self {
            Entry::Available { .. } => Status::Available,
            Entry::Unavailable { .. } => Status::Unavailable,
            Entry::Conflict { .. } => Status::Conflict,
            Entry::Error { .. } => Status::Error,
        }
    }

    /// Why the entry is not available.
    pub fn error(&self) -> Option<&str> {
        match self {
            Entry::Available { .. } => None,
            Entry::Unavailable { reason, .. } | Entry::Conflict { reason, .. } => Some(reason),
            Entry::Error { error, .. } => Some(error),
        }
    }
}

/// As `riverse tools --json` and `GET /v1/tools` show it: every field
/// present, empty where the entry has no manifest.
impl Serialize for Entry {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let manifest = self.manifest();
        let empty = ToolManifest::default();
        let shown = manifest.unwrap_or(&empty);
        let mut row = serializer.serialize_struct("Entry", 9)?;
        row.serialize_field("name", &self.name())?;
        row.serialize_field("description", &manifest.map(|m| &m.description))?;
        row.serialize_field("parameters", &shown.parameters)?;
        row.serialize_field("examples", &shown.examples)?;
        row.serialize_field("parameter_types", &shown.parameter_types)?;
        row.serialize_field("source", self.source())?;
        row.serialize_field("status", &self.status())?;
        row.serialize_field("error", &self.error())?;
        row.serialize_field("warnings", &shown.type_warnings())?;
        row.end()
    }
}

/// What a source's own "no" means, in its own terms.
fn unavailable_reason(source: &ToolSource) -> String {
    match source {
        ToolSource::Agent { file } => format!("enabled: false in {}", file.display()),
        _ => "is_available() returned False".into(),
    }
}

/// Why a call could not even start. A tool that ran and failed is a failed
/// [`ToolResult`], not this.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    #[error("unknown tool \"{0}\"")]
    UnknownTool(String),
    #[error("tool \"{name}\" is not available: {reason}")]
    Unavailable { name: String, reason: String },
}

/// The tools of one generation. Cheap to clone: clones share the tools.
#[derive(Clone)]
pub struct Registry {
    inner: Arc<Tables>,
}

/// A registry reached without keeping it alive: what a source hands its tools
/// so they can call other tools (Riverse's `ToolRegistry` inside a Python tool)
/// without a cycle between the registry and the source.
#[derive(Clone, Default)]
pub struct WeakRegistry {
    inner: std::sync::Weak<Tables>,
}

impl WeakRegistry {
    pub fn upgrade(&self) -> Option<Registry> {
        self.inner.upgrade().map(|inner| Registry { inner })
    }

    /// Whether this reaches `registry`'s very generation.
    pub fn is_of(&self, registry: &Registry) -> bool {
        std::ptr::eq(self.inner.as_ptr(), Arc::as_ptr(&registry.inner))
    }
}

struct Tables {
    entries: Vec<Entry>,
    /// Name to index in `entries`, for available tools only.
    available: HashMap<String, usize>,
    options: RegistryOptions,
}

impl Registry {
    /// Builds the registry from what the sources found, in order: for a name
    /// claimed twice, the first available tool wins.
    pub fn new(found: Vec<Found>, options: RegistryOptions) -> Self {
        let mut tables = Tables {
            entries: Vec::with_capacity(found.len()),
            available: HashMap::new(),
            options,
        };
        for item in found {
            let entry = tables.admit(item);
            if let Entry::Available { manifest, .. } = &entry {
                tables
                    .available
                    .insert(manifest.name.clone(), tables.entries.len());
            }
            tables.entries.push(entry);
        }
        Registry {
            inner: Arc::new(tables),
        }
    }

    /// Whether `other` is this very generation (a clone of it), not merely
    /// one with the same tools.
    pub fn is_same(&self, other: &Registry) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    pub fn downgrade(&self) -> WeakRegistry {
        WeakRegistry {
            inner: Arc::downgrade(&self.inner),
        }
    }
}

impl Tables {
    fn admit(&self, found: Found) -> Entry {
        let (tool, available) = match found {
            Found::Failure {
                source,
                name,
                error,
            } => {
                return Entry::Error {
                    name,
                    manifest: None,
                    source,
                    error,
                };
            }
            Found::Tool { tool, available } => (tool, available),
        };
        let manifest = tool.manifest().clone();
        let source = tool.source().clone();
        let name = manifest.name.clone();
        if !is_valid_name(&name) {
            return Entry::Error {
                name: Some(name.clone()),
                manifest: Some(manifest),
                source,
                error: format!(
                    "invalid tool name {name:?}: names must match ^[A-Za-z0-9_-]{{1,64}}$"
                ),
            };
        }
        let unavailable = |reason: String| Entry::Unavailable {
            manifest: manifest.clone(),
            source: source.clone(),
            reason,
        };
        if let Some(reason) = self.policy(&name).disabled.clone() {
            return unavailable(reason);
        }
        if !available {
            return unavailable(unavailable_reason(&source));
        }
        if let Some(&winner) = self.available.get(&name) {
            return Entry::Conflict {
                reason: format!(
                    "name \"{name}\" is already taken by {}",
                    self.entries[winner].source()
                ),
                manifest,
                source,
            };
        }
        Entry::Available {
            manifest,
            source,
            tool,
        }
    }

    fn policy(&self, name: &str) -> &ToolPolicy {
        static NONE: std::sync::LazyLock<ToolPolicy> =
            std::sync::LazyLock::new(ToolPolicy::default);
        self.options.policies.get(name).unwrap_or(&NONE)
    }
}

impl Registry {
    /// Every entry, in source order.
    pub fn entries(&self) -> &[Entry] {
        &self.inner.entries
    }

    /// The manifests of the tools that may be called, in source order.
    pub fn available_manifests(&self) -> impl Iterator<Item = &ToolManifest> {
        self.inner.entries.iter().filter_map(|entry| match entry {
            Entry::Available { manifest, .. } => Some(manifest),
            _ => None,
        })
    }

    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        match &self.inner.entries[*self.inner.available.get(name)?] {
            Entry::Available { tool, .. } => Some(tool),
            _ => None,
        }
    }

    /// Whether calls of `name` run, ask first, or are refused.
    pub fn approval(&self, name: &str) -> &ApprovalPolicy {
        &self.inner.policy(name).approval
    }

    /// The bounds every call keeps.
    pub fn limits(&self) -> CallLimits {
        self.inner.options.limits
    }

    /// The deadline of one call of `name`.
    pub fn timeout(&self, name: &str) -> Duration {
        self.inner
            .policy(name)
            .timeout
            .unwrap_or(self.inner.options.default_timeout)
    }

    /// Runs one call that nobody watches (see [`Registry::call_with`]).
    pub async fn call(&self, name: &str, params: Params) -> Result<ToolResult, CallError> {
        self.call_with(name, params, &CallContext::none()).await
    }

    /// Runs one call: coerces the parameters, runs the tool under its deadline
    /// with `context` for what it says and asks meanwhile, caps the output.
    /// The context is ended when the call is, finished or stopped. The call
    /// is traced as an `execute_tool` span ([`trace`]).
    pub async fn call_with(
        &self,
        name: &str,
        params: Params,
        context: &CallContext,
    ) -> Result<ToolResult, CallError> {
        self.call_with_id(name, None, params, context).await
    }

    /// [`Registry::call_with`] for a call a model made, `call_id` being the
    /// model's id for it, which the call's span carries.
    pub async fn call_with_id(
        &self,
        name: &str,
        call_id: Option<&str>,
        params: Params,
        context: &CallContext,
    ) -> Result<ToolResult, CallError> {
        let span = trace::tool_span(name, call_id, &params);
        let result = self
            .checked_call(name, params, context)
            .instrument(span.clone())
            .await;
        if let Ok(result) = &result {
            call_metrics::called(name, result);
        }
        trace::record_outcome(&span, &result);
        result
    }

    /// [`Registry::call_with`] without the counting.
    async fn checked_call(
        &self,
        name: &str,
        params: Params,
        context: &CallContext,
    ) -> Result<ToolResult, CallError> {
        let _end = EndOnDrop(context.clone());
        let Some(tool) = self.get(name) else {
            return Err(self.why_not_callable(name));
        };
        let params = match coerce_params(tool.manifest(), params) {
            Ok(params) => params,
            Err(message) => return Ok(ToolResult::failed(FailureKind::BadParameters, message)),
        };
        let approval = match self.approve(name, &params, context).await {
            Ok(record) => record,
            Err(refused) => return Ok(refused),
        };
        let started = Instant::now();
        let mut result = tool.call(params, self.timeout(name), context).await;
        call_metrics::ran(name, started.elapsed());
        result.approval = approval;
        result.cap_content(self.inner.options.limits.max_content_bytes);
        let max = self.inner.options.limits.max_output_bytes;
        result.data = cap_output(std::mem::take(&mut result.data), max);
        result.error = cap_output(std::mem::take(&mut result.error), max);
        Ok(result)
    }

    /// Applies `name`'s approval policy to a call with `params`: what to
    /// record when it may run, or its refusal.
    async fn approve(
        &self,
        name: &str,
        params: &Params,
        context: &CallContext,
    ) -> Result<Option<ApprovalRecord>, ToolResult> {
        let policy = &self.inner.policy(name).approval;
        // Most tools have no policy: no verdict (and no key copied) per call.
        if policy.runs_all_unrecorded() {
            return Ok(None);
        }
        let verdict = policy.decide(params);
        let record = |decision| ApprovalRecord {
            decision,
            rule: verdict.rule.clone(),
        };
        let refuse = |decision, why: String| {
            let mut refused =
                ToolResult::failed(FailureKind::Denied, format!("{name} was not run: {why}"));
            refused.approval = Some(record(decision));
            refused
        };
        match verdict.mode {
            ApprovalMode::Auto => Ok(verdict.by_rule.then(|| record(Decision::Allowed))),
            ApprovalMode::Deny => Err(refuse(Decision::Denied, verdict.to_string())),
            ApprovalMode::Ask => {
                let request = ApprovalRequest {
                    tool: name.to_owned(),
                    arguments: params.clone(),
                    rule: verdict.rule.clone(),
                };
                match context.approve(request).await {
                    Approval::Approved => Ok(Some(record(Decision::Approved))),
                    Approval::ApprovedForSession => Ok(Some(record(Decision::ApprovedForSession))),
                    Approval::Declined => Err(refuse(
                        Decision::Declined,
                        "the user declined it".to_owned(),
                    )),
                    Approval::Unanswered(why) => Err(refuse(
                        Decision::Unanswered,
                        format!("it needs approval ({verdict}) and {why}"),
                    )),
                }
            }
        }
    }

    fn why_not_callable(&self, name: &str) -> CallError {
        let known = self
            .entries()
            .iter()
            .find(|entry| entry.name() == Some(name));
        match known {
            Some(entry) => CallError::Unavailable {
                name: name.to_owned(),
                reason: entry.error().unwrap_or_default().to_owned(),
            },
            None => CallError::UnknownTool(name.to_owned()),
        }
    }
}

#[cfg(test)]
mod tests;
pub mod trace;
