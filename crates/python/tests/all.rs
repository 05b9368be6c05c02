//! The Python host against a real interpreter running real tool files: every
//! failure mode of DESIGN.md section 1, and the supervision of workers.

// Helpers outside `#[test]` functions unwrap too; this is all test code.
#![allow(clippy::unwrap_used)]

mod suite;
