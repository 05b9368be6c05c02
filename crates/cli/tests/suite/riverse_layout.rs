//! A project laid out as Riverse lays one out (issue 10): tools that import the
//! project's own `agent` packages, read `config["llm"]`, declare loose
//! `parameter_types`, and an `agents_en.yaml`.

use pretty_assertions::assert_eq;
use riverse_test_support::Project;
use riverse_test_support::web::WebServer;
use serde_json::Value;

use super::command::{Ran, riverse_in, run};

const PROMPTS: &str = r#"
_LABELS = {
    "en": {"tools.labels": {"heading": "Notes"}},
    "ja": {"tools.labels": {"heading": "メモ"}},
}


def get_labels(key: str, language: str = "en") -> dict:
    return _LABELS.get(language, _LABELS["en"]).get(key, {})
"#;

const TEXT_UTILS: &str = r#"
def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "..."
"#;

const NOTES_TOOL: &str = r#"
from agent.tools import BaseTool, ToolManifest, ToolResult
from agent.config.prompts import get_labels
from agent.utils.text import clip


class NotesTool(BaseTool):
    def __init__(self, config: dict):
        self.config = config

    def manifest(self) -> ToolManifest:
        return ToolManifest(name="notes", description="Show a note", parameters={"text": "the note"})

    def execute(self, params: dict) -> ToolResult:
        labels = get_labels("tools.labels", self.config.get("language", "en"))
        return ToolResult(success=True, data=f"{labels['heading']}: {clip(params.get('text', ''), 5)}")
"#;

/// Like Riverse's image_describe: available only with an API key from `llm`.
const VISION_TOOL: &str = r#"
from agent.tools import BaseTool, ToolManifest, ToolResult


class VisionTool(BaseTool):
    def __init__(self, config: dict):
        self.config = config
        llm = config.get("llm", {})
        own = config.get("tools", {}).get("vision", {})
        self.api_key = own.get("api_key", llm.get("api_key", ""))
        self.api_base = own.get("api_base", llm.get("api_base", "https://api.openai.com"))
        self.model = llm.get("model", "")

    def manifest(self) -> ToolManifest:
        return ToolManifest(name="vision", description="Describe an image", parameters={"path": "image file"})

    def is_available(self) -> bool:
        return bool(self.api_key)

    def execute(self, params: dict) -> ToolResult:
        return ToolResult(success=True, data=f"would ask {self.model} at {self.api_base}/v1/chat/completions")
"#;

/// No `__init__`, loose parameter types, and a section left empty in YAML.
const MANAGE_TOOL: &str = r#"
from agent.tools import BaseTool, ToolManifest, ToolResult


class ManageTool(BaseTool):
    # Like Riverse's system_manage: list the tools through ToolRegistry, or
    # read a config value.
    def manifest(self) -> ToolManifest:
        return ToolManifest(
            name="manage",
            description="Read a config value",
            parameters={"key": "dot path", "value": "new value"},
            parameter_types={"key": "str", "value": "bool|int|float|string"},
        )

    def is_available(self) -> bool:
        return self.config.get("tools", {}).get("manage", {}).get("enabled", True)

    def execute(self, params: dict) -> ToolResult:
        if params.get("key") == "list_tools":
            from agent.tools import ToolRegistry

            registry = ToolRegistry(self.config)
            lines = [f"[ON] {name}: {tool.manifest().description}" for name, tool in registry._tools.items()]
            weather = registry.execute("weather_query", {"city": "Oslo"})
            return ToolResult(success=True, data="\n".join(lines + [weather.data]))
        node = self.config
        for part in params.get("key", "").split("."):
            node = node.get(part, {}) if isinstance(node, dict) else {}
        value = params.get("value")
        return ToolResult(success=True, data=f"{node!r} value={value!r}")
"#;

