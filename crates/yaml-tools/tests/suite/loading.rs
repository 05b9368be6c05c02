//! Which file is read, and what a malformed entry does to the others.

use pretty_assertions::assert_eq;
use riverse_tool::{Registry, Status, ToolSource};
use riverse_yaml_tools::AgentsOptions;
use serde_json::json;

use super::support::{options, project, registry, write};

fn rows(registry: &Registry) -> Vec<(Option<String>, Status, String, Option<String>)> {
    registry
        .entries()
        .iter()
        .map(|entry| {
            (
                entry.name().map(str::to_owned),
                entry.status(),
                entry.source().to_string(),
                entry.error().map(str::to_owned),
            )
        })
        .collect()
}

const EN: &str = r#"
agents:
  - name: weather_query
    type: http
    description: "Query real-time weather"
    parameters: {city: "City name"}
    examples: ["What's the weather in Tokyo"]
    enabled: true
    http: {url: "https://wttr.in/{city}", query_template: {format: j1}, timeout: 15, result_path: current_condition}
  - name: home_lights
    type: http
    description: "Control home lights"
    enabled: false
    http: {url: "http://homeassistant.local:8123/api/services/light/{action}", method: POST}
  - name: broken_url
    type: http
    http: {url: 42}
  - name: no_type
    http: {url: "http://x"}
  - name: backup_notes
    type: command
    command: {template: "python scripts/backup_notes.py --scope {scope}", shell: true, allowed_params: {scope: [all, today]}}
"#;

#[test]
fn a_malformed_entry_is_an_error_naming_file_entry_and_field_while_the_others_load() {
    let project = project(EN);
    let registry = registry(&options(project.path(), "en"));
    let file = "agent/config/agents_en.yaml";
    assert_eq!(
        rows(&registry),
        vec![
            (
                Some("weather_query".into()),
                Status::Available,
                file.into(),
                None
            ),
            (
                Some("home_lights".into()),
                Status::Unavailable,
                file.into(),
                Some(format!("enabled: false in {file}"))
            ),
            (
                Some("broken_url".into()),
                Status::Error,
                file.into(),
                Some(format!(
                    "{file}: agents[2] \"broken_url\": http.url: expected a string, found a number"
                ))
            ),
            (
                Some("no_type".into()),
                Status::Error,
                file.into(),
                Some(format!("{file}: agents[3] \"no_type\": type: missing"))
            ),
            (
                Some("backup_notes".into()),
                Status::Available,
                file.into(),
                None
            ),
        ]
    );
    let weather = registry.get("weather_query").unwrap();
    assert_eq!(weather.source(), &ToolSource::Agent { file: file.into() });
    assert_eq!(
        serde_json::to_value(weather.manifest()).unwrap(),
        json!({
            "name": "weather_query",
            "description": "Query real-time weather",
            "parameters": {"city": "City name"},
            "examples": ["What's the weather in Tokyo"],
            "parameter_types": {}
        })
    );
}

#[test]
fn the_language_file_is_read_else_english() {
    let project =
        project("agents:\n  - {name: english, type: command, command: {template: date}}\n");
    write(
        project.path(),
        "agent/config/agents_ja.yaml",
        "agents:\n  - {name: japanese, type: command, command: {template: date}}\n",
    );
    let names = |language: &str| -> Vec<String> {
        registry(&options(project.path(), language))
            .available_manifests()
            .map(|manifest| manifest.name.clone())
            .collect()
    };
    assert_eq!(names("ja"), ["japanese"]);
    assert_eq!(names("fr"), ["english"]);
    assert_eq!(names("en"), ["english"]);
}

#[test]
fn settings_agents_add_to_the_file_and_a_bad_document_is_one_error() {
    let project =
        project("agents:\n  - {name: from_file, type: command, command: {template: date}}\n");
    let settings = project.path().join("settings.yaml");
    let options = AgentsOptions {
        settings_agents: Some((
            settings.clone(),
            json!([{"name": "from_settings", "type": "command", "command": {"template": "date"}}]),
        )),
        ..options(project.path(), "en")
    };
    let names: Vec<String> = registry(&options)
        .available_manifests()
        .map(|manifest| manifest.name.clone())
        .collect();
    assert_eq!(names, ["from_file", "from_settings"]);

    write(
        project.path(),
        "agent/config/agents_en.yaml",
        "agents: [unclosed\n",
    );
    let options = AgentsOptions {
        settings_agents: Some((settings, json!({"name": "not a list"}))),
        ..options
    };
    let rows = rows(&registry(&options));
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(
        rows[0]
            .3
            .as_ref()
            .unwrap()
            .starts_with("agent/config/agents_en.yaml: "),
        "{rows:?}"
    );
    assert_eq!(
        rows[1].3.as_deref(),
        Some("settings.yaml: agents: expected a list of agents, found a mapping")
    );
}

#[test]
fn no_agents_file_yields_nothing() {
    let project = tempfile::tempdir().unwrap();
    assert!(
        registry(&options(project.path(), "en"))
            .entries()
            .is_empty()
    );
}
