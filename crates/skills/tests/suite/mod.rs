mod files;
mod loading;
mod matching;
mod steps;

use std::path::{Path, PathBuf};

use riverse_skills::{SkillSet, SkillsOptions, load};

/// A project with an `agent/skills/` directory, removed on drop.
pub struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("agent/skills")).unwrap();
        Project { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn skills_dir(&self) -> PathBuf {
        self.path().join("agent/skills")
    }

    /// Writes `agent/skills/<relative>`, creating its folders.
    pub fn file(&self, relative: &str, contents: &str) -> &Self {
        let path = self.skills_dir().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, contents).unwrap();
        self
    }

    /// Copies `tests/fixtures/riverse/<name>` into `agent/skills/`.
    pub fn fixture(&self, name: &str) -> &Self {
        let source = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/riverse")
            .join(name);
        self.file(name, &std::fs::read_to_string(source).unwrap())
    }

    /// Every fixture: Riverse's own skill files.
    pub fn riverse_files(&self) -> &Self {
        for name in [
            "explain_code.yaml",
            "outsource.yaml",
            "weekly_summary.yaml",
            "skills_en.yaml",
            "skills_ja.yaml",
            "skills_zh.yaml",
        ] {
            self.fixture(name);
        }
        self
    }

    pub fn options(&self, language: &str) -> SkillsOptions {
        SkillsOptions {
            enabled: true,
            dir: self.skills_dir(),
            project_dir: self.path().to_owned(),
            language: language.to_owned(),
        }
    }

    pub fn load(&self, language: &str) -> SkillSet {
        load(&self.options(language))
    }
}

/// (name, status, source file) of every entry, for whole comparisons.
pub fn summary(set: &SkillSet) -> Vec<(String, &'static str, String)> {
    set.entries()
        .iter()
        .map(|entry| {
            let mut file = entry.source.file.display().to_string();
            if let Some(index) = entry.source.index {
                file.push_str(&format!(" skills[{index}]"));
            }
            (
                entry.name.clone().unwrap_or_else(|| "-".into()),
                entry.status.as_str(),
                file,
            )
        })
        .collect()
}
