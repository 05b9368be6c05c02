//! Which environment variables workers get (`python.env`).

use std::process::Command;

/// Variables a clean environment keeps besides the allowlist: what an
/// interpreter and its tools need to run and to find their files.
pub const ALWAYS_KEPT: &[&str] = &["PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ"];

/// The environment a worker starts with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvPolicy {
    /// Riverse's environment, less the `withheld` variables (Riverse's own
    /// keys and token, and the variables secrets are read from).
    Inherit { withheld: Vec<String> },
    /// Only [`ALWAYS_KEPT`] and the named variables, for tools one does not
    /// trust with the rest.
    Clean { allow: Vec<String> },
}

impl Default for EnvPolicy {
    fn default() -> Self {
        EnvPolicy::Inherit {
            withheld: Vec::new(),
        }
    }
}

impl EnvPolicy {
    pub(crate) fn apply(&self, command: &mut Command) {
        let allow = match self {
            EnvPolicy::Inherit { withheld } => {
                for name in withheld {
                    command.env_remove(name);
                }
                return;
            }
            EnvPolicy::Clean { allow } => allow,
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
