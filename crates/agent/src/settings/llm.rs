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

use super::values::{Count, HttpUrl, NonEmpty, Scalar, Seconds, Warnings};

const DEFAULT_OPENAI_MODEL: &str = "gpt-4o-mini";
const DEFAULT_OPENAI_API_BASE: &str = "https://api.openai.com";
const DEFAULT_OPENAI_TEMPERATURE: f64 = 0.7;
const DEFAULT_OPENAI_MAX_TOKENS: u32 = 2048;
const DEFAULT_OPENAI_TIMEOUT: Duration = Duration::from_secs(60);
const DEFAULT_LOCAL_MODEL: &str = "qwen2.5:14b";
const DEFAULT_LOCAL_API_BASE: &str = "http://localhost:11434";
/// Ollama loads a model on its first request, which can take minutes.
const DEFAULT_LOCAL_TIMEOUT: Duration = Duration::from_secs(300);
const DEFAULT_MAX_RETRIES: u32 = 3;
/// The range OpenAI-compatible APIs accept; Riverse warns outside it and
/// goes on, so Riverse does too, with the nearest value inside it.
const TEMPERATURE_RANGE: std::ops::RangeInclusive<f64> = 0.0..=2.0;

/// `max_tokens`: at least 1.
type MaxTokens = Count<1, { u32::MAX as u64 }>;
/// `max_retries`.
type Retries = Count<0, 10>;

/// `openai`: any OpenAI-compatible endpoint.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenaiSettings {
    /// The section read: `openai`, or the one `llm_provider` names.
    pub section: String,
    pub model: String,
    /// What `/chat/completions` is appended to: `openai.api_base` with `/v1`
    /// added when it lacks it, or `$OPENAI_BASE_URL` as given (which, by
    /// convention, includes the version path).
    pub base_url: String,
    /// `openai.api_key`, or `$OPENAI_API_KEY`; empty sends no key.
    pub api_key: String,
    /// Sent as written (a YAML `0.7` goes out as `0.7`).
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    /// How long the endpoint may stay silent before a request fails.
    pub timeout: Duration,
    pub max_retries: u32,
    /// `images`: the model sees images, so tools' images are shown to it.
    pub images: bool,
}

/// `local`: Ollama.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalSettings {
    pub model: String,
    /// Ollama's address as written (`local.api_base`).
    pub api_base: String,
    /// Its OpenAI-compatible API: `api_base` with `/v1`.
    pub base_url: String,
    /// `None` leaves Ollama's default.
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    pub timeout: Duration,
    pub max_retries: u32,
    pub images: bool,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawEndpoint {
    model: Option<NonEmpty>,
    api_base: Option<HttpUrl>,
    api_key: Option<String>,
    temperature: Option<Scalar<f64>>,
    max_tokens: Option<Scalar<MaxTokens>>,
    timeout: Option<Scalar<Seconds>>,
    max_retries: Option<Scalar<Retries>>,
    images: Option<Scalar<bool>>,
}

/// The values both sections share, with their warnings given.
struct Endpoint {
    model: Option<String>,
    api_base: Option<HttpUrl>,
    api_key: String,
    temperature: Option<f64>,
    max_tokens: Option<u32>,
    timeout: Option<Duration>,
    max_retries: u32,
    images: bool,
}

fn endpoint(section: &str, raw: RawEndpoint, warnings: &mut Warnings) -> Endpoint {
    let key = |field: &str| format!("{section}.{field}");
    let temperature = raw.temperature.map(|temperature| {
        let written = warnings.take(&key("temperature"), temperature);
        let used = written.clamp(*TEMPERATURE_RANGE.start(), *TEMPERATURE_RANGE.end());
        if used != written {
            warnings.push(
                &key("temperature"),
                format!("{written} is outside 0 to 2; using {used}"),
            );
        }
        used
    });
    Endpoint {
        model: raw.model.map(|model| model.0),
        api_base: raw.api_base,
        api_key: raw.api_key.unwrap_or_default().trim().to_owned(),
        temperature,
        max_tokens: raw.max_tokens.map(|tokens| {
            u32::try_from(warnings.take(&key("max_tokens"), tokens).0).unwrap_or(u32::MAX)
        }),
        timeout: raw
            .timeout
            .map(|timeout| warnings.take(&key("timeout"), timeout).0),
        max_retries: raw.max_retries.map_or(DEFAULT_MAX_RETRIES, |retries| {
            u32::try_from(warnings.take(&key("max_retries"), retries).0).unwrap_or(0)
        }),
        images: raw
            .images
            .is_some_and(|images| warnings.take(&key("images"), images)),
    }
}

