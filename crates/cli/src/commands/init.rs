//! `riverse init [DIR] [--tools standard]`: a settings file and example tools
//! to start from, and optionally the standard tool set.

use std::path::Path;

use anyhow::Context;

use crate::cli::ToolSet;
use crate::output::{Exit, print, usage};

/// Each file `init` writes, relative to the project, and its contents.
const FILES: &[(&str, &str)] = &[
    (
        "settings.yaml",
        include_str!("../../templates/settings.yaml"),
    ),
    (
        "agent/tools/weather.py",
        include_str!("../../templates/weather.py"),
    ),
    (
        "agent/tools/clock.py",
        include_str!("../../templates/clock.py"),
    ),
    (
        "agent/tools/units.py",
        include_str!("../../templates/units.py"),
    ),
];

/// `--tools standard`: Riverse's file and shell tools, with the same names and
/// parameters, each path confined to `allowed_dirs` by `_paths.py`.
const STANDARD_FILES: &[(&str, &str)] = &[
    (
        "agent/tools/_paths.py",
        include_str!("../../templates/standard/_paths.py"),
    ),
    (
        "agent/tools/file_read.py",
        include_str!("../../templates/standard/file_read.py"),
    ),
    (
        "agent/tools/file_list.py",
        include_str!("../../templates/standard/file_list.py"),
    ),
    (
        "agent/tools/file_write.py",
        include_str!("../../templates/standard/file_write.py"),
    ),
    (
        "agent/tools/grep.py",
        include_str!("../../templates/standard/grep.py"),
    ),
    (
        "agent/tools/shell_exec.py",
        include_str!("../../templates/standard/shell_exec.py"),
    ),
];

/// The line of the settings template that shows how to turn shell_exec on.
const SHELL_EXEC_EXAMPLE: &str =
    "  # shell_exec: {enabled: true, whitelist: [\"ls\", \"cat\", \"git status\"], timeout: 30}\n";

/// What `--tools standard` writes in its place: the tools that change
/// things ask first.
const STANDARD_SETTINGS: &str = concat!(
    "  # A person says yes to each write; the sandbox (python.sandbox, with what\n",
    "  # a tool's own changes) lets file_write write the project, whose protected\n",
    "  # paths it refuses itself. Widen a tool's allowed_dirs, widen its sandbox.\n",
    "  file_write: {approval: ask, sandbox: {write: [\".\"]}}\n",
    "  # shell_exec is off until enabled; each command it runs then asks first:\n",
    "  shell_exec: {approval: ask, sandbox: {network: false}}  # {enabled: true, whitelist: [ls, cat, \"git status\"], timeout: 30}\n",
);

/// The settings file for a project with `tools`.
fn settings_text(tools: Option<ToolSet>) -> String {
    let template = FILES[0].1;
    match tools {
        Some(ToolSet::Standard) => template.replacen(SHELL_EXEC_EXAMPLE, STANDARD_SETTINGS, 1),
        None => template.to_owned(),
    }
}

pub fn run(target: &Path, force: bool, tools: Option<ToolSet>) -> anyhow::Result<Exit> {
    let files: Vec<&(&str, &str)> = match tools {
        Some(ToolSet::Standard) => FILES.iter().chain(STANDARD_FILES).collect(),
        None => FILES.iter().collect(),
    };
    if !force {
        let existing: Vec<&str> = files
            .iter()
            .map(|(path, _)| *path)
            .filter(|path| target.join(path).exists())
            .collect();
        if !existing.is_empty() {
            return Err(usage(format!(
                "{} already has {}; use --force to overwrite",
                target.display(),
                existing.join(", ")
            )));
        }
    }
    let settings = settings_text(tools);
    for (path, contents) in files {
        let contents = if *path == "settings.yaml" {
            settings.as_str()
        } else {
            contents
        };
        let path = target.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("can't create {}", parent.display()))?;
        }
        std::fs::write(&path, contents)
            .with_context(|| format!("can't write {}", path.display()))?;
        // On stdout with the line that follows, so that no reader of the two
        // streams can show the project ready before what it holds.
        print(&format!("created {}", path.display()))?;
    }
    print(&format!(
        "Riverse project ready in {}. Next: riverse --dir {} tools",
        target.display(),
        target.display()
    ))?;
    Ok(Exit::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standard_tools_that_change_things_ask_first() {
        assert_eq!(FILES[0].0, "settings.yaml");
        assert!(FILES[0].1.contains(SHELL_EXEC_EXAMPLE));
        let standard = settings_text(Some(ToolSet::Standard));
        assert!(standard.contains(STANDARD_SETTINGS));
        assert!(!standard.contains(SHELL_EXEC_EXAMPLE));
        assert!(!settings_text(None).contains("approval: ask}"));
    }
}
