//! YAML agents: HTTP agents against a real server on a loopback port, command
//! agents running real programs, and how agents files load.

// Helpers outside `#[test]` functions unwrap too; this is all test code.
#![allow(clippy::unwrap_used)]

mod suite;
