//! Integration tests of the embedded model. They run the real 98 MB model,
//! fetched once into the cache by the crate's own `fetch::ensure_cached`, and load it
//! once per test binary.

// Helpers outside `#[test]` functions unwrap too; this is all test code.
#![allow(clippy::unwrap_used)]

mod suite;
