//! What the caller decides for the registry: bounds, deadlines, and each
//! tool's policy.

use std::collections::HashMap;
use std::time::Duration;

use crate::approval::ApprovalPolicy;
use crate::hooks::Hooks;
use crate::limits::CallLimits;

/// What the caller decides for one tool name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolPolicy {
    /// Disables the tool whatever its own check says, for this reason (in the
    /// caller's terms: the agent names the settings key).
    pub disabled: Option<String>,
    pub timeout: Option<Duration>,
    /// Whether a call runs, asks first, or is refused.
    pub approval: ApprovalPolicy,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RegistryOptions {
    /// `data` and `error` longer than its bound are cut, with a marker.
    pub limits: CallLimits,
    /// The deadline of a call when its tool has none of its own.
    pub default_timeout: Duration,
    pub policies: HashMap<String, ToolPolicy>,
    /// What runs around every call (`agent/hooks/`); none by default.
    pub hooks: Hooks,
}

impl Default for RegistryOptions {
    fn default() -> Self {
        RegistryOptions {
            limits: CallLimits::default(),
            default_timeout: Duration::from_secs(30),
            policies: HashMap::new(),
            hooks: Hooks::default(),
        }
    }
}
