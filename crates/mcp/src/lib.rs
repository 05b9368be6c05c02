//! MCP both ways.
//!
//! As a client, [`mcp_tools`] starts every configured MCP server (a command on
//! stdio, or a URL over streamable HTTP) at once under a startup deadline, and
//! yields each server's tools as [`riverse_tool::Found`] values named
//! `mcp_<server>_<tool>`, or one failure naming the server and the cause. A stdio
//! server that dies is started again on the next call of one of its tools; a
//! call past its deadline is abandoned with `notifications/cancelled`. What a
//! stdio server writes is vetted line by line: something that is not MCP ends
//! its connection at once, with what it was, rather than waiting for a deadline.
//! Riverse declares elicitation and sampling: what a server sends while a call
//! runs (progress, log lines, `elicitation/create`, `sampling/createMessage`)
//! goes to that call's [`riverse_tool::CallContext`], and a result's images,
//! audio and resources become its content. It opens a session with
//! `initialize` (up to 2025-11-25), and a server that refuses that as one of
//! the sessionless 2026-07-28 protocol alone does with `server/discover`,
//! whose questions and samples come as `input_required` results.
//!
//! As a server, [`serve`] answers `tools/list` and `tools/call` from a
//! [`riverse_tool::LiveRegistry`], each call in a task of its own, with every
//! tool failure an `isError` result; when the registry is replaced, each
//! client session is sent `notifications/tools/list_changed` (a client of
//! the sessionless 2026 protocol hears it on its `subscriptions/listen`
//! stream). A call's tool speaks to the client: log lines as
//! `notifications/message` (under the level of `logging/setLevel`), progress,
//! questions as elicitation, samples as sampling or, when the client offers
//! none, from the [`riverse_tool::Sampler`] the server was given. [`serve`]
//! takes any byte transport ([`serve_stdio`] for `riverse mcp`);
//! [`HttpEndpoint`] is the streamable HTTP transport, a tower service that
//! `riverse serve` mounts at `/mcp`, leaving the bearer token and the
//! `Origin` check to the router in front of it.
//!
//! Skills, by the MCP skills extension (SEP-2640): as a server, given
//! [`LiveSkills`], it answers `skills/list`, `skills/get`, `resources/list`
//! and `resources/read` of `skill://NAME/PATH` (declaring the extension and
//! `resources` only then), and tells clients of a reload with
//! `notifications/resources/list_changed`; as a client, [`mcp_skills`] lists
//! the skills of servers that declare the extension under `SERVER__NAME`
//! (never a name a local skill holds), and [`RemoteSkill::read_file`] reads
//! their files, each checked against its listed digest and size.
//!
//! Both sides use the official SDK, `rmcp`. Out of scope: reading settings (the
//! caller hands over [`McpOptions`]), resources other than skills' files,
//! prompts and completion.

mod client;
mod content;
mod error;
mod http;
mod levels;
mod lines;
mod manifest;
mod outbox;
mod pending;
mod process;
mod question;
mod sampling;
mod served_call;
mod server;
mod skills;
mod vet;

pub use client::{
    McpOptions, McpSkills, RemoteSkill, ServerSpec, ServerTransport, mcp_skills, mcp_tools,
};
pub use error::Error;
pub use http::{BoundedSessions, HttpEndpoint, HttpOptions, McpService, SessionsError};
pub use manifest::manifest_from_schema;
pub use server::{
    RegistryServer, Serving, serve, serve_stdio, serve_stdio_with_skills, serve_with_skills,
};
pub use skills::{LiveSkills, ReloadTask};

/// The `_meta` key of a failed `tools/call` result that says why it failed,
/// as a [`riverse_tool::FailureKind`] name (`timeout`, `tool_error`, …).
/// Riverse writes it as a server and reads it as a client.
pub const FAILURE_META_KEY: &str = "riverse/failure";
