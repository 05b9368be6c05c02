//! The images, audio and files a result carries, saved under the project's
//! `.riverse/out/`: a new folder for each call that carries any
//! (`.riverse/out/chart-3/image-1.png`), so nothing is ever overwritten, and
//! file names from [`Content::file_name`], so nothing lands outside it.

use std::fs;
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};

use riverse_tool::{Content, human_size};
use serde_json::{Map, Value, json};

use super::lines::printable;

/// `.riverse/out/` of a project.
#[derive(Debug, Clone)]
pub struct OutDir {
    root: PathBuf,
}

/// One block of a result, and what became of it.
#[derive(Debug, Clone)]
pub struct Saved {
    kind: &'static str,
    mime_type: Option<String>,
    uri: Option<String>,
    size: usize,
    outcome: Outcome,
}

#[derive(Debug, Clone)]
enum Outcome {
    Saved(PathBuf),
    /// A resource given by its URI only.
    NothingToSave,
    Failed(String),
}

impl OutDir {
    pub fn of(project_dir: &Path) -> Self {
        OutDir {
            root: project_dir.join(".riverse").join("out"),
        }
    }

    /// Saves each block of `content` that holds bytes, in a new folder for
    /// this call of `tool`.
    pub fn save(&self, tool: &str, content: &[Content]) -> Vec<Saved> {
        let mut folder: Option<io::Result<PathBuf>> = None;
        content
            .iter()
            .enumerate()
            .map(|(position, block)| {
                let outcome = match block.bytes() {
                    None if matches!(
                        block,
                        Content::Resource {
                            text: None,
                            blob: None,
                            ..
                        }
                    ) =>
                    {
                        Outcome::NothingToSave
                    }
                    None => Outcome::Failed("its data is not valid base64".into()),
                    Some(bytes) => {
                        let folder = folder.get_or_insert_with(|| self.new_folder(tool));
                        match folder {
                            Ok(folder) => write_new(folder, &block.file_name(position + 1), &bytes),
                            Err(err) => Outcome::Failed(format!(
                                "can't make a folder in {}: {err}",
                                self.root.display()
                            )),
                        }
                    }
                };
                Saved::of(block, outcome)
            })
            .collect()
    }

    /// `<tool>-<n>`, with the first `n` past those there are, made here
    /// (not found): two processes saving at once get two folders.
    fn new_folder(&self, tool: &str) -> io::Result<PathBuf> {
        fs::create_dir_all(&self.root)?;
        let stem = folder_stem(tool);
        let mut number = fs::read_dir(&self.root)?
            .filter_map(|entry| entry.ok())
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                name.strip_prefix(&format!("{stem}-"))?.parse::<u64>().ok()
            })
            .max()
            .unwrap_or(0);
        loop {
            number += 1;
            let folder = self.root.join(format!("{stem}-{number}"));
            match fs::create_dir(&folder) {
                Ok(()) => return Ok(folder),
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(err) => return Err(err),
            }
        }
    }
}

/// A tool's name as a folder's: letters, digits, `-` and `_`.
fn folder_stem(tool: &str) -> String {
    let stem: String = tool
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if stem.is_empty() { "tool".into() } else { stem }
}

/// Writes a file that must not exist yet, named by one plain component.
fn write_new(folder: &Path, name: &str, bytes: &[u8]) -> Outcome {
    let mut components = Path::new(name).components();
    if !matches!(
        (components.next(), components.next()),
        (Some(Component::Normal(_)), None)
    ) {
        return Outcome::Failed(format!("{name:?} is not a file name"));
    }
    let path = folder.join(name);
    let written = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .and_then(|mut file| file.write_all(bytes));
    match written {
        Ok(()) => Outcome::Saved(path),
        Err(err) => Outcome::Failed(format!("can't write {}: {err}", path.display())),
    }
}

impl Saved {
    fn of(block: &Content, outcome: Outcome) -> Self {
        Saved {
            kind: block.kind(),
            mime_type: block.mime_type().map(str::to_owned),
            uri: match block {
                Content::Resource { uri, .. } => Some(uri.clone()),
                _ => None,
            },
            size: block.size(),
            outcome,
        }
    }

    /// The line under the tool's: `    saved image image/png 12.3 KB: .riverse/out/chart-1/image-1.png`.
    pub fn line(&self) -> String {
        let mut what = self.kind.to_owned();
        for part in [&self.uri, &self.mime_type].into_iter().flatten() {
            what.push(' ');
            what.push_str(part);
        }
        if self.size > 0 {
            what.push(' ');
            what.push_str(&human_size(self.size));
        }
        // The URI and the type are the tool's.
        let what = printable(&what);
        match &self.outcome {
            Outcome::Saved(path) => format!("    saved {what}: {}", shown(path)),
            Outcome::NothingToSave => format!("    {what}"),
            Outcome::Failed(why) => format!("    {what} not saved: {why}"),
        }
    }

    /// The block in `--json`: what it is, and its `path` once saved (its
    /// bytes stay in the file).
    pub fn json(&self) -> Value {
        let mut block = Map::new();
        block.insert("type".into(), json!(self.kind));
        if let Some(uri) = &self.uri {
            block.insert("uri".into(), json!(uri));
        }
        if let Some(mime_type) = &self.mime_type {
            block.insert("mime_type".into(), json!(mime_type));
        }
        block.insert("bytes".into(), json!(self.size));
        match &self.outcome {
            Outcome::Saved(path) => {
                block.insert("path".into(), json!(path));
            }
            Outcome::NothingToSave => {}
            Outcome::Failed(why) => {
                block.insert("error".into(), json!(why));
            }
        }
        Value::Object(block)
    }
}

/// A result or a call record in `--json`: its `content` (base64, possibly
/// megabytes) replaced by `saved`, where each block went.
pub fn with_saved(mut value: Value, saved: &[Saved]) -> Value {
    if let Value::Object(object) = &mut value {
        object.remove("content");
        if !saved.is_empty() {
            object.insert("saved".into(), saved.iter().map(Saved::json).collect());
        }
    }
    value
}

/// A path as a person reads it: from the current directory when it is
/// below it.
fn shown(path: &Path) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|here| path.strip_prefix(here).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| path.to_path_buf())
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn each_call_gets_a_folder_of_its_own() {
        let project = tempfile::tempdir().unwrap();
        let out = OutDir::of(project.path());
        let image = Content::image(b"\x89PNG", "image/png");
        let first = out.save("chart", std::slice::from_ref(&image));
        let second = out.save("chart", &[image]);
        let root = project.path().join(".riverse/out");
        assert_eq!(
            first[0].json()["path"],
            json!(root.join("chart-1/image-1.png"))
        );
        assert_eq!(
            second[0].json()["path"],
            json!(root.join("chart-2/image-1.png"))
        );
        assert_eq!(
            fs::read(root.join("chart-2/image-1.png")).unwrap(),
            b"\x89PNG"
        );
    }

    #[test]
    fn a_resource_without_data_is_named_not_saved() {
        let project = tempfile::tempdir().unwrap();
        let link = Content::Resource {
            uri: "https://example.com/r.pdf".into(),
            text: None,
            blob: None,
            mime_type: None,
        };
        let saved = OutDir::of(project.path()).save("../../evil tool", &[link]);
        assert_eq!(saved[0].line(), "    resource https://example.com/r.pdf");
        assert!(
            !project.path().join(".riverse").exists(),
            "no folder for nothing"
        );
        assert_eq!(folder_stem("../../evil tool"), "______evil_tool");
    }
}
