//! Runs the real `riverse` binary in a temporary project.

use std::path::Path;
use std::process::Command;

use riverse_test_support::Project;
use riverse_test_support::index::{PackageIndex, installing_from};

/// How one run ended.
#[derive(Debug)]
pub struct Ran {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    /// Asserts the exit status, showing everything the run wrote when it differs.
    pub fn exits(&self, code: i32) -> &Self {
        assert_eq!(self.code, code, "unexpected exit status: {self:#?}");
        self
    }
}

/// `riverse ARGS` run in `dir`, with nothing from the caller's environment
/// that would change which settings it reads, and the packages tool files
/// declare installed from the loopback index.
pub fn riverse_in(dir: &Path, args: &[&str]) -> Command {
    riverse_with_index(dir, args, &PackageIndex::shared().url())
}

/// [`riverse_in`], its packages installed from `index_url`.
pub fn riverse_with_index(dir: &Path, args: &[&str], index_url: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_riverse"));
    command
        .args(args)
        .current_dir(dir)
        .env_remove("RIVERSE_CONFIG")
        .env_remove("RUST_LOG")
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .env_remove("VIRTUAL_ENV");
    installing_from(&mut command, index_url);
    command
}

pub fn run(mut command: Command) -> Ran {
    let output = command.output().expect("run riverse");
    Ran {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

/// `riverse ARGS` run in the project's directory.
pub fn riverse(project: &Project, args: &[&str]) -> Ran {
    run(riverse_in(project.path(), args))
}

/// A project holding the given fixtures.
pub fn project(fixtures: &[&str]) -> Project {
    let project = Project::new();
    for fixture in fixtures {
        project.fixture(fixture);
    }
    project
}
