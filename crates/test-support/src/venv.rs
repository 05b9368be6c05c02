//! Python virtual environments with peers we did not write: the official MCP
//! SDK, and the official `openai` package with Selenium (the clients of the
//! `riverse serve` tests).
//!
//! Each is made once under the workspace's `target/` directory and reused:
//! the first test to need it creates it while holding a file lock, so
//! parallel tests and test binaries wait for that one install instead of
//! racing. `scripts/test` makes the same environments before the tests start
//! (`python/*-requirements.txt` pin what goes in).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::once::made_once;
use crate::run::succeed;

const MCP_REQUIREMENTS: &str = include_str!("../python/mcp-requirements.txt");
const SERVE_REQUIREMENTS: &str = include_str!("../python/serve-requirements.txt");

/// The interpreter of the MCP SDK's environment, creating it first if needed.
///
/// Panics with the installer's output when the environment can't be made:
/// the tests that need it can't run without it.
pub fn mcp_python() -> PathBuf {
    python_with(&venv_dir(), MCP_REQUIREMENTS)
}

/// The interpreter of the environment with `openai` and `selenium`, as
/// [`mcp_python`] makes its own.
pub fn serve_python() -> PathBuf {
    python_with(&venvs_dir().join("serve"), SERVE_REQUIREMENTS)
}

/// The interpreter of a virtual environment at `dir` with
/// `requirements_text` installed, made once.
pub(crate) fn python_with(dir: &Path, requirements_text: &str) -> PathBuf {
    made_once(dir, "riverse-requirements.txt", requirements_text, |dir| {
        succeed(
            Command::new("python3").args(["-m", "venv"]).arg(dir),
            "python3 -m venv",
        );
        let requirements = dir.join("requirements.txt");
        std::fs::write(&requirements, requirements_text).expect("write requirements.txt");
        succeed(
            Command::new(dir.join("bin/python"))
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                    "-r",
                ])
                .arg(&requirements),
            "pip install",
        );
    });
    dir.join("bin/python")
}

/// `<workspace>/target/test-venvs/mcp`.
pub fn venv_dir() -> PathBuf {
    venvs_dir().join("mcp")
}

fn venvs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/test-venvs")
}
