//! The sandbox's rules reach a worker in `initialize` (riverse-protocol's
//! `SandboxPolicy`), before it imports any tool file: a write refused at
//! import is named by the rule it broke, in the fork server and in a fresh
//! worker alike, and nothing of the policy is left in the tools' environment.

use riverse_process::sandbox::{Network, Sandbox, Unsupported};
use serde_json::json;

use super::support::{call, options, project, registry, rows};

#[tokio::test]
async fn a_write_refused_at_import_names_the_rule_it_broke() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("leak.txt");
    for fork in [true, false] {
        let project = project(&["reads_env.py"]);
        project.tool(
            "writes_at_import.py",
            &format!("open({:?}, 'w')\n", target.display().to_string()),
        );
        let mut options = options(&project);
        options.fork = fork;
        options.sandbox = Some(Sandbox {
            label: "python.sandbox".into(),
            read: vec![],
            write: vec![],
            network: Network::Off,
            memory_mb: None,
            cpu_seconds: None,
            processes: None,
            file_size_mb: None,
            unsupported: Unsupported::Refuse,
            calls: vec![],
            sample: None,
        });
        let registry = registry(options).await;
        let failure = rows(&registry)
            .into_iter()
            .find(|row| row.source.ends_with("writes_at_import.py"))
            .and_then(|row| row.error)
            .unwrap();
        let real = std::fs::canonicalize(outside.path())
            .unwrap()
            .join("leak.txt");
        let named = format!(
            "sandbox: writing {} is outside python.sandbox.write (import failed: PermissionError",
            real.display()
        );
        assert!(failure.starts_with(&named), "fork: {fork}: {failure}");
        assert!(
            failure.contains("to allow it, set python.sandbox.write: ["),
            "fork: {fork}: {failure}"
        );
        assert!(!target.exists(), "fork: {fork}");
        let env = call(&registry, "reads_env", json!({"name": "RIVERSE_SANDBOX"})).await;
        assert_eq!(env.data, "(unset)", "fork: {fork}");
    }
}
