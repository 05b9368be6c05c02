//! Whole turns: real Python tools, a scripted OpenAI-compatible server.

// Helpers outside `#[test]` functions unwrap too; this is all test code.
#![allow(clippy::unwrap_used)]

mod suite;
