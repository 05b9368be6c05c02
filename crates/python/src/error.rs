use std::path::PathBuf;

/// Why the Python host could not do what was asked. A tool that fails is not an
/// `Error`: it is a failed `ToolResult`.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    #[error(
        "can't find a Python interpreter (tried {tried}); set python.interpreter in settings.yaml"
    )]
    InterpreterNotFound { tried: String },
    #[error(
        "can't start python worker {interpreter}: {cause}; set python.interpreter in settings.yaml"
    )]
    SpawnFailed { interpreter: PathBuf, cause: String },
    #[error("python worker {interpreter} failed its handshake: {cause}")]
    HandshakeFailed { interpreter: PathBuf, cause: String },
    #[error("import of {file} timed out after {after}")]
    ImportTimedOut { file: String, after: String },
    #[error("python worker died: {0}")]
    WorkerDied(String),
}
