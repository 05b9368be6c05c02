//! `secrets`: keys that tools need, read from the environment or a file and
//! given only to the tools that name them.
//!
//! ```yaml
//! secrets:
//!   WEATHER_KEY: {env: WEATHER_API_KEY}
//!   GITHUB_TOKEN: {file: secrets/github-token}   # relative to the project
//! tools:
//!   weather: {secrets: [WEATHER_KEY]}           # self.secret("WEATHER_KEY")
//! mcp:
//!   servers:
//!     - {name: gh, command: gh-mcp, env: {GH_TOKEN: "${secret:GITHUB_TOKEN}"}}
//! ```
//!
//! Every value read, with Riverse's own LLM key and `serve` token, joins the
//! process's redactor ([`riverse_secrets`]): it is written `[secret:NAME]`
//! wherever a tool's output would carry it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use riverse_protocol::SecretValue;
use serde_json::Value;

use super::{Settings, SettingsError};

/// Variables that hold Riverse's own keys: withheld from the tools'
/// environment unless `python.env_allow` names them.
pub const RIVERSE_OWN_VARIABLES: &[&str] = &["OPENAI_API_KEY", "RIVERSE_TOKEN"];

/// One entry of `secrets`.
#[derive(Debug, Clone, PartialEq)]
pub struct Secret {
    pub source: SecretSource,
    /// The value, or why it could not be read (the tools that name it are
    /// told, and the others run).
    pub value: Result<String, String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SecretSource {
    Env(String),
    File(PathBuf),
}

/// Reads `secrets`: a malformed entry is an error naming it; a value that
/// can't be read is kept as why, and said in `warnings`.
pub(super) fn secrets_settings(
    raw: Option<&Value>,
    project_dir: &Path,
    invalid: &dyn Fn(&str, String) -> SettingsError,
    warnings: &mut Vec<String>,
) -> Result<BTreeMap<String, Secret>, SettingsError> {
    let entries = match raw {
        None | Some(Value::Null) => return Ok(BTreeMap::new()),
        Some(Value::Object(entries)) => entries,
        Some(other) => {
            return Err(invalid(
                "secrets",
                format!(
                    "expected a mapping of names to {{env: VARIABLE}} or {{file: PATH}}, got {other}"
                ),
            ));
        }
    };
    let mut secrets = BTreeMap::new();
    for (name, entry) in entries {
        let key = format!("secrets.{name}");
        if !is_secret_name(name) {
            return Err(invalid(
                &key,
                "a secret's name is letters, digits, `_`, `-` and `.`".into(),
            ));
        }
        let source = source(entry, project_dir).map_err(|why| invalid(&key, why))?;
        let value = read(&source).and_then(|value| {
            riverse_secrets::Redactor::new([(name.as_str(), value.as_str())])
                .map(|_| value)
                .map_err(|short| short.to_string())
        });
        if let Err(why) = &value {
            warnings.push(format!("{key}: {why}; the tools that name it can't use it"));
        }
        secrets.insert(name.clone(), Secret { source, value });
    }
    Ok(secrets)
}

fn is_secret_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

fn source(entry: &Value, project_dir: &Path) -> Result<SecretSource, String> {
    let expected = || format!("expected {{env: VARIABLE}} or {{file: PATH}}, got {entry}");
    let Value::Object(fields) = entry else {
        return Err(expected());
    };
    let text = |field: &str| match fields.get(field) {
        Some(Value::String(text)) if !text.trim().is_empty() => Ok(Some(text.trim().to_owned())),
        Some(other) => Err(format!("{field}: expected text, got {other}")),
        None => Ok(None),
    };
    if let Some(unknown) = fields
        .keys()
        .find(|key| !matches!(key.as_str(), "env" | "file"))
    {
        return Err(format!("unknown key `{unknown}`: {}", expected()));
    }
    match (text("env")?, text("file")?) {
        (Some(variable), None) => Ok(SecretSource::Env(variable)),
        (None, Some(file)) => Ok(SecretSource::File(project_dir.join(file))),
        _ => Err(expected()),
    }
}

fn read(source: &SecretSource) -> Result<String, String> {
    match source {
        SecretSource::Env(variable) => match std::env::var(variable) {
            Ok(value) if !value.is_empty() => Ok(value),
            Ok(_) => Err(format!("environment variable {variable} is empty")),
            Err(_) => Err(format!("environment variable {variable} is not set")),
        },
        SecretSource::File(path) => std::fs::read_to_string(path)
            .map(|text| text.trim_end_matches(['\n', '\r']).to_owned())
            .map_err(|err| format!("can't read {}: {err}", path.display())),
    }
}

/// `${secret:NAME}` in `text` replaced by the secret's value; `Err` says
/// which name is unknown or unreadable.
pub fn expand_secrets(text: &str, secrets: &BTreeMap<String, Secret>) -> Result<String, String> {
    const OPEN: &str = "${secret:";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        out.push_str(&rest[..start]);
        let after = &rest[start + OPEN.len()..];
        let Some(end) = after.find('}') else {
            return Err(format!("`{OPEN}` is not closed by `}}`"));
        };
        let name = &after[..end];
        match secrets.get(name).map(|secret| &secret.value) {
            Some(Ok(value)) => out.push_str(value),
            Some(Err(why)) => return Err(format!("secret \"{name}\" could not be read: {why}")),
            None => return Err(format!("no secret \"{name}\" under `secrets`")),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

impl Settings {
    /// The secrets each tool is given, as its calls carry them.
    pub fn tool_secrets(&self) -> BTreeMap<String, BTreeMap<String, SecretValue>> {
        self.tools
            .per_tool
            .iter()
            .filter(|(_, tool)| !tool.secrets.is_empty())
            .map(|(name, tool)| {
                let given = tool
                    .secrets
                    .iter()
                    .filter_map(|secret| {
                        let value = match &self.secrets.get(secret)?.value {
                            Ok(value) => SecretValue::Value(value.clone()),
                            Err(error) => SecretValue::Unreadable {
                                error: error.clone(),
                            },
                        };
                        Some((secret.clone(), value))
                    })
                    .collect();
                (name.clone(), given)
            })
            .collect()
    }

    /// Every value the process must keep out of tools' output: the
    /// secrets read, the LLM key and `serve`'s token, each by its name.
    pub fn protected_values(&self) -> Vec<(String, String)> {
        let mut values: Vec<(String, String)> = self
            .secrets
            .iter()
            .filter_map(|(name, secret)| Some((name.clone(), secret.value.clone().ok()?)))
            .collect();
        let own = [
            ("llm.api_key", Some(self.openai.api_key.clone())),
            ("serve.token", self.serve.token.clone()),
            ("serve.token", std::env::var("RIVERSE_TOKEN").ok()),
        ];
        values.extend(
            own.into_iter()
                .filter_map(|(name, value)| Some((name.to_owned(), value?)))
                .filter(|(_, value)| value.chars().count() >= riverse_secrets::MIN_SECRET_CHARS),
        );
        values
    }

    /// Adds [`Settings::protected_values`] to the process's redactor.
    pub fn protect_secrets(&self) {
        let values = self.protected_values();
        let pairs = values
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()));
        // Each value was checked as it was read: none is refused here.
        let _ = riverse_secrets::register(pairs);
    }

    /// The variables no program Riverse starts for a tool inherits (MCP
    /// servers, command agents, and the Python workers under `python.env:
    /// inherit`): Riverse's own keys and the secrets' sources, less those
    /// `python.env_allow` names.
    pub fn withheld_env(&self) -> Vec<String> {
        match &self.python.env {
            riverse_python::EnvPolicy::Inherit { withheld } => withheld.clone(),
            riverse_python::EnvPolicy::Clean { allow } => {
                Settings::withheld_variables(&self.secrets, allow)
            }
        }
    }

    /// The variables withheld from tools that inherit Riverse's
    /// environment: Riverse's own keys and the secrets' sources, less
    /// those `python.env_allow` names.
    pub(super) fn withheld_variables(
        secrets: &BTreeMap<String, Secret>,
        allowed: &[String],
    ) -> Vec<String> {
        let sources = secrets.values().filter_map(|secret| match &secret.source {
            SecretSource::Env(variable) => Some(variable.as_str()),
            SecretSource::File(_) => None,
        });
        let mut withheld: Vec<String> = RIVERSE_OWN_VARIABLES
            .iter()
            .copied()
            .chain(sources)
            .filter(|variable| !allowed.iter().any(|allowed| allowed == variable))
            .map(str::to_owned)
            .collect();
        withheld.sort();
        withheld.dedup();
        withheld
    }
}

/// Each `tools.<name>.secrets` names a secret of `secrets`.
pub(super) fn check_tools_secrets(
    tools: &super::ToolsSettings,
    secrets: &BTreeMap<String, Secret>,
    invalid: &dyn Fn(&str, String) -> SettingsError,
) -> Result<(), SettingsError> {
    for (tool, settings) in &tools.per_tool {
        if let Some(unknown) = settings
            .secrets
            .iter()
            .find(|name| !secrets.contains_key(*name))
        {
            return Err(invalid(
                &format!("tools.{tool}.secrets"),
                format!("\"{unknown}\" is not a secret under `secrets`"),
            ));
        }
    }
    Ok(())
}

/// `${secret:NAME}` in MCP servers' `env` and `headers`, replaced by the
/// values.
pub(super) fn expand_in_servers(
    mcp: &mut super::McpSettings,
    secrets: &BTreeMap<String, Secret>,
    invalid: &dyn Fn(&str, String) -> SettingsError,
) -> Result<(), SettingsError> {
    use riverse_mcp::ServerTransport;
    for (index, server) in mcp.servers.iter_mut().enumerate() {
        let (field, values) = match &mut server.transport {
            ServerTransport::Stdio { env, .. } => ("env", env),
            ServerTransport::Http { headers, .. } => ("headers", headers),
        };
        for (key, value) in values.iter_mut() {
            *value = expand_secrets(value, secrets)
                .map_err(|why| invalid(&format!("mcp.servers[{index}].{field}.{key}"), why))?;
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "secrets_tests.rs"]
mod tests;
