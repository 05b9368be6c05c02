//! The `config` dict every tool receives, as Riverse's `load_config` makes it.
//!
//! Tools read the whole settings document, plus keys Riverse derives from it:
//!
//! - `llm`: the section of the active provider (`llm_provider`, default
//!   `local` as in Riverse; a provider without a section falls back to
//!   `local`, then `{}`), e.g. `openai` with its `api_key`, `api_base` and
//!   `model`;
//! - `cloud_llm_configs`: `cloud_llm.providers` that have an `api_key`, by
//!   `priority`, with Riverse's defaults, when `cloud_llm.enabled`; else `[]`;
//! - defaults for sections tools read with `.get`: `tools` (`{enabled:
//!   true}`), `embedding`, `skills`, `language` (`en`, also for a language
//!   Riverse doesn't know).
//!
//! `OPENAI_API_KEY` and `OPENAI_BASE_URL` win over the file's `openai`
//! section (and so over `llm` when the provider is `openai`), as they do for
//! Riverse's own requests; the base URL is given to tools without its
//! trailing `/v1`, as `api_base` is written. A tool section left empty in
//! YAML (`file_list:` with nothing under it) reaches tools as `{}`.

use serde_json::{Map, Value, json};

/// Languages Riverse has prompts for.
const LANGUAGES: &[&str] = &["en", "ja", "zh"];

/// `document` with Riverse's derived keys; `env` reads environment variables.
pub fn tool_config(document: &Value, env: &dyn Fn(&str) -> Option<String>) -> Value {
    let mut config = match document {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    apply_openai_env(&mut config, env);
    let provider = config
        .get("llm_provider")
        .and_then(Value::as_str)
        .unwrap_or("local")
        .to_owned();
    let llm = config
        .get(&provider)
        .filter(|section| section.is_object())
        .or_else(|| config.get("local").filter(|section| section.is_object()))
        .cloned()
        .unwrap_or_else(|| json!({}));
    config.insert("llm".into(), llm);
    let cloud = cloud_llm_configs(config.get("cloud_llm"));
    config.insert("cloud_llm_configs".into(), cloud);
    normalize_tools(&mut config);
    default_embedding(&mut config);
    if !config.get("skills").is_some_and(Value::is_object) {
        config.insert("skills".into(), json!({"enabled": true}));
    }
    let language_known = config
        .get("language")
        .and_then(Value::as_str)
        .is_some_and(|language| LANGUAGES.contains(&language));
    if !language_known {
        config.insert("language".into(), json!("en"));
    }
    Value::Object(config)
}

fn apply_openai_env(config: &mut Map<String, Value>, env: &dyn Fn(&str) -> Option<String>) {
    let set = |name: &str| {
        env(name)
            .map(|value| value.trim().to_owned())
            .filter(|value| !value.is_empty())
    };
    let key = set("OPENAI_API_KEY");
    let base = set("OPENAI_BASE_URL").map(|url| {
        let url = url.trim_end_matches('/');
        url.strip_suffix("/v1").unwrap_or(url).to_owned()
    });
    if key.is_none() && base.is_none() {
        return;
    }
    let section = config.entry("openai").or_insert_with(|| json!({}));
    if !section.is_object() {
        *section = json!({});
    }
    if let Value::Object(section) = section {
        if let Some(key) = key {
            section.insert("api_key".into(), json!(key));
        }
        if let Some(base) = base {
            section.insert("api_base".into(), json!(base));
        }
    }
}

fn cloud_llm_configs(cloud: Option<&Value>) -> Value {
    let Some(cloud) = cloud.and_then(Value::as_object) else {
        return json!([]);
    };
    let enabled = cloud.get("enabled").is_some_and(is_truthy);
    let Some(providers) = cloud.get("providers").and_then(Value::as_array) else {
        return json!([]);
    };
    if !enabled {
        return json!([]);
    }
    let mut keyed: Vec<&Map<String, Value>> = providers
        .iter()
        .filter_map(Value::as_object)
        .filter(|provider| provider.get("api_key").is_some_and(is_truthy))
        .collect();
    let priority = |provider: &Map<String, Value>| {
        provider
            .get("priority")
            .and_then(Value::as_f64)
            .unwrap_or(99.0)
    };
    keyed.sort_by(|a, b| priority(a).total_cmp(&priority(b)));
    let field = |provider: &Map<String, Value>, key: &str, default: Value| {
        provider.get(key).cloned().unwrap_or(default)
    };
    keyed
        .into_iter()
        .map(|provider| {
            let model = field(provider, "model", Value::Null);
            json!({
                "name": field(provider, "name", model.clone()),
                "model": model,
                "api_base": field(provider, "api_base", Value::Null),
                "api_key": field(provider, "api_key", json!("")),
                "temperature": field(provider, "temperature", json!(0.7)),
                "max_tokens": field(provider, "max_tokens", json!(2048)),
                "search": field(provider, "search", json!(false)),
            })
        })
        .collect()
}

/// Python's truthiness for the values YAML gives.
fn is_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(flag) => *flag,
        Value::Number(number) => number.as_f64().is_some_and(|n| n != 0.0),
        Value::String(text) => !text.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(map) => !map.is_empty(),
    }
}

