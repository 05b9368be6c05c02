//! Every manifest of `schema/manifests.json` as a client is shown it, against
//! `schema/golden.json`. The Python worker, which answers MCP `tools/list`
//! itself in standalone mode, is held to the same file by riverse-python's
//! `schema_golden` test.
//!
//! `RIVERSE_BLESS=1 cargo test -p riverse-tool --test schema_golden` rewrites
//! the golden file from what Rust renders now.

use std::path::Path;

use pretty_assertions::assert_eq;
use riverse_tool::{ToolManifest, described, input_schema};
use serde_json::{Map, Value, json};

#[test]
fn manifests_render_as_the_golden_file_says() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/schema");
    let manifests: Vec<ToolManifest> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifests.json")).unwrap())
            .unwrap();
    let rendered: Map<String, Value> = manifests
        .iter()
        .map(|manifest| {
            let shown =
                json!({"description": described(manifest), "inputSchema": input_schema(manifest)});
            (manifest.name.clone(), shown)
        })
        .collect();
    let rendered = serde_json::to_string_pretty(&rendered).unwrap() + "\n";
    let golden = dir.join("golden.json");
    if std::env::var_os("RIVERSE_BLESS").is_some_and(|value| value == "1") {
        std::fs::write(&golden, &rendered).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&golden).unwrap_or_default(),
        rendered
    );
}
