//! Riverse's agent: what the front ends call.
//!
//! [`Settings`] reads `settings.yaml` once into typed options (the only place in
//! Riverse that reads it) and keeps the whole document for the tools.
//! [`build_registry`] gathers every tool source into one
//! [`riverse_tool::Registry`].

mod registry;
mod settings;

pub use registry::build_registry;
pub use settings::{
    AgentSettings, Language, LlmProvider, PythonSettings, Settings, SettingsError, ToolMode,
    ToolsSettings,
};
