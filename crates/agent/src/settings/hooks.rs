//! The `hooks` section: where hook files are, how long a hook may take,
//! and what a failing hook does to the call.
//!
//! ```yaml
//! hooks:
//!   enabled: true        # false runs no hook
//!   dir: agent/hooks     # relative to the project
//!   timeout: 5           # seconds a hook may take to answer
//!   on_error: deny       # deny | allow: a hook that raises or times out
//! ```

use std::path::PathBuf;
use std::time::Duration;

use riverse_tool::OnHookError;
use serde_json::Value;

use super::SettingsError;

const DEFAULT_HOOKS_DIR: &str = "agent/hooks";
const DEFAULT_HOOK_TIMEOUT: Duration = Duration::from_secs(5);
/// The longest `hooks.timeout`: a call waits on each hook.
const MAX_HOOK_TIMEOUT_SECS: f64 = 600.0;

#[derive(Debug, Clone, PartialEq)]
pub struct HooksSettings {
    /// `hooks.enabled`.
    pub enabled: bool,
    /// `hooks.dir`: relative to the project, or absolute.
    pub dir: PathBuf,
    /// `hooks.timeout`.
    pub timeout: Duration,
    /// `hooks.on_error`.
    pub on_error: OnHookError,
}

impl Default for HooksSettings {
    fn default() -> Self {
        HooksSettings {
            enabled: true,
            dir: PathBuf::from(DEFAULT_HOOKS_DIR),
            timeout: DEFAULT_HOOK_TIMEOUT,
            on_error: OnHookError::Deny,
        }
    }
}

/// Reads `hooks` from the settings document; a bad value is an error
/// naming its key.
pub(super) fn hooks_settings(
    section: Option<&Value>,
    invalid: &dyn Fn(&str, String) -> SettingsError,
) -> Result<HooksSettings, SettingsError> {
    let mut settings = HooksSettings::default();
    let Some(section) = section.filter(|section| !section.is_null()) else {
        return Ok(settings);
    };
    let Value::Object(section) = section else {
        return Err(invalid(
            "hooks",
            format!("expected a mapping (enabled, dir, timeout, on_error), found {section}"),
        ));
    };
    for (key, value) in section {
        let path = format!("hooks.{key}");
        match (key.as_str(), value) {
            ("enabled", Value::Bool(enabled)) => settings.enabled = *enabled,
            ("dir", Value::String(dir)) if !dir.trim().is_empty() => {
                settings.dir = PathBuf::from(dir.trim());
            }
            ("timeout", Value::Number(number)) => {
                let seconds = number.as_f64().unwrap_or(-1.0);
                if !(seconds > 0.0 && seconds <= MAX_HOOK_TIMEOUT_SECS) {
                    return Err(invalid(
                        &path,
                        format!(
                            "{number} is out of range: a hook's timeout is more than 0 and at most {MAX_HOOK_TIMEOUT_SECS} seconds"
                        ),
                    ));
                }
                settings.timeout = Duration::from_secs_f64(seconds);
            }
            ("on_error", Value::String(mode)) if mode == "deny" => {
                settings.on_error = OnHookError::Deny;
            }
            ("on_error", Value::String(mode)) if mode == "allow" => {
                settings.on_error = OnHookError::Allow;
            }
            ("enabled", other) => {
                return Err(invalid(&path, format!("{other} is not true or false")));
            }
            ("dir", other) => return Err(invalid(&path, format!("{other} is not a directory"))),
            ("timeout", other) => {
                return Err(invalid(
                    &path,
                    format!("{other} is not a number of seconds"),
                ));
            }
            ("on_error", other) => {
                return Err(invalid(&path, format!("{other} is none of deny, allow")));
            }
            _ => {
                return Err(invalid(
                    &path,
                    "unknown key; hooks takes enabled, dir, timeout, on_error".into(),
                ));
            }
        }
    }
    Ok(settings)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use pretty_assertions::assert_eq;

    use super::*;
    use crate::settings::Settings;

    fn settings(yaml: &str) -> Result<Settings, SettingsError> {
        Settings::from_yaml(Path::new("/project"), None, yaml)
    }

    #[test]
    fn hooks_default_to_agent_hooks_five_seconds_and_deny() {
        let default = settings("").unwrap();
        assert_eq!(default.hooks, HooksSettings::default());
        let own = settings("hooks: {dir: policy, timeout: 0.5, on_error: allow}\n").unwrap();
        assert_eq!(own.hooks.dir, Path::new("policy"));
        assert_eq!(own.hooks.timeout, Duration::from_millis(500));
        assert_eq!(own.hooks.on_error, OnHookError::Allow);
    }

    #[test]
    fn a_bad_hooks_value_names_its_key() {
        for (yaml, expected) in [
            (
                "hooks: {on_error: maybe}\n",
                "settings.yaml: hooks.on_error: \"maybe\" is none of deny, allow",
            ),
            (
                "hooks: {timeout: 0}\n",
                "settings.yaml: hooks.timeout: 0 is out of range: a hook's timeout is more than 0 and at most 600 seconds",
            ),
            (
                "hooks: {tiemout: 3}\n",
                "settings.yaml: hooks.tiemout: unknown key; hooks takes enabled, dir, timeout, on_error",
            ),
        ] {
            assert_eq!(settings(yaml).unwrap_err().to_string(), expected, "{yaml}");
        }
    }
}
