//! The HTTP API through the router: real Python tools, the scripted
//! OpenAI-compatible server, SQLite in a temporary project.

// Helpers outside `#[test]` functions unwrap too; this is all test code.
#![allow(clippy::unwrap_used)]

mod suite;
