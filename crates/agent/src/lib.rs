//! Riverse's agent: what the front ends call.
//!
//! [`Settings`] reads `settings.yaml` once into typed options (the only place in
//! Riverse that reads it) and keeps the whole document for the tools.
//! [`build_registry`] gathers every tool source into one
//! [`riverse_tool::Registry`]. An [`Agent`] (from [`build_agent`]) runs a
//! [`Turn`]: the model picks tools natively or through the dispatcher prompt,
//! they run concurrently, and the answer streams out as [`TurnEvent`]s.

mod dispatcher;
mod listing;
mod prompts;
mod provider;
mod registry;
mod settings;
mod turn;

pub use listing::tools_json;
pub use provider::{build_agent, build_provider};
pub use registry::build_registry;
pub use settings::{
    AgentSettings, Language, LlmProvider, McpSettings, PythonSettings, ServeSettings, Settings,
    SettingsError, Storage, ToolMode, ToolsSettings,
};
pub use settings::{LocalSettings, OpenaiSettings};
pub use turn::{Agent, EventSink, ToolCallRecord, Turn, TurnError, TurnEvent, TurnOptions};
