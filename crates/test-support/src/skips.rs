//! Tests that can't run on this machine say so: a test whose system package
//! is missing (Chromium, PostgreSQL) calls [`skip`], which prints why and,
//! when `scripts/test` runs the tests, adds the test's name to the list it
//! prints at the end. On CI (`CI` set) nothing may be skipped: what the test
//! needs is an error there instead.

use std::io::Write;
use std::path::Path;

/// The file `scripts/test` reads the skipped tests from.
pub const SKIPS_VARIABLE: &str = "RIVERSE_TEST_SKIPS";

/// Marks the running test as skipped for `reason` (`chromium-driver is not
/// installed`), which says what to install. Panics on CI.
pub fn skip(reason: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "CI can't skip a test: {reason}"
    );
    let test = std::thread::current().name().unwrap_or("a test").to_owned();
    eprintln!("skipped: {reason}");
    let Some(file) = std::env::var_os(SKIPS_VARIABLE) else {
        return;
    };
    // Cargo names the package of the test binary it runs.
    let line = match std::env::var("CARGO_PKG_NAME") {
        Ok(package) => format!("{package}: {test}: {reason}\n"),
        Err(_) => format!("{test}: {reason}\n"),
    };
    if let Ok(mut list) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(Path::new(&file))
    {
        // One write per line: tests append from several processes.
        let _ = list.write_all(line.as_bytes());
    }
}

/// Whether Debian's `chromium` and `chromium-driver` are installed; when
/// they are not, the running test is skipped (see [`skip`]).
pub fn chromium_or_skip() -> bool {
    let missing: Vec<&str> = [
        ("/usr/bin/chromium", "chromium"),
        ("/usr/bin/chromedriver", "chromium-driver"),
    ]
    .into_iter()
    .filter(|(path, _)| !Path::new(path).exists())
    .map(|(_, package)| package)
    .collect();
    if missing.is_empty() {
        return true;
    }
    skip(&format!(
        "{} not installed (apt-get install {}, or run scripts/test as root)",
        missing.join(" and "),
        missing.join(" ")
    ));
    false
}
