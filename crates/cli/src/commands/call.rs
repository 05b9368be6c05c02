//! `riverse call NAME [k=v ...] [--params JSON] [--json]`

use riverse_agent::{Settings, build_registry};
use riverse_tool::{CallError, Entry, Params, Registry, Status};
use serde_json::Value;

use crate::output::{Exit, print, print_json, usage};

pub async fn run(
    settings: &Settings,
    name: &str,
    pairs: &[String],
    params_json: Option<&str>,
    as_json: bool,
) -> anyhow::Result<Exit> {
    let params = parse_params(pairs, params_json)?;
    let registry = build_registry(settings).await;
    let result = match registry.call(name, params).await {
        Ok(result) => result,
        Err(err @ (CallError::UnknownTool(_) | CallError::Unavailable { .. })) => {
            let mut message = err.to_string();
            if matches!(err, CallError::UnknownTool(_)) {
                message.push_str(&unknown_tool_hint(&registry, settings));
            }
            return Err(usage(message));
        }
    };
    if as_json {
        print_json(&result)?;
    } else if result.success {
        print(&result.data)?;
    } else {
        eprintln!("riverse: {}", result.error);
    }
    Ok(if result.success {
        Exit::Success
    } else {
        Exit::Failure
    })
}

/// What may explain an unknown name: the tools there are, and the files or
/// hosts that failed before they could name their tools (the tool asked for
/// may be in one of them).
fn unknown_tool_hint(registry: &Registry, settings: &Settings) -> String {
    /// Failures shown in full; more are only counted.
    const SHOWN: usize = 3;
    let mut hint = String::new();
    let names: Vec<&str> = registry
        .available_manifests()
        .map(|m| m.name.as_str())
        .collect();
    if !names.is_empty() {
        hint.push_str(&format!(" (available: {})", names.join(", ")));
    }
    if !settings.tools.enabled {
        hint.push_str("; drop-in tools are off (tools.enabled: false)");
    }
    let nameless: Vec<&Entry> = registry
        .entries()
        .iter()
        .filter(|entry| entry.name().is_none() && entry.status() == Status::Error)
        .collect();
    for entry in nameless.iter().take(SHOWN) {
        let error = entry.error().unwrap_or("failed");
        hint.push_str(&format!("; {} failed: {error}", entry.source()));
    }
    if nameless.len() > SHOWN {
        hint.push_str(&format!(
            "; {} more failed (see riverse tools)",
            nameless.len() - SHOWN
        ));
    }
    hint
}

/// `--params` as the base object, each `key=value` over it (as a string; the
/// registry coerces it to the declared type).
fn parse_params(pairs: &[String], params_json: Option<&str>) -> anyhow::Result<Params> {
    let mut params = match params_json {
        None => Params::new(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(object)) => object,
            Ok(other) => {
                return Err(usage(format!(
                    "--params must be a JSON object, got {other}"
                )));
            }
            Err(err) => return Err(usage(format!("--params is not valid JSON: {err}"))),
        },
    };
    for pair in pairs {
        let Some((key, value)) = pair.split_once('=') else {
            return Err(usage(format!("expected KEY=VALUE, got {pair:?}")));
        };
        if key.is_empty() {
            return Err(usage(format!("empty parameter name in {pair:?}")));
        }
        params.insert(key.to_owned(), Value::String(value.to_owned()));
    }
    Ok(params)
}
