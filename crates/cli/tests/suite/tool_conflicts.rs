//! Two files naming one tool, under every combination of sandboxes: each
//! file is on a row of `riverse tools`, and the same file wins (issue 49).

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::command::{project, riverse};

/// The settings of each combination: no sandbox, `python.sandbox` only,
/// `tools.duplicate.sandbox` only, both.
const SANDBOXES: [(&str, &str); 4] = [
    ("no sandbox", ""),
    ("python.sandbox", "python:\n  sandbox: {read: [\".\"]}\n"),
    (
        "tools.duplicate.sandbox",
        "tools:\n  duplicate:\n    sandbox: {read: [\".\"]}\n",
    ),
    (
        "both",
        "python:\n  sandbox: {read: [\".\"]}\ntools:\n  duplicate:\n    sandbox: {network: false}\n",
    ),
];

#[test]
fn two_files_naming_one_tool_are_both_listed_and_the_first_wins_whatever_the_sandboxes() {
    let project = project(&["duplicate_a.py", "duplicate_b.py", "echo.py"]);
    for (case, settings) in SANDBOXES {
        project.settings(settings);
        let ran = riverse(&project, &["tools", "--json"]);
        ran.exits(0);
        let listed: Value = serde_json::from_str(&ran.stdout).unwrap();
        let rows: Vec<(&str, &str, &str)> = listed["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| {
                (
                    row["name"].as_str().unwrap_or_default(),
                    row["source"]["file"].as_str().unwrap_or_default(),
                    row["status"].as_str().unwrap_or_default(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                ("duplicate", "agent/tools/duplicate_a.py", "available"),
                ("duplicate", "agent/tools/duplicate_b.py", "conflict"),
                ("echo", "agent/tools/echo.py", "available"),
            ],
            "{case}: {ran:#?}"
        );

        let called = riverse(&project, &["call", "duplicate", "--json"]);
        let result: Value = serde_json::from_str(&called.stdout).unwrap();
        assert_eq!(
            (&result["success"], &result["data"]),
            (&json!(true), &json!("from duplicate_a.py")),
            "{case}: {called:#?}"
        );
    }
}
