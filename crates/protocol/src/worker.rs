//! Riverse's extension of MCP between the host and a Python worker.
//!
//! The worker is a plain MCP server. The host adds its options to `initialize`
//! under `capabilities.experimental.riverse` ([`WorkerInit`]), is told which file
//! is being imported ([`ImportingNotification`]) so it can enforce the import
//! deadline, and asks for every file's fate with `riverse/discovery`
//! ([`DiscoveryResult`]). Riverse's host calls a tool with `riverse/call`
//! ([`CallParams`], answered with a [`CallOutcome`]), the tool's result once and
//! flat; `tools/call` stays for MCP clients. While a tool runs, the worker
//! sends what it says ([`methods::LOG`], [`methods::PROGRESS`]) and asks
//! ([`methods::HOST_ASK`], [`methods::HOST_SAMPLE`]) for the call in flight:
//! a worker runs one call at a time.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::SandboxPolicy;

/// Checked in the `initialize` handshake: the host refuses a worker whose
/// `serverInfo.version` differs.
pub const WORKER_PROTOCOL_VERSION: &str = "riverse-worker/4";

pub mod methods {
    pub const INITIALIZE: &str = "initialize";
    pub const INITIALIZED: &str = "notifications/initialized";
    pub const TOOLS_LIST: &str = "tools/list";
    pub const TOOLS_CALL: &str = "tools/call";
    pub const CANCELLED: &str = "notifications/cancelled";
    pub const LIST_CHANGED: &str = "notifications/tools/list_changed";
    /// Sent by the worker just before it imports a tool file.
    pub const IMPORTING: &str = "notifications/riverse/importing";
    /// Riverse's host calling a tool ([`CallParams`](super::CallParams),
    /// answered with a [`CallOutcome`](super::CallOutcome)).
    pub const CALL: &str = "riverse/call";
    /// Asked of the worker after `initialize`: the fate of every file.
    pub const DISCOVERY: &str = "riverse/discovery";
    /// Asked of a fork server, with a worker's stdin, stdout and stderr
    /// passed beside it on the fork socket: forks a worker serving on them
    /// ([`ForkResult`](super::ForkResult)).
    pub const FORK: &str = "riverse/fork";
    /// Sent by a fork server when a worker it forked has ended
    /// ([`ExitedNotification`](super::ExitedNotification)).
    pub const EXITED: &str = "notifications/riverse/exited";
    /// Asked of the host by a worker while a tool runs (Riverse's
    /// `ToolRegistry`): the manifests of the available tools, as
    /// `{"tools": [ToolManifest...]}`.
    pub const HOST_TOOLS_LIST: &str = "riverse/host/tools/list";
    /// Asked of the host by a worker while a tool runs: one call through the
    /// host's registry, `{"name", "arguments"}`, answered with a `ToolResult`.
    pub const HOST_TOOLS_CALL: &str = "riverse/host/tools/call";
    /// Asked of the host by a worker while a tool runs (`self.ask`):
    /// `{"message", "schema"}`, answered with `{"action", "content"}`.
    pub const HOST_ASK: &str = "riverse/host/ask";
    /// Asked of the host by a worker while a tool runs (`self.sample`):
    /// `{"prompt", "system"?, "maxTokens"?}`, answered with `{"text"}`.
    pub const HOST_SAMPLE: &str = "riverse/host/sample";
    /// Sent by a worker while a tool runs (`self.log`): `{"level",
    /// "message"}`, or `{"dropped": n}` at the end of a call whose lines
    /// past the bound the worker did not send.
    pub const LOG: &str = "notifications/riverse/log";
    /// Sent by a worker while a tool runs (`self.progress`): `{"progress",
    /// "total"?, "message"?}`.
    pub const PROGRESS: &str = "notifications/riverse/progress";
}

/// What the host tells a worker in `initialize`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkerInit {
    /// The directory whose `*.py` files are imported.
    pub tools_dir: String,
    /// The whole settings document, handed to every tool's `__init__`.
    pub config: Value,
    /// File names not to import (they timed out in an earlier worker).
    #[serde(default)]
    pub skip: Vec<String>,
    /// `tools.max_output_bytes`: the worker cuts a result's `data` and `error`
    /// to this many bytes and says their size before (`dataBytes`, `errorBytes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_bytes: Option<usize>,
    /// The bytes a result's content blocks may hold together; the worker
    /// leaves out the blocks past it and says so in `data`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_content_bytes: Option<usize>,
    /// Follows the label marker in the worker's stderr, so a tool cannot forge one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_key: Option<String>,
    /// Makes the worker a fork server: it imports the tool files, instantiates
    /// nothing, and forks a worker at each `riverse/fork`, receiving the
    /// worker's descriptors on this inherited socket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fork_socket: Option<i32>,
    /// The tools, by name, with the file and class that define each, as an
    /// earlier worker's discovery found them. A worker given them skips
    /// discovery and instantiates each tool at its first call: a forked
    /// worker, whose files its fork server has imported already.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<BTreeMap<String, ToolClass>>,
    /// The sandbox the worker runs in, when it runs in one: it reads the
    /// rules before it imports any tool file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxPolicy>,
    /// Makes the worker a hook worker: `tools_dir` is the hooks directory,
    /// whose files hold `agent.hooks.Hook` subclasses, each served as a tool
    /// named `FILE:CLASS` that takes `{"phase", "call", "result"}` and
    /// answers with the hook's decision as JSON in `data`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hooks: bool,
}

