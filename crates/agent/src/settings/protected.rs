//! The paths that hold Riverse's own code, settings and data, which the
//! standard tools refuse whatever `allowed_dirs` says: writing any of them runs
//! code or changes what the tools may do, and reading the settings file hands
//! its secrets to the LLM.
//!
//! The list is computed here once and given to Python tools as the derived
//! `riverse` key of their config dict:
//!
//! ```yaml
//! riverse:
//!   project_dir: /home/me/project
//!   settings_file: /home/me/project/settings.yaml   # null when none was read
//!   tools_dir: /home/me/project/agent/tools
//!   protected_paths: [{path: /home/me/project/.git, reason: "..."}, ...]
//! ```

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::Settings;

/// One path the standard tools never read, write or list, with why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtectedPath {
    /// Absolute; the part of it that exists has its symlinks resolved.
    pub path: PathBuf,
    /// What the path holds, for the refusal message.
    pub reason: &'static str,
}

impl Settings {
    /// Riverse's own files: the settings file in use (and the project's
    /// `settings.yaml`, which a later run would read), the tools directory,
    /// the YAML agents' `agent/config`, `.riverse/` (database, tool
    /// environment), `.venv/` (a default interpreter), `.git/`, the embedded
    /// model and its cache.
    pub fn protected_paths(&self) -> Vec<ProtectedPath> {
        let project = &self.project_dir;
        let mut listed = vec![
            (
                project.join("settings.yaml"),
                "the settings file: its secrets never go to a tool, and changing it changes what tools may do",
            ),
            (
                self.tools_dir(),
                "the tools directory: a file written there is code Riverse runs",
            ),
            (
                project.join("agent/config"),
                "the YAML agents' directory: a file written there is a command Riverse runs",
            ),
            (
                project.join(".riverse"),
                "Riverse's data: the conversation database and the tool environment",
            ),
            (
                project.join(".venv"),
                "the project's Python environment: a file written there is code Riverse runs",
            ),
            (
                project.join(".git"),
                "the git repository: its config runs commands",
            ),
        ];
        // uv looks for its settings from the tools directory up, so what
        // these name (an index, a source) is where the tool environment's
        // packages would come from.
        for dir in [project.join("agent"), project.clone()] {
            for name in ["uv.toml", "pyproject.toml"] {
                listed.push((
                    dir.join(name),
                    "read by uv as it installs the tool environment: an index named there is where packages come from",
                ));
            }
        }
        if let Some(file) = &self.file {
            listed.insert(
                0,
                (
                    file.clone(),
                    "the settings file in use: its secrets never go to a tool, and changing it changes what tools may do",
                ),
            );
        }
        if let Some(model) = &self.embedded_model_path {
            listed.push((model.clone(), "the embedded model file"));
        }
        use riverse_embedded::location::{default_cache_dir, default_prompt_cache_dir};
        if let Some(prompts) = default_prompt_cache_dir() {
            listed.push((prompts, "the embedded model's prompt cache"));
        }
        if let Some(models) = default_cache_dir() {
            listed.push((models, "the embedded model cache"));
        }
        let mut protected: Vec<ProtectedPath> = Vec::new();
        for (path, reason) in listed {
            let path = resolved(&path);
            if !protected.iter().any(|known| known.path == path) {
                protected.push(ProtectedPath { path, reason });
            }
        }
        protected
    }

    /// The derived `riverse` key of the config dict tools receive.
    pub fn riverse_key(&self) -> Value {
        let protected: Vec<Value> = self
            .protected_paths()
            .iter()
            .map(|protected| json!({"path": protected.path, "reason": protected.reason}))
            .collect();
        json!({
            "project_dir": resolved(&self.project_dir),
            "settings_file": self.file.as_deref().map(resolved),
            "tools_dir": resolved(&self.tools_dir()),
            "protected_paths": protected,
        })
    }

    /// The config dict Python tools receive: the document, the keys Riverse
    /// derives from it, and `riverse`.
    pub fn tool_config(&self) -> Value {
        let mut config = crate::tool_config(&self.document, &|name| std::env::var(name).ok());
        if let Value::Object(map) = &mut config {
            map.insert("riverse".into(), self.riverse_key());
        }
        config
    }
}

/// `path` made absolute, with the symlinks of its longest existing part
/// resolved, so that it names what a tool would reach.
fn resolved(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut existing = absolute.as_path();
    let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            return rest.iter().rev().fold(real, |path, name| path.join(name));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name);
                existing = parent;
            }
            _ => return absolute,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn protected_paths_follow_the_settings_in_use() {
        let project = tempfile::tempdir().unwrap();
        let root = project.path().canonicalize().unwrap();
        let elsewhere = root.join("elsewhere.yaml");
        let settings = Settings::from_yaml(
            &root,
            Some(elsewhere.clone()),
            "tools: {dir: my/tools}\nembedded: {model_path: m.gguf}\n",
        )
        .unwrap();
        let paths: Vec<PathBuf> = settings
            .protected_paths()
            .into_iter()
            .map(|protected| protected.path)
            .collect();
        for expected in [
            elsewhere,
            root.join("settings.yaml"),
            root.join("my/tools"),
            root.join("agent/config"),
            root.join(".riverse"),
            root.join(".git"),
            root.join("m.gguf"),
        ] {
            assert!(paths.contains(&expected), "{expected:?} in {paths:?}");
        }
        assert!(!paths.contains(&root.join("agent/tools")), "{paths:?}");
        let key = settings.riverse_key();
        assert_eq!(key["tools_dir"], json!(root.join("my/tools")));
        assert_eq!(
            settings.tool_config()["riverse"]["protected_paths"][0]["path"],
            json!(root.join("elsewhere.yaml"))
        );
    }
}
