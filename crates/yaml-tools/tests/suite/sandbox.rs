//! Command agents under `tools.<name>.sandbox`: the program, and what it
//! starts, read and write only where the sandbox lets them.

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use riverse_process::sandbox::{Network, Sandbox, Unsupported};
use riverse_tool::{FailureKind, ToolResult};
use serde_json::json;

use super::support::{call, options, project, registry, write};

const AGENTS: &str = r#"
agents:
  - name: show
    type: command
    parameters: {path: "a file"}
    command:
      template: "cat {path}"
  - name: stamp
    type: command
    parameters: {path: "a file"}
    command:
      template: "sh -c 'echo stamped > \"$0\"' {path}"
"#;

fn sandbox(label: &str, read: Vec<PathBuf>, write: Vec<PathBuf>) -> Sandbox {
    Sandbox {
        label: label.to_owned(),
        read,
        write,
        network: Network::Off,
        memory_mb: None,
        cpu_seconds: None,
        processes: None,
        file_size_mb: None,
        unsupported: Unsupported::Refuse,
        calls: Vec::new(),
        sample: None,
    }
}

fn text(path: &Path) -> String {
    path.display().to_string()
}

#[tokio::test]
async fn a_sandboxed_command_reads_and_writes_only_where_it_may() {
    let project = project(AGENTS);
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.txt", "the secret\n");
    write(project.path(), "notes/today.txt", "notes\n");
    let notes = project.path().join("notes");
    let mut options = options(project.path(), "en");
    options.sandboxes.insert(
        "show".into(),
        sandbox("tools.show.sandbox", vec![notes.clone()], Vec::new()),
    );
    options.sandboxes.insert(
        "stamp".into(),
        sandbox("tools.stamp.sandbox", Vec::new(), vec![notes.clone()]),
    );
    let registry = registry(&options);

    let inside = notes.join("today.txt");
    assert_eq!(
        call(&registry, "show", json!({"path": text(&inside)})).await,
        ToolResult::ok("notes")
    );
    let secret = outside.path().join("secret.txt");
    let refused = call(&registry, "show", json!({"path": text(&secret)})).await;
    assert_eq!(refused.failure_kind(), Some(FailureKind::ToolError));
    assert!(
        refused.error.contains("Permission denied") && !refused.error.contains("the secret"),
        "{refused:?}"
    );

    let stamped = notes.join("stamp.txt");
    assert!(
        call(&registry, "stamp", json!({"path": text(&stamped)}))
            .await
            .success
    );
    assert_eq!(std::fs::read_to_string(&stamped).unwrap(), "stamped\n");
    let escaped = outside.path().join("escaped.txt");
    let refused = call(&registry, "stamp", json!({"path": text(&escaped)})).await;
    assert!(!refused.success, "{refused:?}");
    assert!(!escaped.exists());
}

#[tokio::test]
async fn a_command_sandbox_the_kernel_cant_enforce_is_a_failure_naming_it() {
    // A port rule needs Landlock ABI 4: refused below it, enforced from it.
    let project = project(AGENTS);
    let mut options = options(project.path(), "en");
    let mut strict = sandbox("tools.show.sandbox", Vec::new(), Vec::new());
    strict.network = Network::Ports(vec![443]);
    options.sandboxes.insert("show".into(), strict);
    let abi = riverse_process::sandbox::landlock_abi();
    let registry = registry(&options);
    let show = registry
        .entries()
        .iter()
        .find(|entry| entry.name() == Some("show"));
    let show = show.expect("show is listed");
    if abi >= 4 {
        assert!(registry.get("show").is_some(), "{:?}", show.error());
    } else {
        assert!(show.error().unwrap().starts_with("tools.show.sandbox: "));
    }
}
