//! riverse-skills against real files: each test writes a skills directory
//! and reads it as Riverse does.

#![allow(clippy::unwrap_used)]

mod suite;
