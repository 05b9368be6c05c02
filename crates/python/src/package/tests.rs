use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use super::*;
use crate::resolve_interpreter;

fn python() -> PathBuf {
    resolve_interpreter(None, Path::new("/nonexistent"))
        .unwrap()
        .executable
}

#[test]
fn the_listed_files_are_the_package_folder() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/riverse_worker");
    let mut found: Vec<String> = fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".py"))
        .collect();
    found.sort();
    let listed: Vec<&str> = WORKER_FILES.iter().map(|(file, _)| *file).collect();
    assert_eq!(listed, found);
}

#[test]
fn the_bootstrap_imports_the_package_from_its_directory_and_caches_its_bytecode() {
    let dir = tempfile::tempdir().unwrap();
    // A stand-in package that reports what the real one's `boot` is given.
    let package = dir.path().join(PACKAGE);
    fs::create_dir(&package).unwrap();
    fs::write(
        package.join("__init__.py"),
        "import json, sys\n\
         def boot():\n    print(json.dumps([sys.argv, sys.path[0], '' in sys.path, __file__]))\n",
    )
    .unwrap();
    let output = Command::new(python())
        .args(["-c", BOOTSTRAP, LABEL, "/a/project"])
        .arg(dir.path())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let seen: Value = serde_json::from_slice(&output.stdout).unwrap();
    let init = package.join("__init__.py");
    assert_eq!(
        seen,
        json!([["-c", LABEL, "/a/project"], dir.path(), false, init])
    );
    let cached = fs::read_dir(package.join("__pycache__")).unwrap().count();
    assert_eq!(cached, 1);
}

#[test]
fn the_cached_package_is_the_embedded_one() {
    let dir = cached_package_parent().expect("a writable cache directory");
    for (file, text) in WORKER_FILES {
        let cached = fs::read_to_string(dir.join(PACKAGE).join(file)).unwrap();
        assert_eq!(&cached, text, "{file}");
    }
}

#[test]
fn writing_the_package_again_mends_a_file_that_changed_and_leaves_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let package = write_worker_package(dir.path()).unwrap();
    fs::write(package.join("server.py"), "broken").unwrap();
    fs::remove_file(package.join("wire.py")).unwrap();
    assert_eq!(write_worker_package(dir.path()).unwrap(), package);
    let mut names: Vec<String> = fs::read_dir(&package)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let mut listed: Vec<&str> = WORKER_FILES.iter().map(|(file, _)| *file).collect();
    listed.sort();
    assert_eq!(names, listed);
    for (file, text) in WORKER_FILES {
        assert_eq!(&fs::read_to_string(package.join(file)).unwrap(), text);
    }
}

/// Where nothing can be cached, the worker runs from the sources on its
/// command line, with the project directory off its import path and
/// `sys.argv` as `python -c` leaves it.
#[test]
fn a_worker_without_a_cache_serves_from_the_sources_on_its_command_line() {
    let project = tempfile::tempdir().unwrap();
    let tools = project.path().join("agent/tools");
    fs::create_dir_all(&tools).unwrap();
    fs::write(
        tools.join("where.py"),
        "import sys\nfrom agent.tools import BaseTool, ToolManifest, ToolResult\n\
         class Where(BaseTool):\n\
         \x20   def manifest(self):\n        return ToolManifest('where', 'where it runs')\n\
         \x20   def execute(self, params):\n        return ToolResult(True, repr(['' in sys.path, sys.argv]))\n",
    )
    .unwrap();
    let mut worker = Command::new(python())
        .args(uncached_worker_args(project.path()))
        .current_dir(project.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = worker.stdin.take().unwrap();
    let mut stdout = BufReader::new(worker.stdout.take().unwrap());
    let mut ask = |id: u32, method: &str, params: Value| -> Value {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(stdin, "{request}").unwrap();
        loop {
            let mut line = String::new();
            stdout.read_line(&mut line).unwrap();
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == json!(id) {
                return message["result"].clone();
            }
        }
    };
    let riverse = json!({"toolsDir": tools, "config": {}});
    let init = json!({"protocolVersion": "2025-06-18", "clientInfo": {"name": "t", "version": "0"},
        "capabilities": {"experimental": {"riverse": riverse}}});
    let initialized = ask(1, "initialize", init);
    assert_eq!(
        initialized["serverInfo"]["version"],
        riverse_protocol::WORKER_PROTOCOL_VERSION
    );
    let called = ask(2, "riverse/call", json!({"name": "where", "arguments": {}}));
    assert_eq!(called["data"], "[False, ['-c']]", "{called}");
    drop(stdin);
    assert!(worker.wait().unwrap().success());
}
