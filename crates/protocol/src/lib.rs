//! The wire format between the Python host and its workers.
//!
//! Host and worker speak newline-delimited JSON-RPC 2.0 shaped as MCP
//! (`initialize`, `tools/list`, `tools/call`), so that a worker is also a
//! standalone MCP server. This crate holds that conversation's types: the
//! message envelope ([`Message`]), the MCP payloads the worker uses
//! ([`InitializeParams`], [`McpTool`], [`CallToolParams`], [`CallToolResult`])
//! and the worker's own extensions ([`DiscoveryResult`], the importing
//! notification, the worker's requests of the host in [`methods`]). It does no
//! I/O: reading and writing lines is the caller's job.
//!
//! MCP with peers outside Riverse (`riverse mcp`, MCP servers as tool sources)
//! goes through `rmcp` and its own model types, in `riverse-mcp`.

mod jsonrpc;
mod mcp;
mod worker;

pub use jsonrpc::{ErrorObject, Message, RequestId, error_codes};
pub use mcp::{
    CallToolParams, CallToolResult, ClientInfo, Content, InitializeParams, InitializeResult,
    ListToolsResult, MCP_PROTOCOL_VERSION, McpTool, ServerInfo,
};
pub use worker::{
    DiscoveredClass, DiscoveryResult, ExitedNotification, FORK_REFUSED, FileFate, FileReport,
    ForkResult, ImportingNotification, WORKER_PROTOCOL_VERSION, WorkerError, WorkerInit, methods,
};
