//! What a new generation of tools changed, as `riverse chat` prints it.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use riverse_tool::{Entry, Registry, Status, ToolManifest, ToolSource};

/// The difference between two generations of tools.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolChanges {
    pub added: Vec<String>,
    /// Tools in both whose manifest or file changed.
    pub changed: Vec<String>,
    pub removed: Vec<String>,
    /// Failures the new generation has that the old one did not, each as
    /// `source: error` (a broken file names its file and line).
    pub failures: Vec<String>,
}

impl ToolChanges {
    /// Compares `old` with `new`; `touched` are the files (absolute) whose
    /// change caused the reload: a tool whose file was saved counts as
    /// changed, even when its manifest is the same. Tool files are named
    /// relative to `project_dir`.
    pub fn between(
        old: &Registry,
        new: &Registry,
        touched: &[PathBuf],
        project_dir: &Path,
    ) -> Self {
        let before = available(old);
        let after = available(new);
        let mut changes = ToolChanges::default();
        for (name, (manifest, source)) in &after {
            match before.get(name) {
                None => changes.added.push(name.clone()),
                Some((old_manifest, old_source)) => {
                    if old_manifest != manifest
                        || old_source != source
                        || from_file_in(source, touched, project_dir)
                    {
                        changes.changed.push(name.clone());
                    }
                }
            }
        }
        changes.removed = before
            .keys()
            .filter(|name| !after.contains_key(*name))
            .cloned()
            .collect();
        let old_failures: Vec<String> = failures(old).collect();
        changes.failures = failures(new)
            .filter(|failure| !old_failures.contains(failure))
            .collect();
        changes
    }

    /// Whether a tool was added, changed or removed (failures aside).
    pub fn has_tool_changes(&self) -> bool {
        !(self.added.is_empty() && self.changed.is_empty() && self.removed.is_empty())
    }
}

/// `+added ~changed -removed`, or `none` when no tool changed.
impl fmt::Display for ToolChanges {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let marked = self
            .added
            .iter()
            .map(|name| format!("+{name}"))
            .chain(self.changed.iter().map(|name| format!("~{name}")))
            .chain(self.removed.iter().map(|name| format!("-{name}")))
            .collect::<Vec<_>>();
        if marked.is_empty() {
            f.write_str("none")
        } else {
            f.write_str(&marked.join(" "))
        }
    }
}

fn available(registry: &Registry) -> BTreeMap<String, (ToolManifest, ToolSource)> {
    registry
        .entries()
        .iter()
        .filter_map(|entry| match entry {
            Entry::Available {
                manifest, source, ..
            } => Some((manifest.name.clone(), (manifest.clone(), source.clone()))),
            _ => None,
        })
        .collect()
}

fn failures(registry: &Registry) -> impl Iterator<Item = String> + '_ {
    registry.entries().iter().filter_map(|entry| {
        let failed = matches!(entry.status(), Status::Error | Status::Conflict);
        let error = entry.error().filter(|_| failed)?;
        Some(format!("{}: {error}", entry.source()))
    })
}

fn from_file_in(source: &ToolSource, touched: &[PathBuf], project_dir: &Path) -> bool {
    match source {
        ToolSource::Python { file } | ToolSource::Agent { file } => {
            let file = project_dir.join(file);
            touched.contains(&file)
        }
        _ => false,
    }
}
