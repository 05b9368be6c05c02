//! Regression tests for issue 41, finding 3: nothing a worker imports comes
//! from the project directory, where tools and the LLM can write.

use std::collections::BTreeMap;

use pretty_assertions::assert_eq;
use riverse_tool::Status;
use serde_json::json;

use super::support::{available, call, failed, options, project, registry, rows};

/// Modules named like installed distributions (`requests`, `six`, `yaml`),
/// standard ones and Python's start-up hooks.
const SHADOWS: [&str; 6] = [
    "requests",
    "six",
    "yaml",
    "json",
    "sitecustomize",
    "usercustomize",
];

#[tokio::test]
async fn modules_in_the_project_directory_are_never_imported_by_a_worker() {
    let project = project(&["imports_named.py", "_helper.py", "uses_helper.py"]);
    for module in SHADOWS.iter().chain(&["only_here"]) {
        std::fs::write(
            project.path().join(format!("{module}.py")),
            "open(__file__ + '.imported', 'w').close()\n\
             raise RuntimeError('a module of the project directory was imported')\n",
        )
        .unwrap();
    }
    let registry = registry(options(&project)).await;
    assert_eq!(
        rows(&registry),
        [
            available("echo", "echo.py"),
            available("imports_named", "imports_named.py"),
            available("uses_helper", "uses_helper.py"),
        ]
    );
    let modules = [&SHADOWS[..], &["only_here"]].concat().join(",");
    let result = call(&registry, "imports_named", json!({"modules": modules})).await;
    assert!(result.success, "{result:?}");
    let found: BTreeMap<String, String> = serde_json::from_str(&result.data).unwrap();
    assert_eq!(found["only_here"], "missing");
    for (module, file) in &found {
        assert!(
            !file.starts_with(project.path().to_str().unwrap()),
            "{module} was imported from the project directory: {file}"
        );
    }
    let marks: Vec<_> = std::fs::read_dir(project.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".imported"))
        .collect();
    assert_eq!(marks, Vec::<String>::new());
    // A tool's own helper, in the tools directory, still imports.
    let helped = call(&registry, "uses_helper", json!({"text": "x"})).await;
    assert!(helped.success, "{helped:?}");
}

#[tokio::test]
async fn a_tool_importing_a_module_of_the_project_directory_is_told_where_to_move_it() {
    let project = project(&[]);
    project.file("mylib.py", "VALUE = 1\n");
    project.tool(
        "uses_mylib.py",
        "from mylib import VALUE\n\nfrom agent.tools import BaseTool\n",
    );
    let registry = registry(options(&project)).await;
    assert_eq!(
        rows(&registry),
        [
            available("echo", "echo.py"),
            failed(
                None,
                Status::Error,
                "uses_mylib.py",
                "import failed: ModuleNotFoundError: No module named 'mylib' (uses_mylib.py:1)\n\
                 mylib.py is in the project directory, which is not on the tools' import path \
                 (tools and the LLM can write there): move it to agent/tools/_mylib.py and import \
                 it as agent.tools._mylib",
            ),
        ]
    );
}
