//! Riverse's agent: what the front ends call.
//!
//! [`Settings`] reads `settings.yaml` once into typed options (the only place in
//! Riverse that reads it) and keeps the whole document for the tools.
//! [`build_registry`] gathers every tool source into one
//! [`riverse_tool::Registry`]. An [`Agent`] (from [`build_agent`]) runs a
//! [`Turn`]: the model picks tools natively or through the dispatcher prompt,
//! they run concurrently, and the answer streams out as [`TurnEvent`]s.
//!
//! Three rooms: `settings/` (the settings typed once, and `settings/options.rs`,
//! the only builder of each lower crate's options), `sources/` (the tool sources
//! assembled into a registry, generations and hot reload) and `turn/` (native
//! and dispatcher routing, one fallback between them, prompts, selection);
//! `eval` runs a tool's examples and cases through the routing.

pub mod eval;
mod listing;
mod provider;
mod settings;
mod sources;
mod turn;

pub use listing::tools_json;
pub use provider::{build_agent, build_agent_with_sources, build_provider};
pub use riverse_tool::{Arguments, CallRecord};
pub use settings::Background;
pub use settings::HooksSettings;
pub use settings::options;
pub use settings::tool_config;
pub use settings::{
    AgentSettings, Language, LlmProvider, LogFormat, McpSettings, ProtectedPath, PythonSettings,
    ServeSettings, Settings, SettingsError, Storage, ToolMode, ToolSettings, ToolsSettings,
    checked_token,
};
pub use settings::{CatchUp, Runs, Schedule, ScheduleApproval, ScheduleSource};
pub use settings::{LocalSettings, OpenaiSettings};
pub use settings::{SKILLS_DIR_VARIABLE, SkillsSettings};
pub use settings::{Secret, SecretSource};
pub use sources::{
    HotReload, Reloaded, RunMode, ToolChanges, ToolSources, build_registry, describe_metrics,
    list_hooks, list_tools, mcp_skills, sync_environment,
};
pub use turn::{
    Agent, EventSink, ProviderSampler, QuestionReply, RoutedCall, ToolUse, Turn, TurnError,
    TurnEvent, TurnOptions,
};
pub use turn::{AppliedSkill, SkillTrigger, ToolSelector, turn_span};
pub use turn::{BackgroundTask, CANCELLED, TaskEnd, TaskQuestion};
