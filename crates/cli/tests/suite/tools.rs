//! `riverse tools [--json]`.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use riverse_test_support::Project;

use super::command::{self, project, riverse};

#[test]
fn tools_json_lists_every_tool_and_every_failure_whole() {
    let project = project(&[
        "echo.py",
        "japanese.py",
        "syntax_error.py",
        "unavailable.py",
        "duplicate_a.py",
        "duplicate_b.py",
    ]);
    let ran = riverse(&project, &["tools", "--json"]);
    ran.exits(0);
    let listed: Value = serde_json::from_str(&ran.stdout).unwrap();
    let python = |file: &str| json!({"kind": "python", "file": format!("agent/tools/{file}")});
    assert_eq!(
        listed,
        json!({"tools": [
            {
                "name": "duplicate",
                "description": "the first duplicate",
                "parameters": {},
                "examples": [],
                "parameter_types": {},
                "source": python("duplicate_a.py"),
                "status": "available",
                "error": null,
                "warnings": [],
                "approval": "auto",
            },
            {
                "name": "duplicate",
                "description": "the second duplicate",
                "parameters": {},
                "examples": [],
                "parameter_types": {},
                "source": python("duplicate_b.py"),
                "status": "conflict",
                "error": "name \"duplicate\" is already taken by agent/tools/duplicate_a.py",
                "warnings": [],
                "approval": "auto",
            },
            {
                "name": "echo",
                "description": "Repeat the given text",
                "parameters": {"text": "What to repeat"},
                "examples": ["Say hello"],
                "parameter_types": {},
                "source": python("echo.py"),
                "status": "available",
                "error": null,
                "warnings": [],
                "approval": "auto",
            },
            {
                "name": "aisatsu",
                "description": "日本語で挨拶します",
                "parameters": {"namae": "挨拶する相手の名前"},
                "examples": ["田中さんに挨拶して", "こんにちはと言って"],
                "parameter_types": {},
                "source": python("japanese.py"),
                "status": "available",
                "error": null,
                "warnings": [],
                "approval": "auto",
            },
            {
                "name": null,
                "description": null,
                "parameters": {},
                "examples": [],
                "parameter_types": {},
                "source": python("syntax_error.py"),
                "status": "error",
                "error": "syntax error: invalid syntax (syntax_error.py:4)",
                "warnings": [],
                "approval": null,
            },
            {
                "name": "unavailable",
                "description": "never available",
                "parameters": {},
                "examples": [],
                "parameter_types": {},
                "source": python("unavailable.py"),
                "status": "unavailable",
                "error": "is_available() returned False",
                "warnings": [],
                "approval": "auto",
            },
        ]})
    );
}

#[test]
fn tools_json_keeps_parameter_types() {
    let project = project(&["typed.py"]);
    let ran = riverse(&project, &["tools", "--json"]);
    let listed: Value = serde_json::from_str(&ran.exits(0).stdout).unwrap();
    assert_eq!(
        listed["tools"][0]["parameter_types"],
        json!({"count": "int", "ratio": "float", "flag": "bool"})
    );
}

#[test]
fn the_table_shows_each_error_under_its_tool() {
    let project = project(&[
        "echo.py",
        "missing_module.py",
        "typed.py",
        "unavailable.py",
        "invalid_name.py",
    ]);
    let ran = riverse(&project, &["tools"]);
    assert_eq!(
        ran.exits(0).stdout,
        "\
NAME         STATUS       SOURCE                         DESCRIPTION
echo         available    agent/tools/echo.py            Repeat the given text
               text (string): What to repeat
look up!     error        agent/tools/invalid_name.py    has a space and a bang
               └ invalid tool name \"look up!\": names must match ^[A-Za-z0-9_-]{1,64}$
-            error        agent/tools/missing_module.py
               └ import failed: ModuleNotFoundError: No module named 'riverse_missing_module' (missing_module.py:3)
                 no installed package provides 'riverse_missing_module' (on PyPI its package is most often named so too): declare it at the top of missing_module.py, and Riverse installs it:
                 # /// script
                 # dependencies = [\"riverse_missing_module\"]
                 # ///
typed        available    agent/tools/typed.py           reports its parameters' types
               count (integer): an integer
               ratio (number): a number
               flag (boolean): a switch
               label (string): some text
unavailable  unavailable  agent/tools/unavailable.py     never available
               └ is_available() returned False

2 of 5 available
"
    );
}

#[test]
fn an_empty_project_says_where_it_looked() {
    let project = project(&[]);
    let ran = riverse(&project, &["tools"]);
    let tools_dir = project.path().join("agent/tools");
    assert_eq!(
        ran.exits(0).stdout,
        format!("no tools in {}\n", tools_dir.display())
    );
}

#[test]
fn tools_enabled_false_turns_every_drop_in_tool_off() {
    let project = project(&["echo.py"]);
    project.settings("tools:\n  enabled: false\n");
    assert_eq!(
        riverse(&project, &["tools"]).exits(0).stdout,
        "no tools: tools.enabled is false\n"
    );
    let ran = riverse(&project, &["call", "echo", "text=hi"]);
    assert_eq!(
        ran.exits(2).stderr,
        "riverse: unknown tool \"echo\"; drop-in tools are off (tools.enabled: false)\n"
    );
}

