//! What the tool files and `requirements.txt` declare they need.
//!
//! A tool file declares its packages in a PEP 723 inline metadata block, the
//! standard that uv and pipx read:
//!
//! ```python
//! # /// script
//! # dependencies = ["requests>=2.31"]
//! # ///
//! ```
//!
//! and `agent/tools/requirements.txt`, when there is one, is handed to the
//! installer as it is (`-r`), so every line the installer understands works.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::installer::InstallerChoice;

/// The file beside the tools that lists packages for all of them.
pub const REQUIREMENTS_FILE: &str = "requirements.txt";

/// One place that asks for packages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    /// The file, relative to the tools directory (`weather.py`,
    /// `requirements.txt`).
    pub file: String,
    pub asks: Asks,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Asks {
    /// A tool file's PEP 723 `dependencies`, each a PEP 508 requirement.
    Packages(Vec<String>),
    /// `requirements.txt`, read by the installer itself; its text is kept
    /// so that a change to it is a change of the declarations.
    RequirementsFile { path: PathBuf, text: String },
}

impl Declared {
    /// What it asks for, for messages: `requests>=2.31, six`.
    pub fn shown(&self) -> String {
        match &self.asks {
            Asks::Packages(packages) => packages.join(", "),
            Asks::RequirementsFile { .. } => format!("the packages of {}", self.file),
        }
    }
}

/// Everything the tools directory declares, in file-name order
/// (`requirements.txt` first), and the files whose declaration can't be used.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Declarations {
    pub declared: Vec<Declared>,
    /// `(file, why)`: a block that is not valid, or a dependency that is not a
    /// requirement. Such a file's tools are not loaded.
    pub invalid: Vec<(String, String)>,
}

impl Declarations {
    /// Reads the top-level tool files of `tools_dir` (the files a worker
    /// imports: `*.py`, not starting with `_`) and its `requirements.txt`.
    pub fn read(tools_dir: &Path) -> Self {
        let mut declarations = Declarations::default();
        let requirements = tools_dir.join(REQUIREMENTS_FILE);
        if let Ok(text) = std::fs::read_to_string(&requirements) {
            let asks_something = text
                .lines()
                .map(|line| line.split('#').next().unwrap_or("").trim())
                .any(|line| !line.is_empty());
            if asks_something {
                declarations.declared.push(Declared {
                    file: REQUIREMENTS_FILE.to_owned(),
                    asks: Asks::RequirementsFile {
                        path: requirements,
                        text,
                    },
                });
            }
        }
        for file in tool_files(tools_dir) {
            let Ok(source) = std::fs::read_to_string(tools_dir.join(&file)) else {
                continue; // the worker reports a file it can't read
            };
            match script_dependencies(&source) {
                Ok(None) => {}
                Ok(Some(packages)) if packages.is_empty() => {}
                Ok(Some(packages)) => declarations.declared.push(Declared {
                    file,
                    asks: Asks::Packages(packages),
                }),
                Err(why) => declarations.invalid.push((file, why)),
            }
        }
        declarations
    }

    /// A digest of what is declared, of the interpreter it is for (its path,
    /// and its size and time, which an upgrade in place changes) and of the
    /// installer asked for: the environment is synced again only when it
    /// changes.
    pub fn fingerprint(&self, interpreter: &Path, installer: InstallerChoice) -> String {
        let mut hash = Sha256::new();
        hash.update(b"riverse tool environment 1\0");
        hash.update(interpreter.as_os_str().as_encoded_bytes());
        if let Ok(meta) = std::fs::metadata(interpreter) {
            let modified = meta
                .modified()
                .ok()
                .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |since| since.as_nanos());
            hash.update(format!("\0{}\0{modified}", meta.len()).as_bytes());
        }
        hash.update(format!("\0{installer:?}").as_bytes());
        for declared in &self.declared {
            hash.update(b"\0file\0");
            hash.update(declared.file.as_bytes());
            match &declared.asks {
                Asks::Packages(packages) => {
                    for package in packages {
                        hash.update(b"\0");
                        hash.update(package.as_bytes());
                    }
                }
                Asks::RequirementsFile { text, .. } => hash.update(text.as_bytes()),
            }
        }
        hash.finalize()
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect()
    }
}

/// The files a worker imports as tools, sorted.
fn tool_files(tools_dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(tools_dir) else {
        return Vec::new();
    };
    let mut files: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_file()))
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| name.ends_with(".py") && !name.starts_with('_'))
        .collect();
    files.sort();
    files
}

/// The `dependencies` of a file's `# /// script` block: `None` without a
/// block, an error that names the line when the block can't be read.
pub fn script_dependencies(source: &str) -> Result<Option<Vec<String>>, String> {
    let Some(block) = script_block(source)? else {
        return Ok(None);
    };
    let metadata: ScriptMetadata = toml::from_str(&block.toml).map_err(|err| {
        format!(
            "the `# /// script` block at line {} can't be read: {}",
            block.line,
            err.message()
        )
    })?;
    let packages = metadata.dependencies.unwrap_or_default();
    for package in &packages {
        check_requirement(package).map_err(|why| {
            format!(
                "the `# /// script` block at line {}: dependency {package:?} {why}",
                block.line
            )
        })?;
    }
    Ok(Some(packages))
}

/// The fields of the block Riverse reads; the rest (`requires-python`,
/// `[tool.*]`) is the author's and other tools'.
#[derive(Deserialize)]
struct ScriptMetadata {
    dependencies: Option<Vec<String>>,
}

struct Block {
    /// The line of `# /// script`, from 1.
    line: usize,
    toml: String,
}

