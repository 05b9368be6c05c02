//! What the last sync did, kept in the environment
//! (`riverse-environment.json`): a start compares its fingerprint with the
//! declarations' to know that nothing needs installing.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::declarations::Declared;
use super::installer::Installer;
use crate::Interpreter;

/// A declaration that could not be met: the file's tools are not loaded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unmet {
    /// Relative to the tools directory.
    pub file: String,
    /// What could not be installed, on its first line; the installer's
    /// reason on the lines after it.
    pub error: String,
}

const RECORD_FILE: &str = "riverse-environment.json";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// Of the declarations and the interpreter (`Declarations::fingerprint`).
    pub fingerprint: String,
    /// The interpreter the environment was made from, which it keeps while
    /// `python.interpreter` is unset or reads as `configured`, whatever
    /// `PATH` a later start has.
    pub interpreter: PathBuf,
    /// `python.interpreter` as written when it was made; `None` when unset.
    #[serde(default)]
    pub configured: Option<String>,
    /// `uv` or `pip`.
    pub installer: String,
    /// Each declaring file, with what it asks for.
    pub declared: Vec<(String, String)>,
    /// What the sync could not meet; a start with any syncs again.
    pub unmet: Vec<Unmet>,
}

impl Record {
    pub(crate) fn new(
        fingerprint: &str,
        base: &Interpreter,
        configured: Option<&str>,
        installer: &Installer,
        declared: &[Declared],
        unmet: &[Unmet],
    ) -> Self {
        Record {
            fingerprint: fingerprint.to_owned(),
            interpreter: base.executable.clone(),
            configured: configured.map(str::to_owned),
            installer: installer.name().to_owned(),
            declared: declared
                .iter()
                .map(|declared| (declared.file.clone(), declared.shown()))
                .collect(),
            unmet: unmet.to_vec(),
        }
    }

    /// The record of the environment at `venv`, if it has a readable one.
    pub fn read(venv: &Path) -> Option<Record> {
        let bytes = std::fs::read(venv.join(RECORD_FILE)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    pub(crate) fn write(&self, venv: &Path) -> std::io::Result<()> {
        let bytes = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        // Written whole, then moved in place: a start never reads half a record.
        let partial = venv.join(format!("{RECORD_FILE}.partial"));
        std::fs::write(&partial, bytes)?;
        std::fs::rename(partial, venv.join(RECORD_FILE))
    }
}
