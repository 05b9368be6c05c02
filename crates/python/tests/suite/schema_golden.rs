//! The worker's `tools/list` rendering (it answers it itself when run as a
//! standalone MCP server) against the golden file riverse-tool's Rust
//! rendering is held to: see crates/tool/tests/schema_golden.rs.

use std::process::Command;

use pretty_assertions::assert_eq;
use riverse_python::{resolve_interpreter, write_worker_package};
use serde_json::Value;

const MANIFESTS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tool/tests/schema/manifests.json"
);
const GOLDEN: &str = include_str!("../../../tool/tests/schema/golden.json");

/// Each manifest through the worker's own `ToolManifest`, `manifest_dict` and
/// `listed_tool`, as a discovered tool is listed.
const RENDER: &str = r#"
import json, sys
sys.path.insert(0, sys.argv[1])
from riverse_worker.contract import ToolManifest
from riverse_worker.manifest import manifest_dict
from riverse_worker.mcp_shapes import listed_tool
with open(sys.argv[2], encoding="utf-8") as file:
    cases = json.load(file)
shown = {}
for case in cases:
    listed = listed_tool(manifest_dict(ToolManifest(**case)))
    shown[listed["name"]] = {"description": listed["description"], "inputSchema": listed["inputSchema"]}
print(json.dumps(shown))
"#;

#[test]
fn the_worker_renders_manifests_as_the_golden_file_says() {
    let dir = tempfile::tempdir().unwrap();
    write_worker_package(dir.path()).unwrap();
    let python = resolve_interpreter(None, dir.path()).unwrap().executable;
    let output = Command::new(python)
        .arg("-c")
        .arg(RENDER)
        .arg(dir.path())
        .arg(MANIFESTS)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let shown: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(GOLDEN, serde_json::to_string_pretty(&shown).unwrap() + "\n");
}
