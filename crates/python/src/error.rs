use std::path::PathBuf;

/// Why the Python host could not do what was asked. A tool that fails is not an
/// `Error`: it is a failed `ToolResult`.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// No interpreter was found where one was configured or looked for.
    #[error("can't find a Python interpreter (tried {tried})")]
    InterpreterNotFound { tried: String },
    /// The interpreter could not be started.
    #[error("can't start python worker {interpreter}: {cause}")]
    SpawnFailed { interpreter: PathBuf, cause: String },
    /// The worker started but did not complete `initialize` before any tool
    /// file was being loaded, or answered it wrongly.
    #[error("python worker {interpreter} failed its handshake: {cause}")]
    HandshakeFailed { interpreter: PathBuf, cause: String },
    /// Importing `file` outlasted the import deadline; later workers skip it.
    #[error("import of {file} timed out after {after}")]
    ImportTimedOut { file: String, after: String },
    /// The worker died (or broke its protocol stream) while loading `file`;
    /// later workers skip it.
    #[error("{cause} while loading {file}")]
    ImportCrashed { file: String, cause: String },
    /// The worker died during a request; the text says how.
    #[error("python worker died: {0}")]
    WorkerDied(String),
    /// A live worker refused a request with a JSON-RPC error.
    #[error("python worker refused {method}: {message}")]
    Refused { method: String, message: String },
    /// The worker's discovery report could not be read.
    #[error("python worker sent an unreadable discovery: {0}")]
    UnreadableDiscovery(String),
    /// The pool's sandbox can't be enforced here, and its settings refuse to
    /// run unsandboxed (or it could not be prepared).
    #[error("{0}")]
    Sandbox(String),
    /// The pool was closed, so no worker can be checked out.
    #[error("the python worker pool is closed")]
    PoolClosed,
}

impl Error {
    /// Whether another interpreter is the fix.
    pub fn is_about_the_interpreter(&self) -> bool {
        matches!(
            self,
            Error::InterpreterNotFound { .. } | Error::SpawnFailed { .. }
        )
    }
}