/// Where a tool is defined: its file in the tools directory and its class.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolClass {
    pub file: String,
    #[serde(rename = "class")]
    pub class_name: String,
}

/// The params of `riverse/call`: a tool's name and its arguments, written
/// straight from the caller's own, and the secrets the settings give that
/// tool (`tools.<name>.secrets`), for its `self.secret(NAME)` during this
/// call only.
#[derive(Debug, Serialize)]
pub struct CallParams<'a, A> {
    pub name: &'a str,
    pub arguments: &'a A,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secrets: Option<&'a BTreeMap<String, SecretValue>>,
}

/// A secret as a call carries it: its value, or why it could not be read
/// (the tool's `self.secret` raises with the reason).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum SecretValue {
    Value(String),
    Unreadable { error: String },
}

/// The reply to `riverse/call`: the tool's `ToolResult`, with what the worker
/// cut from it and, for a tool that raised, the traceback.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallOutcome {
    pub success: bool,
    pub data: String,
    #[serde(default)]
    pub error: String,
    #[serde(default)]
    pub traceback: Option<String>,
    /// Set when the worker cut `data`: its size before, in bytes.
    #[serde(default)]
    pub data_bytes: Option<usize>,
    #[serde(default)]
    pub error_bytes: Option<usize>,
    /// The result's content blocks, as riverse-tool's `Content` writes them.
    #[serde(default)]
    pub content: Vec<Value>,
    /// The result's structured output (`ToolResult.structured`), a JSON
    /// object, when the tool gave one.
    #[serde(default)]
    pub structured: Option<Value>,
}

/// A fork server's refusal to fork because a tool file started a thread at
/// import (threads do not survive a fork); its message names the file.
pub const FORK_REFUSED: i64 = -32010;

/// The worker a fork server forked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ForkResult {
    pub pid: u32,
}

/// How a forked worker ended: its exit status, or the signal that ended it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExitedNotification {
    pub pid: u32,
    #[serde(default)]
    pub status: Option<i32>,
    #[serde(default)]
    pub signal: Option<i32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportingNotification {
    pub file: String,
}

/// An error raised by tool code, located where Python could say.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkerError {
    /// One line: what failed, the exception type and its message.
    pub message: String,
    /// The tool file's name, when the failure is located in one.
    #[serde(default)]
    pub file: Option<String>,
    #[serde(default)]
    pub line: Option<u32>,
    /// The whole Python traceback, for logs.
    #[serde(default)]
    pub traceback: Option<String>,
    /// What would fix it, on lines of its own (the package block a missing
    /// module calls for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl WorkerError {
    /// `message (file:line)`, or as much of it as is known.
    pub fn located(&self) -> String {
        let located = match (&self.file, self.line) {
            (Some(file), Some(line)) => format!("{} ({file}:{line})", self.message),
            (Some(file), None) => format!("{} ({file})", self.message),
            _ => self.message.clone(),
        };
        match &self.hint {
            Some(hint) => format!("{located}\n{hint}"),
            None => located,
        }
    }
}

/// One tool class found in a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiscoveredClass {
    #[serde(rename = "class")]
    pub class_name: String,
    /// The manifest as the tool gave it, when `manifest()` succeeded.
    #[serde(default)]
    pub manifest: Option<Value>,
    #[serde(default)]
    pub available: bool,
    #[serde(default)]
    pub error: Option<WorkerError>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileFate {
    Imported,
    Failed,
    /// Not imported because an earlier worker timed out importing it.
    Skipped,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileReport {
    pub file: String,
    pub fate: FileFate,
    #[serde(default)]
    pub error: Option<WorkerError>,
    #[serde(default)]
    pub classes: Vec<DiscoveredClass>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiscoveryResult {
    pub files: Vec<FileReport>,
}

impl DiscoveryResult {
    /// Each registered tool's file and class: the first available class
    /// to claim a name, in file order, as the worker registers them.
    pub fn tool_classes(&self) -> BTreeMap<String, ToolClass> {
        let mut classes = BTreeMap::new();
        for report in &self.files {
            for class in report.classes.iter().filter(|class| class.available) {
                let name = class.manifest.as_ref().and_then(|m| m.get("name"));
                if let Some(Value::String(name)) = name {
                    classes.entry(name.clone()).or_insert_with(|| ToolClass {
                        file: report.file.clone(),
                        class_name: class.class_name.clone(),
                    });
                }
            }
        }
        classes
    }
}