/// `tools` is a mapping, and each of its sections left empty is `{}`.
fn normalize_tools(config: &mut Map<String, Value>) {
    let tools = config
        .entry("tools")
        .or_insert_with(|| json!({"enabled": true}));
    if tools.is_null() {
        *tools = json!({"enabled": true});
    }
    if let Value::Object(sections) = tools {
        for section in sections.values_mut() {
            if section.is_null() {
                *section = json!({});
            }
        }
    }
}

fn default_embedding(config: &mut Map<String, Value>) {
    let embedding = config
        .entry("embedding")
        .or_insert_with(|| json!({"enabled": false}));
    let Value::Object(embedding) = embedding else {
        return;
    };
    embedding.entry("model").or_insert_with(|| json!(""));
    embedding.entry("api_base").or_insert_with(|| json!(""));
    if let Value::Object(search) = embedding.entry("search").or_insert_with(|| json!({})) {
        search.entry("top_k").or_insert_with(|| json!(5));
        search.entry("min_score").or_insert_with(|| json!(0.40));
    }
    if let Value::Object(clustering) = embedding.entry("clustering").or_insert_with(|| json!({})) {
        clustering.entry("enabled").or_insert_with(|| json!(false));
        clustering
            .entry("show_themes")
            .or_insert_with(|| json!(false));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn config(yaml: &str, env: &[(&str, &str)]) -> Value {
        let document: Value = serde_yaml_ng::from_str(yaml).unwrap();
        tool_config(&document, &|name| {
            env.iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (*value).to_owned())
        })
    }

    #[test]
    fn llm_is_the_active_providers_section_with_the_environment_applied() {
        let yaml = "llm_provider: openai\nopenai: {model: gpt-4o-mini, api_base: \"https://api.openai.com\", api_key: \"\"}\nlocal: {model: qwen}\n";
        assert_eq!(
            config(yaml, &[])["llm"],
            json!({"model": "gpt-4o-mini", "api_base": "https://api.openai.com", "api_key": ""})
        );
        let derived = config(
            yaml,
            &[
                ("OPENAI_API_KEY", "sk-env"),
                ("OPENAI_BASE_URL", "http://127.0.0.1:9/v1/"),
            ],
        );
        assert_eq!(
            derived["llm"],
            json!({"model": "gpt-4o-mini", "api_base": "http://127.0.0.1:9", "api_key": "sk-env"})
        );
        assert_eq!(derived["openai"]["api_key"], "sk-env");
        // Another provider's section, and a provider without one.
        assert_eq!(
            config(
                "llm_provider: deepseek\ndeepseek: {model: deepseek-chat}\n",
                &[]
            )["llm"],
            json!({"model": "deepseek-chat"})
        );
        assert_eq!(
            config("llm_provider: nowhere\nlocal: {model: qwen}\n", &[])["llm"],
            json!({"model": "qwen"})
        );
        assert_eq!(config("", &[])["llm"], json!({}));
    }

    #[test]
    fn cloud_llm_configs_keep_keyed_providers_by_priority() {
        let yaml = r#"
cloud_llm:
  enabled: true
  providers:
    - {name: openai, model: gpt-4o, api_base: "https://api.openai.com", api_key: "", priority: 1}
    - {name: deepseek, model: deepseek-chat, api_base: "https://api.deepseek.com", api_key: "k2", priority: 2}
    - {model: other, api_base: "http://x", api_key: "k1", priority: 1, search: true}
"#;
        assert_eq!(
            config(yaml, &[])["cloud_llm_configs"],
            json!([
                {"name": "other", "model": "other", "api_base": "http://x", "api_key": "k1",
                 "temperature": 0.7, "max_tokens": 2048, "search": true},
                {"name": "deepseek", "model": "deepseek-chat", "api_base": "https://api.deepseek.com",
                 "api_key": "k2", "temperature": 0.7, "max_tokens": 2048, "search": false},
            ])
        );
        assert_eq!(
            config(&yaml.replace("enabled: true", "enabled: false"), &[])["cloud_llm_configs"],
            json!([])
        );
    }

    #[test]
    fn empty_sections_are_empty_mappings_and_defaults_are_filled() {
        let derived = config(
            "language: fr\ntools:\n  file_list:\n  grep: {enabled: false}\n",
            &[],
        );
        assert_eq!(
            derived["tools"],
            json!({"file_list": {}, "grep": {"enabled": false}})
        );
        assert_eq!(derived["language"], "en");
        assert_eq!(derived["skills"], json!({"enabled": true}));
        assert_eq!(
            derived["embedding"],
            json!({"enabled": false, "model": "", "api_base": "",
                   "search": {"top_k": 5, "min_score": 0.40},
                   "clustering": {"enabled": false, "show_themes": false}})
        );
        assert_eq!(config("tools:\n", &[])["tools"], json!({"enabled": true}));
    }
}
