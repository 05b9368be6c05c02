//! Riverse's YAML agents through the command line: listed, called, served.

use pretty_assertions::assert_eq;
use riverse_test_support::Project;
use riverse_test_support::web::WebServer;
use serde_json::{Value, json};

use super::command::riverse;

/// A project whose `agents_en.yaml` declares `weather_query` against `server`,
/// a disabled agent and a malformed one.
pub fn agents_project(server: &WebServer) -> Project {
    let project = Project::new();
    project.file(
        "agent/config/agents_en.yaml",
        &format!(
            r#"agents:
  - name: weather_query
    type: http
    description: "Query real-time weather for any city"
    parameters:
      city: "City name (e.g. Tokyo / Beijing / London)"
    examples: ["What's the weather in Tokyo"]
    enabled: true
    http:
      url: "{base}/weather/{{city}}"
      method: GET
      headers: {{Accept: "application/json"}}
      query_template: {{format: "j1"}}
      timeout: 15
      result_path: "current_condition.0.weatherDesc.0.value"
  - name: home_lights
    type: http
    description: "Control home lights"
    enabled: false
    http: {{url: "http://homeassistant.local:8123/api/services/light/{{action}}", method: POST}}
  - name: system_info
    type: command
    description: "System information"
    command: {{template: "uname {{flag}}", allowed_params: {{flag: "-a"}}}}
"#,
            base = server.url()
        ),
    );
    project
}

#[test]
fn agents_are_listed_with_their_file_and_status() {
    let server = WebServer::start();
    let project = agents_project(&server);
    let listed: Value =
        serde_json::from_str(&riverse(&project, &["tools", "--json"]).exits(0).stdout).unwrap();
    let file = "agent/config/agents_en.yaml";
    assert_eq!(
        listed,
        json!({"tools": [
            {
                "name": "weather_query",
                "description": "Query real-time weather for any city",
                "parameters": {"city": "City name (e.g. Tokyo / Beijing / London)"},
                "examples": ["What's the weather in Tokyo"],
                "parameter_types": {},
                "source": {"kind": "agent", "file": file},
                "status": "available",
                "error": null,
                "warnings": [],
                "approval": "auto",
            },
            {
                "name": "home_lights",
                "description": "Control home lights",
                "parameters": {},
                "examples": [],
                "parameter_types": {},
                "source": {"kind": "agent", "file": file},
                "status": "unavailable",
                "error": format!("enabled: false in {file}"),
                "warnings": [],
                "approval": "auto",
            },
            {
                "name": "system_info",
                "description": null,
                "parameters": {},
                "examples": [],
                "parameter_types": {},
                "source": {"kind": "agent", "file": file},
                "status": "error",
                "error": format!("{file}: agents[2] \"system_info\": command.allowed_params.flag: expected a list of values, found a string"),
                "warnings": [],
                "approval": "auto",
            },
        ]})
    );
}

#[test]
fn an_agent_is_called_like_any_tool() {
    let server = WebServer::start();
    let project = agents_project(&server);
    let ran = riverse(&project, &["call", "weather_query", "city=Tokyo"]);
    assert_eq!(ran.exits(0).stdout, "Sunny\n");
    let ran = riverse(&project, &["call", "home_lights", "action=on"]);
    assert_eq!(
        ran.exits(2).stderr,
        "riverse: tool \"home_lights\" is not available: enabled: false in agent/config/agents_en.yaml\n"
    );
}

#[test]
fn settings_can_add_agents() {
    let server = WebServer::start();
    let project = Project::new();
    project.settings(&format!(
        "agents:\n  - {{name: echo_agent, type: http, parameters: {{q: query}}, http: {{url: \"{}/echo\", query_template: {{q: \"{{q}}\"}}, result_path: query}}}}\n",
        server.url()
    ));
    let ran = riverse(&project, &["call", "echo_agent", "q=a&b"]);
    assert_eq!(ran.exits(0).stdout, "q=a%26b\n");
    let listed: Value =
        serde_json::from_str(&riverse(&project, &["tools", "--json"]).exits(0).stdout).unwrap();
    assert_eq!(
        listed["tools"][0]["source"],
        json!({"kind": "agent", "file": "settings.yaml"})
    );
}

/// Issue 21 (H3, H4): through `riverse call`, a shell template's quotes hold
/// and a value can't become an option.
#[test]
fn called_agents_keep_values_as_data() {
    let project = Project::new();
    project.settings(
        r#"agents:
  - {name: greet, type: command, parameters: {name: n}, command: {template: 'echo "Hello {name}"', shell: true}}
  - {name: quoted, type: command, parameters: {name: n}, command: {template: "echo '{name}'", shell: true}}
  - {name: lister, type: command, parameters: {dir: d}, command: {template: "ls {dir}"}}
"#,
    );
    let marker = project.path().join("PWNED");
    let value = format!("$(touch {})", marker.display());
    for tool in ["greet", "quoted"] {
        let ran = riverse(&project, &["call", tool, &format!("name={value}")]);
        assert!(ran.exits(0).stdout.contains(&value), "{ran:?}");
    }
    assert!(!marker.exists());
    let ran = riverse(&project, &["call", "lister", "dir=--recursive"]);
    assert!(
        ran.exits(1).stderr.contains("would be read as an option"),
        "{ran:?}"
    );
}
