//! MCP against peers we did not write: servers made with the official Python
//! SDK as tool sources, and rmcp's client against the registry server.

// Helpers outside `#[test]` functions unwrap too; this is all test code.
#![allow(clippy::unwrap_used)]

mod suite;
