//! Providers against a scripted OpenAI-compatible server on a loopback port.

// Helpers outside `#[test]` functions unwrap too; this is all test code.
#![allow(clippy::unwrap_used)]

mod suite;
