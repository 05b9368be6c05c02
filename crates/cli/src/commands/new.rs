//! `riverse new NAME`: a commented tool file to start from, and its eval cases.

use std::path::Path;

use anyhow::Context;
use riverse_agent::Settings;
use riverse_tool::is_valid_name;

use crate::output::{Exit, print, usage};

const TOOL: &str = include_str!("../../templates/new/tool.py");
const CASES: &str = include_str!("../../templates/new/eval.yaml");

pub fn run(settings: &Settings, name: &str) -> anyhow::Result<Exit> {
    if !is_valid_name(name) || name.starts_with('_') || name.contains('-') {
        return Err(usage(format!(
            "{name:?} can't name a tool file: use letters, digits and _ (not first), as in my_tool"
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
    write(
        &tool,
        &TOOL
            .replace("__CLASS__", &class_name(name))
            .replace("__NAME__", name),
    )?;
    write(&cases, &CASES.replace("__NAME__", name))?;
    let project = settings.project_dir.display();
    print(&format!(
        "Next:\n  edit {}\n  riverse --dir {project} call {name} text=hello times=2\n  riverse --dir {project} eval --tool {name}",
        tool.display()
    ))?;
    Ok(Exit::Success)
}

fn write(path: &Path, contents: &str) -> anyhow::Result<()> {
    std::fs::write(path, contents).with_context(|| format!("can't write {}", path.display()))?;
    eprintln!("created {}", path.display());
    Ok(())
}

/// `my_tool` becomes `MyToolTool`.
fn class_name(name: &str) -> String {
    let mut class: String = name
        .split('_')
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
    }
}
