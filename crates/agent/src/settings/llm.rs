//! The `openai` and `local` sections: where the LLM is, and the environment
//! variables that override them.
//!
//! ```yaml
//! openai: {model: gpt-4o-mini, api_base: "https://api.openai.com", api_key: "", temperature: 0.7, max_tokens: 2048}
//! local:  {model: "qwen2.5:14b", api_base: "http://localhost:11434"}
//! ```
//!
//! Besides the keys of DESIGN.md section 5, both take `timeout` (seconds the
//! endpoint may stay silent) and `max_retries`.

use std::time::Duration;

use serde::Deserialize;

use super::{SettingsError, seconds};

const DEFAULT_OPENAI_MODEL: &str = "gpt-4o-mini";
const DEFAULT_OPENAI_API_BASE: &str = "https://api.openai.com";
const DEFAULT_OPENAI_TEMPERATURE: f32 = 0.7;
const DEFAULT_OPENAI_MAX_TOKENS: u32 = 2048;
const DEFAULT_OPENAI_TIMEOUT: Duration = Duration::from_secs(60);
const DEFAULT_LOCAL_MODEL: &str = "qwen2.5:14b";
const DEFAULT_LOCAL_API_BASE: &str = "http://localhost:11434";
/// Ollama loads a model on its first request, which can take minutes.
const DEFAULT_LOCAL_TIMEOUT: Duration = Duration::from_secs(300);
const DEFAULT_MAX_RETRIES: u32 = 3;

/// `openai`: any OpenAI-compatible endpoint.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenaiSettings {
    pub model: String,
    /// What `/chat/completions` is appended to: `openai.api_base` with `/v1`
    /// added when it lacks it, or `$OPENAI_BASE_URL` as given (which, by
    /// convention, includes the version path).
    pub base_url: String,
    /// `openai.api_key`, or `$OPENAI_API_KEY`; empty sends no key.
    pub api_key: String,
    pub temperature: Option<f32>,
    pub max_tokens: Option<u32>,
    /// How long the endpoint may stay silent before a request fails.
    pub timeout: Duration,
    pub max_retries: u32,
}

/// `local`: Ollama.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalSettings {
    pub model: String,
    /// Ollama's address, without `/v1`.
    pub api_base: String,
    /// `None` leaves Ollama's default.
    pub temperature: Option<f32>,
    pub max_tokens: Option<u32>,
    pub timeout: Duration,
    pub max_retries: u32,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawEndpoint {
    model: Option<String>,
    api_base: Option<String>,
    api_key: Option<String>,
    temperature: Option<f32>,
    max_tokens: Option<u32>,
    timeout: Option<f64>,
    max_retries: Option<u32>,
}

/// The checked values shared by both sections.
struct Endpoint {
    model: Option<String>,
    api_base: Option<String>,
    temperature: Option<f32>,
    timeout: Option<Duration>,
}

fn check(
    section: &str,
    raw: &RawEndpoint,
    invalid: &dyn Fn(&str, String) -> SettingsError,
) -> Result<Endpoint, SettingsError> {
    let key = |field: &str| format!("{section}.{field}");
    let text = |field: &str, value: &Option<String>| match value.as_deref().map(str::trim) {
        Some("") => Err(invalid(&key(field), "must not be empty".into())),
        other => Ok(other.map(str::to_owned)),
    };
    let model = text("model", &raw.model)?;
    let api_base = text("api_base", &raw.api_base)?;
    if let Some(base) = &api_base
        && !(base.starts_with("http://") || base.starts_with("https://"))
    {
        return Err(invalid(
            &key("api_base"),
            format!("expected an http:// or https:// URL, got {base:?}"),
        ));
    }
    let temperature = match raw.temperature {
        Some(t) if !(0.0..=2.0).contains(&t) => {
            return Err(invalid(
                &key("temperature"),
                format!("expected a number from 0 to 2, got {t}"),
            ));
        }
        other => other,
    };
    let timeout = match raw.timeout {
        Some(secs) => Some(seconds(secs).ok_or_else(|| {
            invalid(
                &key("timeout"),
                format!("expected a positive number of seconds, got {secs}"),
            )
        })?),
        None => None,
    };
    Ok(Endpoint {
        model,
        api_base,
        temperature,
        timeout,
    })
}

pub(super) fn openai_settings(
    raw: RawEndpoint,
    invalid: &dyn Fn(&str, String) -> SettingsError,
) -> Result<OpenaiSettings, SettingsError> {
    let checked = check("openai", &raw, invalid)?;
    let api_base = checked
        .api_base
        .unwrap_or_else(|| DEFAULT_OPENAI_API_BASE.to_owned());
    Ok(OpenaiSettings {
        model: checked
            .model
            .unwrap_or_else(|| DEFAULT_OPENAI_MODEL.to_owned()),
        base_url: with_version_path(&api_base),
        api_key: raw.api_key.unwrap_or_default().trim().to_owned(),
        temperature: Some(checked.temperature.unwrap_or(DEFAULT_OPENAI_TEMPERATURE)),
        max_tokens: Some(raw.max_tokens.unwrap_or(DEFAULT_OPENAI_MAX_TOKENS)),
        timeout: checked.timeout.unwrap_or(DEFAULT_OPENAI_TIMEOUT),
        max_retries: raw.max_retries.unwrap_or(DEFAULT_MAX_RETRIES),
    })
}

