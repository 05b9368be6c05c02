//! A directory that tests share, made once per machine.

use std::fs::File;
use std::path::Path;

/// Makes `dir` with `make` unless its marker file `marker_file` already holds
/// `marker`: the first test to need it makes it while holding a file lock
/// beside it, so parallel tests and test binaries wait for that one instead of
/// racing, and the marker is written once it is whole.
pub(crate) fn made_once(dir: &Path, marker_file: &str, marker: &str, make: impl FnOnce(&Path)) {
    let marker_path = dir.join(marker_file);
    let is_ready = || std::fs::read_to_string(&marker_path).is_ok_and(|held| held == marker);
    if is_ready() {
        return;
    }
    let parent = dir.parent().expect("the directory has a parent");
    std::fs::create_dir_all(parent)
        .unwrap_or_else(|err| panic!("create {}: {err}", parent.display()));
    let lock_path = dir.with_extension("lock");
    let lock = File::create(&lock_path)
        .unwrap_or_else(|err| panic!("create {}: {err}", lock_path.display()));
    lock.lock()
        .unwrap_or_else(|err| panic!("lock {}: {err}", lock_path.display()));
    // Another test may have made it while this one waited.
    if is_ready() {
        return;
    }
    make(dir);
    std::fs::write(&marker_path, marker)
        .unwrap_or_else(|err| panic!("write {}: {err}", marker_path.display()));
}
