//! `riverse call NAME [k=v ...] [--params JSON] [--json] [--yes]`
//!
//! The tool runs straight from the registry, with a listener of its own:
//! its bar on a terminal (cleared when it ends) and its log lines on stderr,
//! its questions put to the person when stdin and stderr are a terminal
//! (cancelled otherwise), `self.sample` answered by Riverse's own LLM. A
//! call whose `tools.<name>.approval` asks is put to the person the same
//! way, refused without a terminal, and approved at once by `--yes`.
//! Images and files the result carries are saved under `.riverse/out/`;
//! `--json` names where (`saved`) in place of their base64 `content`.

use std::sync::Arc;

use riverse_agent::{ProviderSampler, Settings, build_provider, build_registry};
use riverse_tool::{CallContext, CallError, Entry, Params, Registry, Sampler, Status};
use serde_json::Value;

use crate::live::{Asker, CALL_ID, CallView, OutDir, Saved, ToolLines, with_saved};
use crate::output::{Exit, print, print_json, usage};

pub async fn run(
    settings: &Settings,
    name: &str,
    params: Params,
    as_json: bool,
    approve: bool,
) -> anyhow::Result<Exit> {
    let registry = build_registry(settings).await;
    let lines = ToolLines::for_stderr();
    let asker = Asker::for_terminal(lines.clone()).approving_all(approve);
    let view = CallView::new(name, lines.clone(), asker.clone(), own_llm(settings));
    // Piped, a call shows no line of its own: its data is what it prints.
    if lines.is_live() {
        lines.start(CALL_ID, name, &Value::Object(params.clone()));
    }
    let origin = riverse_tool::CallOrigin::new("call", None);
    let context = CallContext::with_origin(Arc::new(view), Some(origin));
    let called = registry.call_with(name, params, &context).await;
    asker.settle().await;
    let result = match called {
        Ok(result) => result,
        Err(err @ (CallError::UnknownTool(_) | CallError::Unavailable { .. })) => {
            lines.finish(CALL_ID, &[]);
            let mut message = err.to_string();
            if matches!(err, CallError::UnknownTool(_)) {
                message.push_str(&unknown_tool_hint(&registry, settings));
            }
            return Err(usage(message));
        }
    };
    let saved = OutDir::of(&settings.project_dir).save(name, &result.content);
    let saved_lines: Vec<String> = saved.iter().map(Saved::line).collect();
    lines.finish(CALL_ID, &saved_lines);
    if as_json {
        print_json(&with_saved(serde_json::to_value(&result)?, &saved))?;
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

/// Riverse's own LLM for the tool's `self.sample`, or why there is none. A
/// provider that can't be built fails only a call that samples.
fn own_llm(settings: &Settings) -> Result<Arc<dyn Sampler>, String> {
    let provider =
        build_provider(settings).map_err(|err| format!("no LLM to sample from: {err}"))?;
    Ok(Arc::new(ProviderSampler::new(provider)))
}

/// What may explain an unknown name: the tools there are, and the files or
/// hosts that failed before they could name their tools (the tool asked for
/// may be in one of them), each on a line of its own.
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
        // An error's own lines (a fix to paste) are indented under it.
        let error = entry.error().unwrap_or("failed").replace('\n', "\n    ");
        hint.push_str(&format!("\n  {} failed: {error}", entry.source()));
    }
    if nameless.len() > SHOWN {
        hint.push_str(&format!(
            "\n  {} more failed (see riverse tools)",
            nameless.len() - SHOWN
        ));
    }
    hint
}

/// `--params` as the base object, each `key=value` over it (as a string; the
/// registry coerces it to the declared type).
pub fn parse_params(pairs: &[String], params_json: Option<&str>) -> anyhow::Result<Params> {
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
