//! `riverse new NAME`: a commented tool file to start from, and its eval cases.

use std::path::Path;

use anyhow::Context;
use riverse_agent::Settings;
use riverse_tool::is_valid_name;

use crate::output::{Exit, print, usage};

const TOOL: &str = include_str!("../../templates/new/tool.py");
const CASES: &str = include_str!("../../templates/new/eval.yaml");

pub fn run(settings: &Settings, name: &str) -> anyhow::Result<Exit> {
    // A file starting with `_` is a helper, not a tool; one starting with `-`
    // reads as an option to every command that names it.
    if !is_valid_name(name) || name.starts_with(['_', '-']) {
        return Err(usage(format!(
            "{name:?} can't name a tool: use up to 64 letters, digits, _ and - (neither first), as in my_tool"
        )));
    }
    let dir = settings.tools_dir();
    let tool = dir.join(format!("{name}.py"));
    let cases = dir.join(format!("{name}.eval.yaml"));
    for path in [&tool, &cases] {
        if path.exists() {
            return Err(usage(format!("{} already exists", path.display())));
        }
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("can't create {}", dir.display()))?;
    let shown = tool.strip_prefix(&settings.project_dir).unwrap_or(&tool);
    write(
        &tool,
        &TOOL
            .replace("__CLASS__", &class_name(name))
            .replace("__NAME__", name)
            .replace("__PATH__", &python_text(&shown.display().to_string())),
    )?;
    write(&cases, &CASES.replace("__NAME__", name))?;
    let project = settings.project_dir.display();
    print(&format!(
        "Next:\n  edit {}\n  riverse --dir {project} call {name}\n  riverse --dir {project} eval --tool {name}",
        tool.display()
    ))?;
    Ok(Exit::Success)
}

fn write(path: &Path, contents: &str) -> anyhow::Result<()> {
    std::fs::write(path, contents).with_context(|| format!("can't write {}", path.display()))?;
    print(&format!("created {}", path.display()))
}

/// `path` as it may stand inside a double-quoted Python string.
fn python_text(path: &str) -> String {
    path.replace('\\', "\\\\").replace('"', "\\\"")
}

/// `my_tool` and `my-tool` become `MyToolTool`.
fn class_name(name: &str) -> String {
    let mut class: String = name
        .split(['_', '-'])
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect();
    if class.starts_with(|c: char| c.is_ascii_digit()) {
        class.insert(0, 'T');
    }
    class + "Tool"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_names_are_camel_case() {
        assert_eq!(class_name("my_tool"), "MyToolTool");
        assert_eq!(class_name("weather"), "WeatherTool");
        assert_eq!(class_name("3d_print"), "T3dPrintTool");
        assert_eq!(class_name("unit-convert"), "UnitConvertTool");
    }
}
