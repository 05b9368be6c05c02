//! `riverse tools [--json]`

use riverse_agent::{Settings, list_tools, options::environment_options, tools_json};
use riverse_process::sandbox::Sandbox;
use riverse_python::environment::summary;
use riverse_tool::{Entry, Registry, Status, ToolSource};

use crate::output::{Exit, print, print_json};

pub async fn run(settings: &Settings, as_json: bool) -> anyhow::Result<Exit> {
    let registry = list_tools(settings).await;
    if as_json {
        print_json(&tools_json(&registry))?;
    } else {
        print(&table(&registry, settings))?;
    }
    Ok(Exit::Success)
}

/// `2 tool files failed to load: riverse tools shows why`, for a long-running
/// command's start, when any file or server yielded no usable tool.
pub fn failed_to_load(registry: &Registry) -> Option<String> {
    let failed: Vec<&Entry> = registry
        .entries()
        .iter()
        .filter(|entry| entry.status() == Status::Error)
        .collect();
    let all_files = failed.iter().all(|entry| {
        matches!(
            entry.source(),
            ToolSource::Python { .. } | ToolSource::Agent { .. }
        )
    });
    let what = match (failed.len(), all_files) {
        (0, _) => return None,
        (1, true) => "1 tool file".to_owned(),
        (1, false) => "1 tool source".to_owned(),
        (count, true) => format!("{count} tool files"),
        (count, false) => format!("{count} tool sources"),
    };
    Some(format!("{what} failed to load: riverse tools shows why"))
}

/// A readable table: one row per entry, its parameters and its error beneath it.
fn table(registry: &Registry, settings: &Settings) -> String {
    let entries = registry.entries();
    if entries.is_empty() {
        return match settings.tools.enabled {
            true => format!("no tools in {}", settings.tools_dir().display()),
            false => "no tools: tools.enabled is false".to_owned(),
        };
    }
    let name_of = |entry: &Entry| entry.name().unwrap_or("-").to_owned();
    let name_width = entries
        .iter()
        .map(|e| name_of(e).chars().count())
        .max()
        .unwrap_or(0)
        .max(4);
    let source_width = entries
        .iter()
        .map(|e| e.source().to_string().chars().count())
        .max()
        .unwrap_or(0)
        .max(6);
    let mut out = format!(
        "{:name_width$}  {:11}  {:source_width$}  DESCRIPTION\n",
        "NAME", "STATUS", "SOURCE"
    );
    for entry in entries {
        let description = entry
            .manifest()
            .map(|m| first_line(&m.description))
            .unwrap_or_default();
        let row = format!(
            "{:name_width$}  {:11}  {:source_width$}  {description}",
            name_of(entry),
            entry.status().as_str(),
            entry.source().to_string(),
        );
        out.push_str(row.trim_end());
        out.push('\n');
        if let Some(manifest) = entry
            .manifest()
            .filter(|_| entry.status() == Status::Available)
        {
            for (param, text) in &manifest.parameters {
                let kind = manifest.type_label(param);
                out.push_str(&format!("{:name_width$}    {param} ({kind}): {text}\n", ""));
            }
        }
        if let Some(name) = entry.name()
            && !registry.approval(name).is_auto()
        {
            let approval = registry.approval(name).summary();
            out.push_str(&format!(
                "{:name_width$}    approval: {approval} (tools.{name}.approval)\n",
                ""
            ));
        }
        if let Some(name) = entry.name()
            && let Some(sandbox) = sandbox_of(settings, name, entry.source())
        {
            out.push_str(&format!(
                "{:name_width$}    sandbox: {} ({})\n",
                "",
                sandbox.summary(&settings.project_dir),
                sandbox.label
            ));
        }
        for warning in entry.manifest().iter().flat_map(|m| m.type_warnings()) {
            out.push_str(&format!("{:name_width$}    ! {warning}\n", ""));
        }
        if let Some(error) = entry.error() {
            // A hint's lines (a block to paste) stay under the error.
            let error = error.replace('\n', &format!("\n{:name_width$}      ", ""));
            out.push_str(&format!("{:name_width$}    └ {error}\n", ""));
        }
    }
    let available = entries
        .iter()
        .filter(|e| e.status() == Status::Available)
        .count();
    out.push_str(&format!("\n{available} of {} available", entries.len()));
    let environment = environment_options(settings);
    if let Some(line) = summary(&settings.tools_dir(), &settings.project_dir, &environment) {
        out.push_str(&format!("\n{line}"));
    }
    out
}

/// The sandbox calls of `name` run in: its own, or for a Python tool
/// `python.sandbox`.
fn sandbox_of<'a>(settings: &'a Settings, name: &str, source: &ToolSource) -> Option<&'a Sandbox> {
    let own = settings
        .tools
        .per_tool
        .get(name)
        .and_then(|tool| tool.sandbox.as_ref());
    match source {
        ToolSource::Python { .. } => own.or(settings.python.sandbox.as_ref()),
        ToolSource::Agent { .. } => own,
        _ => None,
    }
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_owned()
}
