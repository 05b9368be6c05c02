//! A SKILL.md skill's files, read without leaving its folder.
//!
//! A path is refused before it is opened when it is absolute or climbs with
//! `..`; what it resolves to (every symlink followed) must still be inside
//! the folder, so a link that leads out is refused too.

use std::io::Read;
use std::os::fd::AsRawFd;
use std::path::{Component, Path, PathBuf};

use crate::model::{Content, Skill};

/// The MCP skills extension's limits: every host reads skills this large.
pub(crate) const MAX_FILES: usize = 512;
pub(crate) const MAX_TOTAL_BYTES: u64 = 16 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FileError {
    #[error("skill {skill:?} has no folder: it holds only its SKILL.md")]
    NoFolder { skill: String },
    #[error("{path:?} is not a path inside the skill's folder: no absolute paths, no ..")]
    OutsidePath { path: String },
    #[error("{path:?} leads out of the skill's folder")]
    LeadsOut { path: String },
    #[error("{path:?} is not a file of the skill")]
    NotFound { path: String },
    #[error("can't read {path:?}: {cause}")]
    Unreadable { path: String, cause: String },
    #[error("the skill's files are over the limit: {MAX_FILES} files, 16 MiB in all")]
    TooLarge,
}

impl Skill {
    /// The bytes of `relative` in the skill's folder (`SKILL.md`,
    /// `references/guide.md`); a YAML skill has only its `SKILL.md`.
    pub fn read_file(&self, relative: &str) -> Result<Vec<u8>, FileError> {
        let folder = match &self.content {
            Content::Folder(folder) => folder,
            Content::Rendered(text) if relative == "SKILL.md" => {
                return Ok(text.clone().into_bytes());
            }
            Content::Rendered(_) => {
                return Err(FileError::NoFolder {
                    skill: self.name.clone(),
                });
            }
        };
        let path = confined(folder, relative)?;
        let root = folder.canonicalize().map_err(|_| FileError::NotFound {
            path: relative.to_owned(),
        })?;
        read_bounded(&root, &path, relative)
    }
}

/// `folder/relative` resolved, when it stays inside `folder`.
fn confined(folder: &Path, relative: &str) -> Result<PathBuf, FileError> {
    let outside = || FileError::OutsidePath {
        path: relative.to_owned(),
    };
    let path = Path::new(relative);
    if relative.is_empty()
        || !path
            .components()
            .all(|part| matches!(part, Component::Normal(_) | Component::CurDir))
    {
        return Err(outside());
    }
    let not_found = |_| FileError::NotFound {
        path: relative.to_owned(),
    };
    let root = folder.canonicalize().map_err(not_found)?;
    let resolved = folder.join(path).canonicalize().map_err(not_found)?;
    if !resolved.starts_with(&root) {
        return Err(FileError::LeadsOut {
            path: relative.to_owned(),
        });
    }
    if !resolved.is_file() {
        return Err(FileError::NotFound {
            path: relative.to_owned(),
        });
    }
    Ok(resolved)
}

/// Reads `path` (resolved inside `root`) at most [`MAX_TOTAL_BYTES`]. What
/// was opened is checked again by its descriptor: a link put in place of a
/// part of the path after it was resolved does not lead out of `root`.
fn read_bounded(root: &Path, path: &Path, shown: &str) -> Result<Vec<u8>, FileError> {
    let unreadable = |err: std::io::Error| FileError::Unreadable {
        path: shown.to_owned(),
        cause: err.to_string(),
    };
    let file = std::fs::File::open(path).map_err(unreadable)?;
    let opened =
        std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).map_err(unreadable)?;
    if !opened.starts_with(root) {
        return Err(FileError::LeadsOut {
            path: shown.to_owned(),
        });
    }
    let mut bytes = Vec::new();
    file.take(MAX_TOTAL_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > MAX_TOTAL_BYTES {
        return Err(FileError::TooLarge);
    }
    Ok(bytes)
}

/// Every file in `folder`, relative and with `/` between parts, in name
/// order, `SKILL.md` first. Links are followed while they stay inside; a
/// folder reached through a link is not entered (it could loop).
pub(crate) fn folder_files(folder: &Path) -> Result<Vec<String>, FileError> {
    let root = folder.canonicalize().map_err(|err| FileError::Unreadable {
        path: folder.display().to_string(),
        cause: err.to_string(),
    })?;
    let mut files = Vec::new();
    walk(&root, &root, "", &mut files)?;
    files.sort_by(|a, b| (a != "SKILL.md", a).cmp(&(b != "SKILL.md", b)));
    Ok(files)
}

fn walk(root: &Path, dir: &Path, prefix: &str, files: &mut Vec<String>) -> Result<(), FileError> {
    let entries = std::fs::read_dir(dir).map_err(|err| FileError::Unreadable {
        path: prefix.to_owned(),
        cause: err.to_string(),
    })?;
    for entry in entries.filter_map(Result::ok) {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let relative = match prefix {
            "" => name,
            _ => format!("{prefix}/{name}"),
        };
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            walk(root, &entry.path(), &relative, files)?;
        } else if kind.is_file()
            || (kind.is_symlink()
                && entry
                    .path()
                    .canonicalize()
                    .is_ok_and(|target| target.starts_with(root) && target.is_file()))
        {
            files.push(relative);
        }
        if files.len() > MAX_FILES {
            return Err(FileError::TooLarge);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path that resolved inside the folder but opens a file outside it
    /// (a part swapped for a link in between) is refused by what was opened.
    #[test]
    fn a_file_opened_outside_the_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("skill");
        std::fs::create_dir(&root).unwrap();
        std::fs::write(root.join("notes.md"), "inside").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "outside").unwrap();
        let root = root.canonicalize().unwrap();
        let inside = read_bounded(&root, &root.join("notes.md"), "notes.md").unwrap();
        assert_eq!(inside, b"inside");
        let moved = dir.path().join("skill/link.md");
        std::os::unix::fs::symlink(dir.path().join("secret.txt"), &moved).unwrap();
        let refused = read_bounded(&root, &moved, "link.md").unwrap_err();
        assert!(matches!(refused, FileError::LeadsOut { .. }), "{refused:?}");
    }
}