fn riverse_project(server: &WebServer) -> Project {
    let project = Project::new();
    project
        .file("agent/__init__.py", "")
        .file("agent/config/__init__.py", "")
        .file("agent/config/prompts.py", PROMPTS)
        .file("agent/utils/__init__.py", "")
        .file("agent/utils/text.py", TEXT_UTILS)
        .tool("notes.py", NOTES_TOOL)
        .tool("vision.py", VISION_TOOL)
        .tool("manage.py", MANAGE_TOOL)
        .file(
            "agent/config/agents_en.yaml",
            &format!(
                "agents:\n  - name: weather_query\n    type: http\n    description: weather\n    parameters: {{city: City}}\n    enabled: true\n    http: {{url: \"{}/weather/{{city}}\", query_template: {{format: j1}}, timeout: 15, result_path: current_condition}}\n",
                server.url()
            ),
        )
        .settings(
            "language: en\ndatabase: {name: Riverse, user: postgres, host: localhost}\nllm_provider: openai\nopenai: {model: gpt-4o-mini, api_base: \"https://api.openai.com\", api_key: \"\", temperature: 0.7, max_tokens: 2048}\ntools:\n  enabled: true\n  manage:\n",
        );
    project
}

fn riverse(project: &Project, api_key: Option<&str>, args: &[&str]) -> Ran {
    let mut command = riverse_in(project.path(), args);
    command.env_remove("OPENAI_BASE_URL");
    match api_key {
        Some(key) => command.env("OPENAI_API_KEY", key),
        None => command.env_remove("OPENAI_API_KEY"),
    };
    run(command)
}

fn statuses(project: &Project, api_key: Option<&str>) -> Vec<(String, String)> {
    let listed: Value = serde_json::from_str(
        &riverse(project, api_key, &["tools", "--json"])
            .exits(0)
            .stdout,
    )
    .unwrap();
    listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| {
            (
                tool["name"].as_str().unwrap_or("-").to_owned(),
                tool["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn pairs(rows: &[(&str, &str)]) -> Vec<(String, String)> {
    rows.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

#[test]
fn every_tool_loads_and_the_llm_key_makes_the_vision_tool_available() {
    let server = WebServer::start();
    let project = riverse_project(&server);
    assert_eq!(
        statuses(&project, None),
        pairs(&[
            ("manage", "available"),
            ("notes", "available"),
            ("vision", "unavailable"),
            ("weather_query", "available"),
        ])
    );
    assert_eq!(
        statuses(&project, Some("sk-test")),
        pairs(&[
            ("manage", "available"),
            ("notes", "available"),
            ("vision", "available"),
            ("weather_query", "available"),
        ])
    );
    let ran = riverse(
        &project,
        Some("sk-test"),
        &["call", "vision", "path=cat.png"],
    );
    assert_eq!(
        ran.exits(0).stdout,
        "would ask gpt-4o-mini at https://api.openai.com/v1/chat/completions\n"
    );
}

#[test]
fn tools_import_the_projects_agent_packages_and_read_the_derived_config() {
    let server = WebServer::start();
    let project = riverse_project(&server);
    let ran = riverse(&project, None, &["call", "notes", "text=remember the milk"]);
    assert_eq!(ran.exits(0).stdout, "Notes: remem...\n");
    let ran = riverse(
        &project,
        None,
        &["call", "manage", "key=llm.model", "value=3"],
    );
    assert_eq!(ran.exits(0).stdout, "'gpt-4o-mini' value='3'\n");
    let ran = riverse(
        &project,
        None,
        &[
            "call",
            "manage",
            "key=tools.manage",
            "--params",
            r#"{"value": true}"#,
        ],
    );
    assert_eq!(ran.exits(0).stdout, "{} value=True\n");
    let ran = riverse(&project, None, &["call", "manage", "key=list_tools"]);
    assert_eq!(
        ran.exits(0).stdout,
        "[ON] manage: Read a config value\n[ON] notes: Show a note\n[ON] weather_query: weather\n\
         [{\"temp_C\":\"21\",\"weatherDesc\":[{\"value\":\"Sunny\"}]}]\n"
    );
    let ran = riverse(&project, None, &["call", "weather_query", "city=Tokyo"]);
    assert_eq!(
        ran.exits(0).stdout,
        "[{\"temp_C\":\"21\",\"weatherDesc\":[{\"value\":\"Sunny\"}]}]\n"
    );
}
