//! Which settings file is read, and what a broken one does.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::command::{Ran, project, riverse, riverse_in, run};

/// The config the `config_reader` tool received.
fn received(ran: &Ran) -> Value {
    let printed: Value = serde_json::from_str(&ran.exits(0).stdout).unwrap();
    printed["config"].clone()
}

#[test]
fn a_malformed_settings_file_is_named_with_line_and_column() {
    let project = project(&["echo.py"]);
    project.settings("tools:\n  enabled: true\n   dir: [agent/tools\n");
    let ran = riverse(&project, &["tools"]);
    let file = project.path().join("settings.yaml");
    assert_eq!(ran.exits(1).stdout, "");
    assert_eq!(
        ran.stderr,
        format!(
            "riverse: {}: mapping values are not allowed in this context at line 3 column 7\n",
            file.display()
        )
    );
}

#[test]
fn a_value_of_the_wrong_type_names_the_key_line_and_column() {
    let project = project(&["echo.py"]);
    project.settings("python:\n  workers: many\n");
    let ran = riverse(&project, &["call", "echo", "text=hi"]);
    let file = project.path().join("settings.yaml");
    assert_eq!(
        ran.exits(1).stderr,
        format!(
            "riverse: {}: python.workers: expected a whole number from 1 to 64, got \"many\" at line 2 column 12\n",
            file.display()
        )
    );
}

#[test]
fn an_invalid_value_names_the_key() {
    let project = project(&["echo.py"]);
    project.settings("tools:\n  echo: {timeout: -1}\n");
    let ran = riverse(&project, &["tools"]);
    let file = project.path().join("settings.yaml");
    assert_eq!(
        ran.exits(1).stderr,
        format!(
            "riverse: {}: tools.echo.timeout: expected a number of seconds above 0 and at most 86400, got -1\n",
            file.display()
        )
    );
}

#[test]
fn unknown_keys_reach_the_tools_config() {
    let project = project(&["config_reader.py"]);
    project.settings("language: ja\nmy_service:\n  url: http://localhost:1\n  retries: 3\ntools:\n  config_reader: {colour: blue}\n");
    let ran = riverse(&project, &["call", "config_reader"]);
    let mut config = received(&ran);
    // What Riverse adds of its own (issue 21): where it keeps what tools must not touch.
    let riverse_key = config
        .as_object_mut()
        .and_then(|config| config.remove("riverse"))
        .unwrap_or_default();
    let project_dir = project.path().canonicalize().unwrap();
    assert_eq!(
        (
            &riverse_key["project_dir"],
            &riverse_key["settings_file"],
            &riverse_key["tools_dir"]
        ),
        (
            &json!(project_dir),
            &json!(project_dir.join("settings.yaml")),
            &json!(project_dir.join("agent/tools"))
        )
    );
    assert!(
        riverse_key["protected_paths"]
            .as_array()
            .is_some_and(|paths| paths
                .iter()
                .any(|entry| entry["path"] == json!(project_dir.join(".git")))),
        "{riverse_key}"
    );
    assert_eq!(
        config,
        json!({
            "language": "ja",
            "my_service": {"url": "http://localhost:1", "retries": 3},
            "tools": {"config_reader": {"colour": "blue"}},
            // What Riverse's load_config derives (issue 10).
            "llm": {},
            "cloud_llm_configs": [],
            "embedding": {"enabled": false, "model": "", "api_base": "",
                          "search": {"top_k": 5, "min_score": 0.4},
                          "clustering": {"enabled": false, "show_themes": false}},
            "skills": {"enabled": true},
        })
    );
}

#[test]
fn config_flag_and_riverse_config_choose_the_settings_file() {
    let project = project(&["config_reader.py"]);
    project
        .settings("source: project\n")
        .file("elsewhere/flag.yaml", "source: flag\n")
        .file("elsewhere/env.yaml", "source: env\n");
    let call = ["call", "config_reader"];
    assert_eq!(received(&riverse(&project, &call))["source"], "project");

    let ran = riverse(
        &project,
        &["--config", "elsewhere/flag.yaml", "call", "config_reader"],
    );
    assert_eq!(received(&ran)["source"], "flag");

    let mut command = riverse_in(project.path(), &call);
    command.env("RIVERSE_CONFIG", project.path().join("elsewhere/env.yaml"));
    assert_eq!(received(&run(command))["source"], "env");

    // The flag wins over the variable.
    let mut command = riverse_in(
        project.path(),
        &["--config", "elsewhere/flag.yaml", "call", "config_reader"],
    );
    command.env("RIVERSE_CONFIG", project.path().join("elsewhere/env.yaml"));
    assert_eq!(received(&run(command))["source"], "flag");
}

#[test]
fn a_missing_config_file_is_an_error_naming_it() {
    let project = project(&["echo.py"]);
    let ran = riverse(&project, &["--config", "missing.yaml", "tools"]);
    assert_eq!(
        ran.exits(1).stderr,
        "riverse: can't read missing.yaml: No such file or directory (os error 2)\n"
    );
}

#[test]
fn dir_points_at_a_project_from_anywhere() {
    let project = project(&["echo.py"]);
    project.settings("tools:\n  echo: {enabled: true}\n");
    let elsewhere = tempfile::tempdir().unwrap();
    let dir = project.path().display().to_string();
    let ran = run(riverse_in(
        elsewhere.path(),
        &["--dir", &dir, "call", "echo", "text=found"],
    ));
    assert_eq!(ran.exits(0).stdout, "found\n");
}

/// Issue 13: a settings file is bounded, so `--config /dev/zero` is an error,
/// not a host that reads until memory runs out.
#[test]
fn an_endless_settings_file_is_refused() {
    let project = project(&["echo.py"]);
    let ran = riverse(&project, &["--config", "/dev/zero", "tools"]);
    assert_eq!(
        ran.exits(1).stderr,
        "riverse: can't read /dev/zero: larger than 4 MiB; is it a settings file?\n"
    );
}

/// Issue 13: a `tools.dir` that does not exist is named, not an unknown tool.
#[test]
fn a_missing_tools_dir_is_named() {
    let project = project(&["echo.py"]);
    project.settings("tools: {dir: /nonexistent/tools}\n");
    let ran = riverse(&project, &["call", "echo", "text=hi"]);
    assert_eq!(
        ran.exits(2).stderr,
        "riverse: unknown tool \"echo\"\n  python (python3) failed: the tools directory /nonexistent/tools does not exist (tools.dir in settings.yaml)\n"
    );
}
