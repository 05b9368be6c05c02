//! Riverse's agent: what the front ends call.
//!
//! [`Settings`] reads `settings.yaml` once into typed options (the only place in
//! Riverse that reads it) and keeps the whole document for the tools.
//! [`build_registry`] gathers every tool source into one
//! [`riverse_tool::Registry`]. An [`Agent`] (from [`build_agent`]) runs a
//! [`Turn`]: the model picks tools natively or through the dispatcher prompt,
//! they run concurrently, and the answer streams out as [`TurnEvent`]s.

pub mod config;
mod dispatcher;
pub mod eval;
mod listing;
mod prompts;
mod provider;
mod registry;
mod reload;
mod selection;
mod settings;
mod tool_config;
mod turn;

pub use listing::tools_json;
pub use provider::{build_agent, build_agent_with_sources, build_provider};
pub use registry::{ToolSources, build_registry};
pub use reload::{HotReload, Reloaded, ToolChanges};
pub use selection::ToolSelector;
pub use settings::{
    AgentSettings, Language, LlmProvider, McpSettings, ProtectedPath, PythonSettings,
    ServeSettings, Settings, SettingsError, Storage, ToolMode, ToolSettings, ToolsSettings,
    checked_token,
};
pub use settings::{LocalSettings, OpenaiSettings};
pub use tool_config::tool_config;
pub use turn::{
    Agent, EventSink, RoutedCall, ToolCallRecord, Turn, TurnError, TurnEvent, TurnOptions,
};