#[test]
fn enabled_false_for_one_tool_marks_it_unavailable() {
    let project = project(&["echo.py", "two_tools.py"]);
    project.settings("tools:\n  echo: {enabled: false}\n");
    let listed: Value =
        serde_json::from_str(&riverse(&project, &["tools", "--json"]).exits(0).stdout).unwrap();
    let statuses: Vec<(&str, &str, &Value)> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| {
            (
                tool["name"].as_str().unwrap(),
                tool["status"].as_str().unwrap(),
                &tool["error"],
            )
        })
        .collect();
    assert_eq!(
        statuses,
        [
            (
                "echo",
                "unavailable",
                &json!("disabled by tools.echo.enabled: false")
            ),
            ("upper", "available", &Value::Null),
            ("lower", "available", &Value::Null),
        ]
    );
    let ran = riverse(&project, &["call", "echo", "text=hi"]);
    assert_eq!(
        ran.exits(2).stderr,
        "riverse: tool \"echo\" is not available: disabled by tools.echo.enabled: false\n"
    );
}

#[test]
fn without_a_usable_python_tools_lists_one_clear_failure_and_succeeds() {
    let project = project(&["echo.py"]);
    project.settings("python:\n  interpreter: /nonexistent/python3\n");
    let ran = riverse(&project, &["tools", "--json"]);
    let listed: Value = serde_json::from_str(&ran.exits(0).stdout).unwrap();
    assert_eq!(
        listed,
        json!({"tools": [{
            "name": null,
            "description": null,
            "parameters": {},
            "examples": [],
            "parameter_types": {},
            "source": {"kind": "python_host", "interpreter": "/nonexistent/python3"},
            "status": "error",
            "error": "can't find a Python interpreter (tried /nonexistent/python3); set python.interpreter in settings.yaml",
            "warnings": [],
            "approval": null,
        }]})
    );
    let ran = riverse(&project, &["call", "echo", "text=hi"]);
    assert_eq!(
        ran.exits(2).stderr,
        "riverse: unknown tool \"echo\"\n  python (/nonexistent/python3) failed: can't find a Python interpreter (tried /nonexistent/python3); set python.interpreter in settings.yaml\n"
    );
}

#[test]
fn an_import_that_never_finishes_is_listed_as_timed_out_by_python_import_timeout() {
    let project = project(&["echo.py", "import_hangs.py"]);
    project.settings("python:\n  import_timeout: 1\n");
    let listed: Value =
        serde_json::from_str(&riverse(&project, &["tools", "--json"]).exits(0).stdout).unwrap();
    assert_eq!(listed["tools"][0]["status"], "available");
    assert_eq!(
        (&listed["tools"][1]["status"], &listed["tools"][1]["error"]),
        (
            &json!("error"),
            &json!("import timed out after 1s (import_hangs.py)")
        )
    );
    let ran = riverse(&project, &["call", "echo", "text=loaded"]);
    assert_eq!(ran.exits(0).stdout, "loaded\n");
}

#[test]
fn an_unknown_type_name_is_a_warning_not_an_error() {
    let project = project(&["loose_types.py"]);
    let ran = riverse(&project, &["tools", "--json"]);
    let listed: Value = serde_json::from_str(&ran.exits(0).stdout).unwrap();
    let loose = &listed["tools"][0];
    assert_eq!(loose["status"], "available");
    assert_eq!(
        loose["warnings"],
        json!([
            "parameter_types[\"when\"]: unknown type \"datetime\"; its values pass through unconverted"
        ])
    );
    let table = riverse(&project, &["tools"]).exits(0).stdout.clone();
    assert!(
        table.contains("value (boolean|integer|number|string): a new value of any kind\n")
            && table.contains("! parameter_types[\"when\"]: unknown type \"datetime\"; its values pass through unconverted\n"),
        "{table}"
    );
}

/// A tool that says what it is, in words the test changes between runs.
fn described_tool(description: &str) -> String {
    format!(
        "from agent.tools import BaseTool, ToolManifest, ToolResult\n\n\n\
         class Described(BaseTool):\n    def manifest(self):\n        \
         return ToolManifest(name=\"described\", description={description:?}, parameters={{}})\n\n    \
         def execute(self, params):\n        return ToolResult(True, \"\")\n"
    )
}

/// Under `PYTHONDONTWRITEBYTECODE` the tool files' bytecode is kept in
/// Riverse's cache, never beside them, and a changed file is compiled anew.
#[test]
fn tool_bytecode_goes_to_riverses_cache_where_python_writes_none() {
    let project = Project::new();
    project.tool("described.py", &described_tool("the first words"));
    let cache = tempfile::tempdir().unwrap();
    let listed = || {
        let mut command = command::riverse_in(project.path(), &["tools", "--json"]);
        command
            .env("XDG_CACHE_HOME", cache.path())
            .env("PYTHONDONTWRITEBYTECODE", "1");
        let ran = command::run(command);
        let listed: Value = serde_json::from_str(&ran.exits(0).stdout).unwrap();
        listed["tools"][0]["description"].clone()
    };
    assert_eq!(listed(), json!("the first words"));
    assert!(!project.tools_dir().join("__pycache__").exists());
    let mirror = cache
        .path()
        .join("riverse/tool-bytecode")
        .join(project.tools_dir().strip_prefix("/").unwrap());
    let cached: Vec<String> = std::fs::read_dir(&mirror)
        .unwrap_or_else(|err| panic!("{}: {err}", mirror.display()))
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        cached.len() == 1 && cached[0].starts_with("described.") && cached[0].ends_with(".pyc"),
        "{cached:?}"
    );
    project.tool(
        "described.py",
        &described_tool("other words, and more of them"),
    );
    assert_eq!(listed(), json!("other words, and more of them"));
}
