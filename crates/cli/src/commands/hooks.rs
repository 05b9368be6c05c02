//! `riverse hooks [--json]`: every hook file of `agent/hooks/` (`hooks.dir`),
//! its hooks, and why a file or a hook could not be loaded.

use std::path::Path;

use riverse_agent::{Settings, list_hooks};
use riverse_python::{FileFate, FileReport, FoundHooks};
use riverse_tool::OnHookError;
use serde_json::{Value, json};

use crate::output::{Exit, print, print_json};

pub async fn run(settings: &Settings, as_json: bool) -> anyhow::Result<Exit> {
    let found = list_hooks(settings).await;
    if as_json {
        print_json(&listing(settings, &found))?;
    } else {
        print(&table(settings, &found))?;
    }
    Ok(Exit::Success)
}

/// The hooks directory as settings name it.
fn shown_dir(settings: &Settings) -> &Path {
    &settings.hooks.dir
}

fn on_error(settings: &Settings) -> &'static str {
    match settings.hooks.on_error {
        OnHookError::Deny => "deny",
        OnHookError::Allow => "allow",
    }
}

/// `riverse hooks --json`: the settings, then one entry per hook, and per
/// file that yielded none because it failed, in the order hooks run.
fn listing(settings: &Settings, found: &FoundHooks) -> Value {
    let mut hooks = Vec::new();
    for report in &found.files {
        hooks.extend(entries(report));
    }
    json!({
        "dir": shown_dir(settings),
        "enabled": settings.hooks.enabled,
        "timeout": settings.hooks.timeout.as_secs_f64(),
        "on_error": on_error(settings),
        "error": found.error,
        "hooks": hooks,
    })
}

/// A file's hooks, or its failure.
fn entries(report: &FileReport) -> Vec<Value> {
    let error_json = |error: &riverse_python::WorkerError| json!({"message": error.message, "file": error.file, "line": error.line});
    if report.fate != FileFate::Imported {
        let error = report.error.as_ref().map(error_json);
        return vec![json!({
            "name": report.file,
            "file": report.file,
            "class": null,
            "status": "error",
            "error": error.unwrap_or_else(|| json!({"message": "skipped", "file": report.file, "line": null})),
        })];
    }
    report
        .classes
        .iter()
        .map(|class| {
            let phase = |key: &str| {
                class
                    .manifest
                    .as_ref()
                    .and_then(|manifest| manifest.get(key))
                    .and_then(Value::as_bool)
                    .unwrap_or(false)
            };
            let description = class
                .manifest
                .as_ref()
                .and_then(|manifest| manifest.get("description"))
                .cloned()
                .unwrap_or(Value::Null);
            json!({
                "name": format!("{}:{}", report.file, class.class_name),
                "file": report.file,
                "class": class.class_name,
                "status": if class.error.is_some() { "error" } else { "enabled" },
                "before_call": phase("before"),
                "after_call": phase("after"),
                "description": description,
                "error": class.error.as_ref().map(error_json),
            })
        })
        .collect()
}

/// One line per hook, in the order they run.
fn table(settings: &Settings, found: &FoundHooks) -> String {
    let mut text = format!(
        "hooks in {} (timeout {}, on_error: {})\n",
        shown_dir(settings).display(),
        riverse_tool::seconds(settings.hooks.timeout),
        on_error(settings)
    );
    if !settings.hooks.enabled {
        text.push_str("  hooks are disabled (hooks.enabled: false)\n");
        return text;
    }
    if let Some(error) = &found.error {
        text.push_str(&format!("  error: {error}\n"));
    }
    let entries: Vec<Value> = found.files.iter().flat_map(entries).collect();
    if entries.is_empty() && found.error.is_none() {
        text.push_str("  no hook files\n");
    }
    for entry in entries {
        let name = entry["name"].as_str().unwrap_or_default();
        if let Some(error) = entry["error"].as_object() {
            let message = error["message"].as_str().unwrap_or_default();
            let place = match (error["file"].as_str(), error["line"].as_u64()) {
                (Some(file), Some(line)) => format!(" ({file}:{line})"),
                (Some(file), None) => format!(" ({file})"),
                _ => String::new(),
            };
            text.push_str(&format!("  {name}  error: {message}{place}\n"));
            continue;
        }
        let phases: Vec<&str> = [("before_call", "before_call"), ("after_call", "after_call")]
            .into_iter()
            .filter(|(key, _)| entry[*key] == Value::Bool(true))
            .map(|(_, shown)| shown)
            .collect();
        let phases = if phases.is_empty() {
            "no phase".to_owned()
        } else {
            phases.join(", ")
        };
        text.push_str(&format!("  {name}  {phases}\n"));
    }
    text
}
