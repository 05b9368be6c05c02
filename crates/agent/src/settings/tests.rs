use super::*;
use pretty_assertions::assert_eq;
use serde_json::json;

fn parse(text: &str) -> Result<Settings, String> {
    Settings::from_yaml(Path::new("/project"), Some("settings.yaml".into()), text)
        .map_err(|err| err.to_string())
}

#[test]
fn an_empty_file_gives_every_default() {
    let settings = parse("").unwrap();
    assert_eq!(settings.document, json!({}));
    assert_eq!(settings.language, Language::En);
    assert_eq!(settings.llm_provider, LlmProvider::Embedded);
    assert!(settings.tools.enabled);
    assert_eq!(settings.tools.dir, PathBuf::from("agent/tools"));
    assert_eq!(settings.tools.max_output_bytes, 65536);
    assert_eq!(settings.python.workers, 2);
    assert_eq!(settings.python.import_timeout, Duration::from_secs(10));
    assert_eq!(settings.agent.max_rounds, 4);
    assert_eq!(settings.agent.max_tool_calls, 8);
    assert_eq!(settings.tools_dir(), PathBuf::from("/project/agent/tools"));
}

#[test]
fn the_design_example_parses_and_keeps_unknown_keys_for_tools() {
    let text = r#"
language: ja
llm_provider: openai
openai: {model: gpt-4o-mini, api_base: "https://api.openai.com", api_key: "", temperature: 0.7}
tools:
  enabled: true
  dir: my/tools
  max_output_bytes: 1000
  weather: {enabled: false, timeout: 2.5, api_key: secret}
python: {interpreter: python3, workers: 3, import_timeout: 4}
agent: {tool_mode: dispatcher, max_rounds: 2, max_tool_calls: 5}
my_section: {anything: [1, 2]}
"#;
    let settings = parse(text).unwrap();
    assert_eq!(settings.language, Language::Ja);
    assert_eq!(settings.llm_provider, LlmProvider::Openai);
    assert_eq!(settings.tools.dir, PathBuf::from("my/tools"));
    assert_eq!(settings.tools.max_output_bytes, 1000);
    assert_eq!(
        settings.tools.per_tool["weather"],
        ToolPolicy {
            enabled: Some(false),
            timeout: Some(Duration::from_millis(2500))
        }
    );
    assert_eq!(settings.python.interpreter.as_deref(), Some("python3"));
    assert_eq!(settings.python.workers, 3);
    assert_eq!(settings.agent.tool_mode, ToolMode::Dispatcher);
    assert_eq!(settings.document["my_section"], json!({"anything": [1, 2]}));
    assert_eq!(
        settings.document["tools"]["weather"]["api_key"],
        json!("secret")
    );
}

#[test]
fn malformed_yaml_names_the_file_line_and_column() {
    assert_eq!(
        parse("tools:\n  dir: [unclosed\n").unwrap_err(),
        "settings.yaml: did not find expected ',' or ']' at line 3 column 1, while parsing a flow sequence at line 2 column 8"
    );
}

#[test]
fn a_wrong_type_names_the_key_line_and_column() {
    assert_eq!(
        parse("python:\n  workers: two\n").unwrap_err(),
        "settings.yaml: python.workers: invalid type: string \"two\", expected usize at line 2 column 12"
    );
}

#[test]
fn bad_values_name_their_key() {
    assert_eq!(
        parse("language: fr").unwrap_err(),
        "settings.yaml: language: expected en, ja or zh, got \"fr\""
    );
    assert_eq!(
        parse("tools: {weather: {timeout: soon}}").unwrap_err(),
        "settings.yaml: tools.weather.timeout: expected a positive number of seconds, got soon"
    );
    assert_eq!(
        parse("tools: {weather: {enabled: maybe}}").unwrap_err(),
        "settings.yaml: tools.weather.enabled: expected true or false, got maybe"
    );
    assert_eq!(
        parse("python: {workers: 0}").unwrap_err(),
        "settings.yaml: python.workers: must be at least 1"
    );
    assert_eq!(
        parse("- a list").unwrap_err(),
        "settings.yaml: expected a mapping of settings at the top level, found [\"a list\"]"
    );
}
