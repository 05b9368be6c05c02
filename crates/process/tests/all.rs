//! One supervised child, run for real: a program started under a sandbox.

// Helpers outside `#[test]` functions unwrap too; this is all test code.
#![allow(clippy::unwrap_used)]

mod suite;
