//! Running a program a test cannot do without.

use std::process::{Command, Output};

/// Runs `command` (`what`, for the message) to its end; panics with all it
/// wrote unless it succeeded.
pub(crate) fn succeed(command: &mut Command, what: &str) -> Output {
    let output = command
        .output()
        .unwrap_or_else(|err| panic!("{what} could not start: {err}"));
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}
