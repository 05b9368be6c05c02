//! `riverse init [DIR]`: a settings file and example tools to start from.

use std::path::Path;

use anyhow::Context;

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

pub fn run(target: &Path, force: bool) -> anyhow::Result<Exit> {
    if !force {
        let existing: Vec<&str> = FILES
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
    for (path, contents) in FILES {
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
