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
    for (path, contents) in files {
        let path = target.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("can't create {}", parent.display()))?;
        }
        std::fs::write(&path, contents)
            .with_context(|| format!("can't write {}", path.display()))?;
        eprintln!("created {}", path.display());
    }
    print(&format!(
        "Riverse project ready in {}. Next: riverse --dir {} tools",
        target.display(),
        target.display()
    ))?;
    Ok(Exit::Success)
}
