//! The `riverse` binary, run as people and programs run it.

// Helpers outside `#[test]` functions unwrap too; this is all test code.
#![allow(clippy::unwrap_used)]

mod suite;
