//! Wire types for Riverse's JSON-RPC 2.0 conversations, shaped as MCP.
//!
//! The Python worker, the MCP client and the MCP server all speak newline-delimited
//! JSON-RPC 2.0 with the MCP method names (`initialize`, `tools/list`,
//! `tools/call`). This crate holds the message envelope ([`Message`]), the MCP
//! payloads Riverse uses ([`InitializeParams`], [`McpTool`], [`CallToolParams`],
//! [`CallToolResult`]) and the worker's own extension ([`DiscoveryResult`]).
//! It does no I/O: reading and writing lines is the caller's job.

mod jsonrpc;
mod mcp;
mod worker;

pub use jsonrpc::{ErrorObject, Message, RequestId, error_codes};
pub use mcp::{
    CallToolParams, CallToolResult, ClientInfo, Content, InitializeParams, InitializeResult,
    ListToolsResult, MCP_PROTOCOL_VERSION, McpTool, ServerInfo,
};
pub use worker::{
    DiscoveredClass, DiscoveryResult, FileFate, FileReport, ImportingNotification,
    WORKER_PROTOCOL_VERSION, WorkerError, WorkerInit, methods,
};
