//! Which environment variables workers get (`python.env`).

use std::process::Command;

/// Variables a clean environment keeps besides the allowlist: what an
/// interpreter and its tools need to run and to find their files.
pub const ALWAYS_KEPT: &[&str] = &["PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ"];

/// The environment a worker starts with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum EnvPolicy {
    /// Riverse's whole environment, API keys and tokens included.
    #[default]
    Inherit,
    /// Only [`ALWAYS_KEPT`] and the named variables, for tools one does not
    /// trust with the rest.
    Clean { allow: Vec<String> },
}

impl EnvPolicy {
    pub(crate) fn apply(&self, command: &mut Command) {
        let EnvPolicy::Clean { allow } = self else {
            return;
        };
        command.env_clear();
        let kept = ALWAYS_KEPT
            .iter()
            .copied()
            .chain(allow.iter().map(String::as_str));
        for name in kept {
            if let Some(value) = std::env::var_os(name) {
                command.env(name, value);
            }
        }
    }
}
