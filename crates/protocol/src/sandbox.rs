//! The sandbox a worker runs in, as the host tells it in `initialize`
//! ([`WorkerInit::sandbox`](crate::WorkerInit::sandbox)).
//!
//! The kernel enforces the sandbox from the worker's first instruction (the
//! host confines the process as it spawns it); the worker reads this policy
//! before it imports any tool file, to say which rule a refused call broke
//! and the settings line that would allow it.

use serde::{Deserialize, Serialize};

/// A sandbox's rules, with every path resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SandboxPolicy {
    /// The settings key it comes from (`python.sandbox`,
    /// `tools.notes.sandbox`): every message about it names it.
    pub label: String,
    /// The project directory: paths beneath it are shown relative to it, as
    /// settings.yaml gives them.
    pub project: String,
    /// Readable beneath each (settings' `read`).
    pub read: Vec<String>,
    /// Readable and writable beneath each (settings' `write`).
    pub write: Vec<String>,
    /// Readable beneath each besides: the interpreter, the tool environment,
    /// the tools, the worker package, the system's libraries.
    pub always_read: Vec<String>,
    /// Writable beneath each besides (`/dev/null` and the like).
    pub always_write: Vec<String>,
    pub network: NetworkPolicy,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mb: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub processes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_size_mb: Option<u64>,
    /// The Landlock ABI the sandbox is made with: from 6 on, a worker makes
    /// a signal domain of its own, to find what its tools started when the
    /// host is killed (it can't read /proc).
    pub landlock_abi: u32,
}

/// Where a sandboxed worker may connect over TCP.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NetworkPolicy {
    /// Anywhere: `"any"`.
    Any,
    /// Only to these ports, none when empty, and it listens on none:
    /// `{"ports": [443]}`.
    Ports(Vec<u16>),
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_policy_is_written_as_the_worker_reads_it() {
        let policy = SandboxPolicy {
            label: "tools.notes.sandbox".into(),
            project: "/p".into(),
            read: vec!["/p".into()],
            write: vec!["/p/notes".into()],
            always_read: vec!["/usr".into()],
            always_write: vec!["/dev/null".into()],
            network: NetworkPolicy::Ports(vec![443]),
            memory_mb: Some(256),
            processes: None,
            file_size_mb: None,
            landlock_abi: 6,
        };
        let written = serde_json::to_value(&policy).unwrap();
        assert_eq!(
            written,
            json!({"label": "tools.notes.sandbox", "project": "/p", "read": ["/p"],
                "write": ["/p/notes"], "alwaysRead": ["/usr"], "alwaysWrite": ["/dev/null"],
                "network": {"ports": [443]}, "memoryMb": 256, "landlockAbi": 6})
        );
        assert_eq!(
            serde_json::from_value::<SandboxPolicy>(written).unwrap(),
            policy
        );
        assert_eq!(
            serde_json::to_value(NetworkPolicy::Any).unwrap(),
            json!("any")
        );
    }
}