pub(super) fn local_settings(
    raw: RawEndpoint,
    invalid: &dyn Fn(&str, String) -> SettingsError,
) -> Result<LocalSettings, SettingsError> {
    let checked = check("local", &raw, invalid)?;
    Ok(LocalSettings {
        model: checked
            .model
            .unwrap_or_else(|| DEFAULT_LOCAL_MODEL.to_owned()),
        api_base: checked
            .api_base
            .unwrap_or_else(|| DEFAULT_LOCAL_API_BASE.to_owned()),
        temperature: checked.temperature,
        max_tokens: raw.max_tokens,
        timeout: checked.timeout.unwrap_or(DEFAULT_LOCAL_TIMEOUT),
        max_retries: raw.max_retries.unwrap_or(DEFAULT_MAX_RETRIES),
    })
}

/// `https://api.openai.com` and `https://api.openai.com/v1/` both become
/// `https://api.openai.com/v1`.
fn with_version_path(api_base: &str) -> String {
    let base = api_base.trim().trim_end_matches('/');
    if base.ends_with("/v1") {
        base.to_owned()
    } else {
        format!("{base}/v1")
    }
}

impl OpenaiSettings {
    /// `OPENAI_API_KEY` and `OPENAI_BASE_URL` win over the file; empty
    /// variables count as unset.
    pub(super) fn apply_env(&mut self, var: &dyn Fn(&str) -> Option<String>) {
        let set = |name: &str| {
            var(name)
                .map(|value| value.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        if let Some(key) = set("OPENAI_API_KEY") {
            self.api_key = key;
        }
        if let Some(url) = set("OPENAI_BASE_URL") {
            self.base_url = url.trim_end_matches('/').to_owned();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn invalid(key: &str, message: String) -> SettingsError {
        SettingsError::Invalid {
            path: "settings.yaml".into(),
            key: key.to_owned(),
            message,
        }
    }

    fn raw(yaml: &str) -> RawEndpoint {
        serde_yaml_ng::from_str(yaml).unwrap()
    }

    #[test]
    fn api_base_is_accepted_with_or_without_v1() {
        for base in [
            "https://api.example.com",
            "https://api.example.com/",
            "https://api.example.com/v1/",
        ] {
            let settings = openai_settings(raw(&format!("api_base: {base}")), &invalid).unwrap();
            assert_eq!(settings.base_url, "https://api.example.com/v1");
        }
    }

    #[test]
    fn environment_variables_override_the_file() {
        let mut settings = openai_settings(
            raw("{api_key: from-file, api_base: 'http://file'}"),
            &invalid,
        )
        .unwrap();
        settings.apply_env(&|name| match name {
            "OPENAI_API_KEY" => Some("from-env".into()),
            "OPENAI_BASE_URL" => Some("http://env.example/api/v2/".into()),
            _ => None,
        });
        assert_eq!(settings.api_key, "from-env");
        assert_eq!(settings.base_url, "http://env.example/api/v2");
        let mut untouched = openai_settings(raw("{api_key: from-file}"), &invalid).unwrap();
        untouched.apply_env(&|_| Some(String::new()));
        assert_eq!(untouched.api_key, "from-file");
    }

    #[test]
    fn bad_values_name_their_key() {
        let err = openai_settings(raw("temperature: 3"), &invalid)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "settings.yaml: openai.temperature: expected a number from 0 to 2, got 3"
        );
        let err = local_settings(raw("api_base: localhost:11434"), &invalid)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "settings.yaml: local.api_base: expected an http:// or https:// URL, got \"localhost:11434\""
        );
        let err = openai_settings(raw("timeout: 0"), &invalid)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "settings.yaml: openai.timeout: expected a positive number of seconds, got 0"
        );
    }

    #[test]
    fn defaults_follow_the_design() {
        let openai = openai_settings(RawEndpoint::default(), &invalid).unwrap();
        assert_eq!(openai.model, "gpt-4o-mini");
        assert_eq!(openai.base_url, "https://api.openai.com/v1");
        assert_eq!(openai.temperature, Some(0.7));
        assert_eq!(openai.max_tokens, Some(2048));
        let local = local_settings(RawEndpoint::default(), &invalid).unwrap();
        assert_eq!(local.model, "qwen2.5:14b");
        assert_eq!(local.api_base, "http://localhost:11434");
    }
}
