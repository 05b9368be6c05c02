//! `tools.<name>.background`: a call of the tool still running after
//! `after` seconds becomes a task that outlives its turn (see
//! docs/background.md).
//!
//! ```yaml
//! tools:
//!   build_report:
//!     timeout: 60                # a call's deadline, for calls made directly
//!     background: {after: 20, rerun: true, timeout: 3600}
//! ```

use std::time::Duration;

use serde_json::Value;

/// The longest `after`: a day, as for every number of seconds in settings.
const MAX_AFTER_SECONDS: f64 = 86_400.0;

/// `tools.<name>.background`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Background {
    /// How long a call runs in its turn before it becomes a task; zero makes
    /// every call a task at once.
    pub after: Duration,
    /// Whether a task left running by a Riverse that stopped (killed, its
    /// machine lost) is run again at the next start, rather than failed as
    /// interrupted.
    pub rerun: bool,
    /// The deadline of a call made in a turn (which may become a task), in
    /// place of `tools.<name>.timeout`, which still bounds the tool's other
    /// calls (`riverse call`, over MCP); `None` keeps that one.
    pub timeout: Option<Duration>,
}

/// `value`, the section at `key` (`tools.NAME.background`); an error names
/// the key of the value at fault and says what was expected.
pub(crate) fn background_at(key: &str, value: &Value) -> Result<Background, (String, String)> {
    let Value::Object(fields) = value else {
        return Err((
            key.to_owned(),
            format!("expected a mapping such as {{after: 20}}, got {value}"),
        ));
    };
    if let Some(unknown) = fields
        .keys()
        .find(|k| !["after", "rerun", "timeout"].contains(&k.as_str()))
    {
        return Err((
            format!("{key}.{unknown}"),
            "unknown key: a background section takes after, rerun and timeout".to_owned(),
        ));
    }
    let after = match fields.get("after") {
        None => {
            return Err((
                format!("{key}.after"),
                "missing: how many seconds a call runs before it becomes a task".to_owned(),
            ));
        }
        Some(Value::Number(number))
            if number
                .as_f64()
                .is_some_and(|secs| (0.0..=MAX_AFTER_SECONDS).contains(&secs)) =>
        {
            Duration::from_secs_f64(number.as_f64().unwrap_or_default())
        }
        Some(other) => {
            return Err((
                format!("{key}.after"),
                format!("expected a number of seconds from 0 to {MAX_AFTER_SECONDS}, got {other}"),
            ));
        }
    };
    let rerun = match fields.get("rerun") {
        None => false,
        Some(Value::Bool(rerun)) => *rerun,
        Some(other) => {
            return Err((
                format!("{key}.rerun"),
                format!("expected true or false, got {other}"),
            ));
        }
    };
    let timeout = match fields.get("timeout") {
        None => None,
        Some(Value::Number(number))
            if number
                .as_f64()
                .is_some_and(|secs| secs > 0.0 && secs <= MAX_AFTER_SECONDS) =>
        {
            Some(Duration::from_secs_f64(number.as_f64().unwrap_or_default()))
        }
        Some(other) => {
            return Err((
                format!("{key}.timeout"),
                format!(
                    "expected a number of seconds above 0 and at most {MAX_AFTER_SECONDS}, got {other}"
                ),
            ));
        }
    };
    Ok(Background {
        after,
        rerun,
        timeout,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn read(value: Value) -> Result<Background, String> {
        background_at("tools.t.background", &value).map_err(|(key, why)| format!("{key}: {why}"))
    }

    #[test]
    fn after_and_rerun_are_read() {
        assert_eq!(
            read(json!({"after": 1.5, "rerun": true})),
            Ok(Background {
                after: Duration::from_millis(1500),
                rerun: true,
                timeout: None,
            })
        );
        assert_eq!(
            read(json!({"after": 0})),
            Ok(Background {
                after: Duration::ZERO,
                rerun: false,
                timeout: None,
            })
        );
        assert_eq!(
            read(json!({"after": 5, "timeout": 3600})),
            Ok(Background {
                after: Duration::from_secs(5),
                rerun: false,
                timeout: Some(Duration::from_secs(3600)),
            })
        );
    }

    #[test]
    fn each_error_names_its_key() {
        assert_eq!(
            read(json!({"after": -1})),
            Err(
                "tools.t.background.after: expected a number of seconds from 0 to 86400, got -1"
                    .into()
            )
        );
        assert_eq!(
            read(json!({"after": "soon"})),
            Err("tools.t.background.after: expected a number of seconds from 0 to 86400, got \"soon\"".into())
        );
        assert_eq!(
            read(json!({"rerun": true})),
            Err("tools.t.background.after: missing: how many seconds a call runs before it becomes a task".into())
        );
        assert_eq!(
            read(json!({"after": 1, "rerun": "yes"})),
            Err("tools.t.background.rerun: expected true or false, got \"yes\"".into())
        );
        assert_eq!(
            read(json!({"after": 1, "every": 2})),
            Err(
                "tools.t.background.every: unknown key: a background section takes after, rerun and timeout"
                    .into()
            )
        );
        assert_eq!(
            read(json!({"after": 1, "timeout": 0})),
            Err("tools.t.background.timeout: expected a number of seconds above 0 and at most 86400, got 0".into())
        );
        assert_eq!(
            read(json!(5)),
            Err("tools.t.background: expected a mapping such as {after: 20}, got 5".into())
        );
    }
}
