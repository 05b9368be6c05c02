//! Riverse's tool model.
//!
//! A [`Tool`] is a manifest plus an async `call`. Every tool source (the Python
//! host, MCP servers) produces [`Found`] values; the [`Registry`] turns them into
//! the agent's tool set: it checks names, resolves conflicts (first wins),
//! applies the per-tool settings, coerces parameters by their declared types,
//! checks arguments and structured results against a manifest's JSON Schemas
//! (compiled once per generation), caps output, and remembers every failure
//! so `riverse tools` can show it.
//!
//! This crate knows nothing of processes, sockets or settings files: sources and
//! options come from the crates above it. Of `riverse-process` it reads only
//! the sandbox policy a tool runs in ([`Tool::sandbox`]), which a call made
//! from inside a sandbox is held to.

mod approval;
pub mod call_metrics;
mod content;
mod context;
mod failure;
mod hooks;
mod limits;
mod live;
mod manifest;
mod name;
mod params;
mod record;
mod registry;
mod result;
mod schema;
mod scrub;
mod text;
mod truncate;
mod typed;
mod types;

pub use approval::{
    Approval, ApprovalMode, ApprovalPolicy, ApprovalRecord, ApprovalRequest, ArgumentPattern,
    Decision, FOR_SESSION, MAX_ARGUMENTS_CHARS, ShownArgument, TooManyArguments, Verdict,
};
pub use content::{Content, human_size};
pub use context::{
    Answer, AnswerAction, CallContext, CallListener, CallOrigin, EndOnDrop, LogLevel, LogLine,
    MAX_LOG_LINES, MAX_MESSAGE_CHARS, MAX_SCHEMA_BYTES, MAX_WAIT, PROGRESS_INTERVAL, Progress,
    Question, SampleRequest, Sampler, SamplesOnly,
};
pub use failure::{
    AfterTimeout, CallFailure, HttpFailure, LimitBreach, ProgramFailure, Refusal, SandboxLimit,
    ServerFailure, Subject, Termination, Unoffered, WorkerFailure,
};
pub use hooks::{
    AfterCall, BeforeCall, CallHooks, HookDecision, HookInfo, HookRecord, HookedCall, Hooks,
    OnHookError, result_json, source_kind,
};
pub use limits::CallLimits;
pub use live::LiveRegistry;
pub use manifest::{ToolAnnotations, ToolManifest, ToolSource};
pub use name::{is_valid_name, sanitize_name};
pub use params::{Params, coerce_params};
pub use record::{Arguments, CallApproval, CallRecord};
pub use registry::{
    CallError, Entry, Found, Registry, RegistryOptions, Status, ToolPolicy, WeakRegistry, trace,
};
pub use result::{FailureKind, ToolResult};
pub use schema::{described, input_schema};
pub use text::{seconds, shorten};
pub use truncate::{cap_output, cap_shared, mark_cut};
pub use types::{DeclaredType, Kind, ParamType};

use std::time::Duration;

use riverse_process::sandbox::Sandbox;

/// A tool the agent can call, whatever it is made of.
///
/// A tool that fails returns a failed [`ToolResult`]; it never panics or errors
/// the runtime.
#[async_trait::async_trait]
pub trait Tool: Send + Sync {
    fn manifest(&self) -> &ToolManifest;
    fn source(&self) -> &ToolSource;
    /// Runs the tool with already-coerced parameters. `timeout` is the deadline
    /// the settings give this tool; the source enforces it in its own way (a
    /// Python worker is killed, an MCP request cancelled). What the tool
    /// says and asks while it runs goes to `context`.
    async fn call(&self, params: Params, timeout: Duration, context: &CallContext) -> ToolResult;
    /// Follows again, to its end and under `timeout`, the task `task_id` of
    /// the server that serves the tool, which a call of it became
    /// ([`CallContext::handed_over`]) before Riverse stopped. A tool whose
    /// source keeps no tasks fails.
    async fn resume(&self, task_id: &str, timeout: Duration, context: &CallContext) -> ToolResult {
        let _ = (timeout, context);
        ToolResult::failed(
            FailureKind::Unavailable,
            format!(
                "tool {} can't be asked about its task {task_id}: its source keeps no tasks",
                self.manifest().name
            ),
        )
    }
    /// The sandbox its code runs in; `None` (the default) when Riverse holds
    /// it in none: an MCP server, an HTTP agent, a tool whose settings give
    /// it no sandbox, which reach whatever Riverse itself can.
    fn sandbox(&self) -> Option<&Sandbox> {
        None
    }
    /// Whether its source checks a call's arguments against the manifest's
    /// `input_schema` itself (an MCP server must), so the registry does not;
    /// `false` (the default) has the registry check them.
    fn checks_own_arguments(&self) -> bool {
        false
    }
}
