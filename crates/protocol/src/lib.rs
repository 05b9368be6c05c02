//! The wire format between the Python host and its workers.
//!
//! Host and worker speak newline-delimited JSON-RPC 2.0 with MCP's handshake
//! (`initialize`), and a worker is also a standalone MCP server (`tools/list`,
//! `tools/call`). This crate holds the host's side of that conversation: the
//! message envelope ([`Message`], and [`Incoming`] and [`OutgoingRequest`],
//! which leave payloads to their own types), the handshake
//! ([`InitializeParams`]) and the worker's own extensions: a tool call
//! ([`CallParams`], [`CallOutcome`]), discovery ([`DiscoveryResult`]), the
//! importing notification, forking, the sandbox's rules ([`SandboxPolicy`]),
//! and the worker's requests of the host in [`methods`]. It does no I/O:
//! reading and writing lines is the caller's job.
//!
//! MCP with peers outside Riverse (`riverse mcp`, MCP servers as tool sources)
//! goes through `rmcp` and its own model types, in `riverse-mcp`.

mod jsonrpc;
mod line;
mod mcp;
mod sandbox;
mod worker;

pub use jsonrpc::{ErrorObject, Incoming, Message, OutgoingRequest, RequestId, error_codes};
pub use line::{KEPT_OF_TOO_LONG, id_of_cut_line, leading_id};
pub use mcp::{ClientInfo, InitializeParams, InitializeResult, MCP_PROTOCOL_VERSION, ServerInfo};
pub use sandbox::{NetworkPolicy, SandboxPolicy};
pub use worker::{
    CallOutcome, CallParams, DiscoveredClass, DiscoveryResult, ExitedNotification, FORK_REFUSED,
    FileFate, FileReport, ForkResult, ImportingNotification, SecretValue, ToolClass,
    WORKER_PROTOCOL_VERSION, WorkerError, WorkerInit, methods,
};