/// `section` is `openai`, or the section `llm_provider` names.
pub(super) fn openai_settings(
    section: &str,
    raw: RawEndpoint,
    warnings: &mut Warnings,
) -> OpenaiSettings {
    let endpoint = endpoint(section, raw, warnings);
    OpenaiSettings {
        section: section.to_owned(),
        model: endpoint
            .model
            .unwrap_or_else(|| DEFAULT_OPENAI_MODEL.to_owned()),
        base_url: endpoint.api_base.map_or_else(
            || format!("{DEFAULT_OPENAI_API_BASE}/v1"),
            |base| base.with_version_path(),
        ),
        api_key: endpoint.api_key,
        temperature: Some(endpoint.temperature.unwrap_or(DEFAULT_OPENAI_TEMPERATURE)),
        max_tokens: Some(endpoint.max_tokens.unwrap_or(DEFAULT_OPENAI_MAX_TOKENS)),
        timeout: endpoint.timeout.unwrap_or(DEFAULT_OPENAI_TIMEOUT),
        max_retries: endpoint.max_retries,
        images: endpoint.images,
    }
}

pub(super) fn local_settings(raw: RawEndpoint, warnings: &mut Warnings) -> LocalSettings {
    let endpoint = endpoint("local", raw, warnings);
    let api_base = endpoint
        .api_base
        .unwrap_or_else(|| HttpUrl::parse(DEFAULT_LOCAL_API_BASE).expect("the default is a URL"));
    LocalSettings {
        model: endpoint
            .model
            .unwrap_or_else(|| DEFAULT_LOCAL_MODEL.to_owned()),
        api_base: api_base.as_str().to_owned(),
        base_url: api_base.with_version_path(),
        temperature: endpoint.temperature,
        max_tokens: endpoint.max_tokens,
        timeout: endpoint.timeout.unwrap_or(DEFAULT_LOCAL_TIMEOUT),
        max_retries: endpoint.max_retries,
        images: endpoint.images,
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

    fn openai(yaml: &str) -> (OpenaiSettings, Vec<String>) {
        let mut warnings = Warnings::default();
        let settings = openai_settings(
            "openai",
            serde_yaml_ng::from_str(yaml).unwrap(),
            &mut warnings,
        );
        (settings, warnings.0)
    }

    fn error(yaml: &str) -> String {
        serde_yaml_ng::from_str::<RawEndpoint>(yaml)
            .err()
            .map(|err| err.to_string())
            .unwrap_or_default()
    }

    #[test]
    fn api_base_is_accepted_with_or_without_v1() {
        for base in [
            "https://api.example.com",
            "https://api.example.com/",
            "https://api.example.com/v1/",
        ] {
            let (settings, _) = openai(&format!("api_base: {base}"));
            assert_eq!(settings.base_url, "https://api.example.com/v1");
        }
    }

    #[test]
    fn ollama_s_address_is_taken_with_or_without_v1() {
        for base in ["http://h:11434", "http://h:11434/", "http://h:11434/v1"] {
            let raw = serde_yaml_ng::from_str(&format!("api_base: {base}")).unwrap();
            let local = local_settings(raw, &mut Warnings::default());
            assert_eq!(local.base_url, "http://h:11434/v1");
        }
    }

    #[test]
    fn environment_variables_override_the_file() {
        let (mut settings, _) = openai("{api_key: from-file, api_base: 'http://file'}");
        settings.apply_env(&|name| match name {
            "OPENAI_API_KEY" => Some("from-env".into()),
            "OPENAI_BASE_URL" => Some("http://env.example/api/v2/".into()),
            _ => None,
        });
        assert_eq!(settings.api_key, "from-env");
        assert_eq!(settings.base_url, "http://env.example/api/v2");
        let (mut untouched, _) = openai("{api_key: from-file}");
        untouched.apply_env(&|_| Some(String::new()));
        assert_eq!(untouched.api_key, "from-file");
    }

    #[test]
    fn bad_values_name_the_problem_and_where_it_is() {
        assert_eq!(
            error("api_base: localhost:11434"),
            "api_base: expected an http:// or https:// URL, got \"localhost:11434\" at line 1 column 11"
        );
        assert_eq!(
            error("timeout: 0"),
            "timeout: expected a number of seconds above 0 and at most 86400, got 0 at line 1 column 10"
        );
        assert_eq!(
            error("model: ' '"),
            "model: must not be empty at line 1 column 8"
        );
    }

    #[test]
    fn what_riverse_accepts_is_read_with_a_warning() {
        let (settings, warnings) = openai("{temperature: 2.5, max_tokens: '100'}");
        assert_eq!(settings.temperature, Some(2.0));
        assert_eq!(settings.max_tokens, Some(100));
        assert_eq!(
            warnings,
            [
                "openai.temperature: 2.5 is outside 0 to 2; using 2",
                "openai.max_tokens: \"100\" is text; read as 100",
            ]
        );
    }

    #[test]
    fn temperature_is_kept_as_written() {
        let (settings, warnings) = openai("temperature: 0.7");
        assert_eq!(settings.temperature, Some(0.7));
        assert!(warnings.is_empty());
    }

    #[test]
    fn defaults_follow_the_design() {
        let (openai, _) = openai("{}");
        assert_eq!(openai.model, "gpt-4o-mini");
        assert_eq!(openai.base_url, "https://api.openai.com/v1");
        assert_eq!(openai.temperature, Some(0.7));
        assert_eq!(openai.max_tokens, Some(2048));
        let local = local_settings(RawEndpoint::default(), &mut Warnings::default());
        assert_eq!(local.model, "qwen2.5:14b");
        assert_eq!(local.api_base, "http://localhost:11434");
    }
}
