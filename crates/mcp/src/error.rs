/// Why an MCP server could not be used, or Riverse could not serve. A tool that
/// runs and fails is not an `Error`: it is a failed `ToolResult`.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    #[error(
        "mcp server \"{server}\": can't start {command}: {cause}; check its command in mcp.servers"
    )]
    SpawnFailed {
        server: String,
        command: String,
        cause: String,
    },
    #[error("mcp server \"{server}\": {message}")]
    InvalidConfig { server: String, message: String },
    #[error("mcp server \"{server}\" failed to initialize: {cause}")]
    InitializeFailed { server: String, cause: String },
    #[error("mcp server \"{server}\" did not start within {after}{detail}")]
    StartupTimedOut {
        server: String,
        after: String,
        /// What the server printed, when it printed anything.
        detail: String,
    },
    #[error("mcp server \"{server}\" failed to list its tools: {cause}")]
    ListFailed { server: String, cause: String },
    #[error("mcp server \"{server}\": skill {skill}: {cause}")]
    SkillFailed {
        server: String,
        skill: String,
        cause: String,
    },
    #[error("can't serve mcp: {0}")]
    ServeFailed(String),
}
