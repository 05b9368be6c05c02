//! The `mcp` section: MCP servers as tool sources.
//!
//! ```yaml
//! mcp:
//!   enabled: true
//!   startup_timeout: 30
//!   servers:
//!     - {name: files, command: npx, args: ["-y", "@modelcontextprotocol/server-filesystem", "."]}
//!     - {name: remote, url: "https://example.com/mcp", headers: {Authorization: "Bearer ..."}}
//!     - {name: reports, url: "https://example.com/mcp", protocol: "2026-07-28"}
//! ```

use std::collections::BTreeMap;
use std::time::Duration;

use riverse_mcp::{ServerSpec, ServerTransport};
use serde::Deserialize;

use super::values::{HttpUrl, NonEmpty, Scalar, Seconds, Warnings};
use super::{SettingsError, yaml_text};

const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug, Clone, PartialEq)]
pub struct McpSettings {
    /// `mcp.enabled`: off unless asked for, as in Riverse's own settings.
    pub enabled: bool,
    pub startup_timeout: Duration,
    /// Servers in the order given, without those marked `enabled: false`.
    pub servers: Vec<ServerSpec>,
}

impl Default for McpSettings {
    fn default() -> Self {
        McpSettings {
            enabled: false,
            startup_timeout: DEFAULT_STARTUP_TIMEOUT,
            servers: Vec::new(),
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawMcp {
    enabled: Option<Scalar<bool>>,
    startup_timeout: Option<Scalar<Seconds>>,
    servers: Vec<RawServer>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawServer {
    name: Option<NonEmpty>,
    enabled: Option<Scalar<bool>>,
    command: Option<String>,
    args: Vec<String>,
    /// Values may be written as numbers or booleans; they reach the server as text.
    env: BTreeMap<String, serde_yaml_ng::Value>,
    url: Option<HttpUrl>,
    headers: BTreeMap<String, serde_yaml_ng::Value>,
    /// The protocol version to open the session in first.
    protocol: Option<serde_yaml_ng::Value>,
}

/// The protocol versions a session may open in: `initialize` answers every
/// version up to the first; `server/discover` opens the second.
const PROTOCOLS: [&str; 2] = ["2025-11-25", "2026-07-28"];

/// Whether `protocol` asks for a session opened in 2026-07-28.
fn opens_2026(
    protocol: Option<&serde_yaml_ng::Value>,
    key: &str,
    invalid: &dyn Fn(&str, String) -> SettingsError,
) -> Result<bool, SettingsError> {
    let Some(protocol) = protocol else {
        return Ok(false);
    };
    match protocol.as_str() {
        Some(version) if version == PROTOCOLS[1] => Ok(true),
        Some(version) if version == PROTOCOLS[0] => Ok(false),
        _ => Err(invalid(
            key,
            format!(
                "expected one of {}, got {}",
                PROTOCOLS.join(", "),
                yaml_text(protocol)
            ),
        )),
    }
}

pub(super) fn mcp_settings(
    raw: RawMcp,
    invalid: &dyn Fn(&str, String) -> SettingsError,
    warnings: &mut Warnings,
) -> Result<McpSettings, SettingsError> {
    let startup_timeout = raw.startup_timeout.map_or(DEFAULT_STARTUP_TIMEOUT, |secs| {
        warnings.take("mcp.startup_timeout", secs).0
    });
    let mut servers: Vec<ServerSpec> = Vec::new();
    for (index, server) in raw.servers.into_iter().enumerate() {
        let key = |field: &str| format!("mcp.servers[{index}].{field}");
        let name = server
            .name
            .map(|name| name.0)
            .ok_or_else(|| invalid(&key("name"), "every server needs a name".into()))?;
        if servers.iter().any(|known| known.name == name) {
            return Err(invalid(
                &key("name"),
                format!("the name {name:?} is already used by another server"),
            ));
        }
        if let Some(enabled) = server.enabled
            && !warnings.take(&key("enabled"), enabled)
        {
            continue;
        }
        let opens_2026 = opens_2026(server.protocol.as_ref(), &key("protocol"), invalid)?;
        let command = server.command.filter(|command| !command.trim().is_empty());
        let transport = match (command, server.url) {
            (Some(command), None) => ServerTransport::Stdio {
                command,
                args: server.args,
                env: text_values(server.env, &|k| key(&format!("env.{k}")), invalid)?,
            },
            (None, Some(url)) => ServerTransport::Http {
                url: url.as_str().to_owned(),
                headers: text_values(server.headers, &|k| key(&format!("headers.{k}")), invalid)?,
            },
            (Some(_), Some(_)) => {
                return Err(invalid(
                    &format!("mcp.servers[{index}]"),
                    format!("server {name:?} has both command and url; give one"),
                ));
            }
            (None, None) => {
                return Err(invalid(
                    &format!("mcp.servers[{index}]"),
                    format!("server {name:?} needs a command (stdio) or a url (streamable http)"),
                ));
            }
        };
        servers.push(ServerSpec {
            name,
            transport,
            opens_2026,
        });
    }
    Ok(McpSettings {
        enabled: raw
            .enabled
            .is_some_and(|enabled| warnings.take("mcp.enabled", enabled)),
        startup_timeout,
        servers,
    })
}

/// Scalars as text; anything else is an error naming its key.
fn text_values(
    values: BTreeMap<String, serde_yaml_ng::Value>,
    key: &dyn Fn(&str) -> String,
    invalid: &dyn Fn(&str, String) -> SettingsError,
) -> Result<BTreeMap<String, String>, SettingsError> {
    values
        .into_iter()
        .map(|(name, value)| {
            let text = match &value {
                serde_yaml_ng::Value::String(text) => text.clone(),
                serde_yaml_ng::Value::Number(number) => number.to_string(),
                serde_yaml_ng::Value::Bool(flag) => flag.to_string(),
                other => {
                    return Err(invalid(
                        &key(&name),
                        format!("expected text, got {}", yaml_text(other)),
                    ));
                }
            };
            Ok((name, text))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use pretty_assertions::assert_eq;

    use super::*;
    use crate::Settings;

    fn parse(text: &str) -> Result<McpSettings, String> {
        Settings::from_yaml(Path::new("/project"), Some("settings.yaml".into()), text)
            .map(|settings| settings.mcp)
            .map_err(|err| err.to_string())
    }

    #[test]
    fn mcp_is_off_with_no_servers_by_default() {
        assert_eq!(parse(""), Ok(McpSettings::default()));
    }

    #[test]
    fn stdio_and_http_servers_are_read_in_order() {
        let text = r#"
mcp:
  enabled: true
  startup_timeout: 2.5
  servers:
    - {name: gmail, command: npx, args: ["-y", "@example/mcp-gmail"], env: {PORT: 8080, DEBUG: true}}
    - {name: off, command: never, enabled: false}
    - {name: remote, url: "http://127.0.0.1:9/mcp", headers: {Authorization: "Bearer x"}, protocol: "2026-07-28"}
"#;
        let expected = McpSettings {
            enabled: true,
            startup_timeout: Duration::from_millis(2500),
            servers: vec![
                ServerSpec {
                    name: "gmail".into(),
                    transport: ServerTransport::Stdio {
                        command: "npx".into(),
                        args: vec!["-y".into(), "@example/mcp-gmail".into()],
                        env: BTreeMap::from([
                            ("DEBUG".into(), "true".into()),
                            ("PORT".into(), "8080".into()),
                        ]),
                    },
                    opens_2026: false,
                },
                ServerSpec {
                    name: "remote".into(),
                    transport: ServerTransport::Http {
                        url: "http://127.0.0.1:9/mcp".into(),
                        headers: BTreeMap::from([("Authorization".into(), "Bearer x".into())]),
                    },
                    opens_2026: true,
                },
            ],
        };
        assert_eq!(parse(text), Ok(expected));
    }

    #[test]
    fn bad_servers_are_errors_naming_their_key() {
        let cases = [
            (
                "mcp: {servers: [{command: x}]}",
                "settings.yaml: mcp.servers[0].name: every server needs a name",
            ),
            (
                "mcp: {servers: [{name: a, command: x}, {name: a, command: y}]}",
                "settings.yaml: mcp.servers[1].name: the name \"a\" is already used by another server",
            ),
            (
                "mcp: {servers: [{name: a, command: x, url: 'http://h'}]}",
                "settings.yaml: mcp.servers[0]: server \"a\" has both command and url; give one",
            ),
            (
                "mcp: {servers: [{name: a}]}",
                "settings.yaml: mcp.servers[0]: server \"a\" needs a command (stdio) or a url (streamable http)",
            ),
            (
                "mcp: {servers: [{name: a, url: 'ftp://h'}]}",
                "settings.yaml: mcp.servers[0].url: expected an http:// or https:// URL, got \"ftp://h\" at line 1 column 32",
            ),
            (
                "mcp: {servers: [{name: a, command: x, env: {K: [1]}}]}",
                "settings.yaml: mcp.servers[0].env.K: expected text, got - 1",
            ),
            (
                "mcp: {servers: [{name: a, command: x, protocol: 2026}]}",
                "settings.yaml: mcp.servers[0].protocol: expected one of 2025-11-25, 2026-07-28, got 2026",
            ),
            (
                "mcp: {startup_timeout: 0}",
                "settings.yaml: mcp.startup_timeout: expected a number of seconds above 0 and at most 86400, got 0 at line 1 column 24",
            ),
        ];
        for (text, message) in cases {
            assert_eq!(parse(text), Err(message.to_owned()), "{text}");
        }
    }

    #[test]
    fn a_field_of_the_wrong_type_is_located() {
        let err = parse("mcp:\n  servers:\n    - {name: a, command: x, args: oops}\n").unwrap_err();
        assert!(
            err.contains("mcp.servers[0].args") && err.contains("line 3"),
            "{err}"
        );
    }
}