/// Finds the one `script` block, as PEP 723 defines it: from a line
/// `# /// script` through the last line `# ///` of the comment lines
/// (`#` alone or `# ` and text) that follow it.
fn script_block(source: &str) -> Result<Option<Block>, String> {
    let lines: Vec<&str> = source.lines().collect();
    let mut found: Option<Block> = None;
    let mut index = 0;
    while index < lines.len() {
        if lines[index].trim_end() != "# /// script" {
            index += 1;
            continue;
        }
        let start = index;
        let comments = lines[start + 1..]
            .iter()
            .take_while(|line| **line == "#" || line.starts_with("# "))
            .count();
        // PEP 723: a block that is never closed is no block.
        let Some(closing) = (start + 1..start + 1 + comments)
            .rev()
            .find(|at| lines[*at].trim_end() == "# ///")
        else {
            index += 1;
            continue;
        };
        if let Some(first) = &found {
            return Err(format!(
                "two `# /// script` blocks, at lines {} and {}: PEP 723 allows one",
                first.line,
                start + 1
            ));
        }
        let toml = lines[start + 1..closing]
            .iter()
            .map(|line| line.strip_prefix("# ").unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        found = Some(Block {
            line: start + 1,
            toml,
        });
        index = closing + 1;
    }
    Ok(found)
}

/// A dependency must be a PEP 508 requirement: it starts with a package name.
/// Anything else (an option such as `--index-url`, a bare path) would be read
/// by the installer as something other than a package to install.
fn check_requirement(requirement: &str) -> Result<(), &'static str> {
    if !requirement.starts_with(|first: char| first.is_ascii_alphanumeric()) {
        return Err("is not a requirement: it must start with a package name (PEP 508)");
    }
    if requirement
        .split_whitespace()
        .any(|word| word.starts_with('-'))
    {
        return Err("is not a requirement: it holds an installer option");
    }
    if requirement.chars().any(char::is_control) {
        return Err("holds a control character");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_block_yields_its_dependencies() {
        let source = "\"\"\"A tool.\"\"\"\n# /// script\n# requires-python = \">=3.9\"\n# dependencies = [\n#   \"requests>=2.31\",\n#   \"six\",\n# ]\n# ///\nimport requests\n";
        assert_eq!(
            script_dependencies(source),
            Ok(Some(vec!["requests>=2.31".to_owned(), "six".to_owned()]))
        );
    }

    #[test]
    fn no_block_and_an_empty_block_ask_for_nothing() {
        assert_eq!(script_dependencies("import os\n# ///\n"), Ok(None));
        assert_eq!(
            script_dependencies("# /// script\n# requires-python = \">=3.9\"\n# ///\n"),
            Ok(Some(Vec::new()))
        );
    }

    #[test]
    fn the_block_ends_at_its_closing_line_among_the_comments_that_follow() {
        let source = "# /// script\n# dependencies = [\"six\"]\n# ///\n# a comment, not the block's\nx = 1\n";
        assert_eq!(
            script_dependencies(source),
            Ok(Some(vec!["six".to_owned()]))
        );
    }

    #[test]
    fn a_broken_block_names_its_line_and_fault_and_an_unclosed_one_is_none() {
        let unclosed = "x = 1\n# /// script\n# dependencies = [\"six\"]\nimport six\n";
        // PEP 723: an unclosed block is ignored.
        assert_eq!(script_dependencies(unclosed), Ok(None));
        let twice = "# /// script\n# ///\nx = 1\n# /// script\n# ///\n";
        assert_eq!(
            script_dependencies(twice),
            Err("two `# /// script` blocks, at lines 1 and 4: PEP 723 allows one".to_owned())
        );
        let not_toml = "# /// script\n# dependencies = [six]\n# ///\n";
        let err = script_dependencies(not_toml).unwrap_err();
        assert!(
            err.starts_with("the `# /// script` block at line 1 can't be read"),
            "{err}"
        );
        let wrong_type = "# /// script\n# dependencies = \"six\"\n# ///\n";
        let err = script_dependencies(wrong_type).unwrap_err();
        assert!(err.contains("can't be read: invalid type"), "{err}");
        let hidden_option = "# /// script\n# dependencies = [\"six --hash=sha256:00\"]\n# ///\n";
        assert_eq!(
            script_dependencies(hidden_option),
            Err("the `# /// script` block at line 1: dependency \"six --hash=sha256:00\" is not a requirement: it holds an installer option".to_owned())
        );
        let option = "# /// script\n# dependencies = [\"--index-url=http://example.com\"]\n# ///\n";
        assert_eq!(
            script_dependencies(option),
            Err("the `# /// script` block at line 1: dependency \"--index-url=http://example.com\" is not a requirement: it must start with a package name (PEP 508)".to_owned())
        );
    }

    #[test]
    fn the_fingerprint_follows_the_declarations_and_the_interpreter() {
        let declared = |packages: &[&str]| Declarations {
            declared: vec![Declared {
                file: "a.py".into(),
                asks: Asks::Packages(packages.iter().map(|p| (*p).to_owned()).collect()),
            }],
            invalid: Vec::new(),
        };
        let python = Path::new("/usr/bin/python3");
        assert_eq!(
            declared(&["six"]).fingerprint(python, InstallerChoice::Auto),
            declared(&["six"]).fingerprint(python, InstallerChoice::Auto)
        );
        assert_ne!(
            declared(&["six"]).fingerprint(python, InstallerChoice::Auto),
            declared(&["six==1.17.0"]).fingerprint(python, InstallerChoice::Auto)
        );
        assert_ne!(
            declared(&["six"]).fingerprint(python, InstallerChoice::Auto),
            declared(&["six"]).fingerprint(Path::new("/usr/bin/python3.12"), InstallerChoice::Auto)
        );
    }
}
