//! A skill's files with SHA-256 digests: what the MCP skills extension lists
//! for `skill://NAME/PATH` URIs, so that a client can check what it reads.

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::files::{FileError, MAX_TOTAL_BYTES, folder_files};
use crate::model::{Content, Skill};

/// One file of a skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillFile {
    /// Relative to the skill's folder, `/` between parts: `SKILL.md` first.
    pub path: String,
    /// `sha256:` and 64 lowercase hex digits of the file's bytes.
    pub digest: String,
    /// Bytes.
    pub size: u64,
}

/// `sha256:{hex}` of `bytes`, as the MCP skills extension writes digests.
pub fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let hex: String = hash.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

impl Skill {
    /// Every file of the skill with its digest and size, read now: a
    /// SKILL.md folder's files (links leading out left out), or a YAML
    /// skill's SKILL.md, made from its entry.
    pub fn manifest(&self) -> Result<Vec<SkillFile>, FileError> {
        let paths = match &self.content {
            Content::Folder(folder) => folder_files(folder)?,
            Content::Rendered(_) => vec!["SKILL.md".to_owned()],
        };
        let mut total = 0;
        paths
            .into_iter()
            .map(|path| {
                let bytes = self.read_file(&path)?;
                total += bytes.len() as u64;
                if total > MAX_TOTAL_BYTES {
                    return Err(FileError::TooLarge);
                }
                Ok(SkillFile {
                    digest: digest(&bytes),
                    size: bytes.len() as u64,
                    path,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_sha256_in_lowercase_hex() {
        assert_eq!(
            digest(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
