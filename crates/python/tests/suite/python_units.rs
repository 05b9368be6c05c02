//! The worker package's own unit tests (stdlib `unittest`, in
//! `python/tests/`), run against the package as the binary embeds it.
//! By hand: `cd crates/python/python && python3 -m unittest discover -s tests`.

use std::path::Path;
use std::process::Command;

use riverse_python::{resolve_interpreter, write_worker_package};

#[test]
fn the_worker_package_passes_its_python_unit_tests() {
    let dir = tempfile::tempdir().unwrap();
    write_worker_package(dir.path()).unwrap();
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/tests");
    let python = resolve_interpreter(None, dir.path()).unwrap().executable;
    let output = Command::new(python)
        .args(["-m", "unittest", "discover", "-v", "-s"])
        .arg(&tests)
        .current_dir(&tests)
        .env("PYTHONPATH", dir.path())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{report}");
    // Every test file was found and run: a file that failed to import would
    // fail above, one that was not found would be missing here.
    for entry in std::fs::read_dir(&tests).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if let Some(module) = name
            .strip_prefix("test_")
            .and_then(|n| n.strip_suffix(".py"))
        {
            assert!(
                report.contains(&format!("(test_{module}.")),
                "test_{module}.py did not run:\n{report}"
            );
        }
    }
}
