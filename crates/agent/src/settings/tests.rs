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
    assert!(settings.python.fork);
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
python: {interpreter: python3, workers: 3, import_timeout: 4, fork: false}
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
        ToolSettings {
            enabled: Some(false),
            timeout: Some(Duration::from_millis(2500)),
            ..ToolSettings::default()
        }
    );
    assert_eq!(settings.python.interpreter.as_deref(), Some("python3"));
    assert_eq!(settings.python.workers, 3);
    assert!(!settings.python.fork);
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
        "settings.yaml: python.workers: expected a whole number from 1 to 64, got \"two\" at line 2 column 12"
    );
    assert_eq!(
        parse("agent:\n  tool_mode: sometimes\n").unwrap_err(),
        "settings.yaml: agent.tool_mode: unknown variant `sometimes`, expected one of `auto`, `native`, `dispatcher` at line 2 column 14"
    );
}

#[test]
fn bad_values_name_their_key() {
    assert_eq!(
        parse("tools: {weather: {timeout: soon}}").unwrap_err(),
        "settings.yaml: tools.weather.timeout: expected a number of seconds above 0 and at most 86400, got \"soon\""
    );
    assert_eq!(
        parse("tools: {weather: {enabled: maybe}}").unwrap_err(),
        "settings.yaml: tools.weather.enabled: expected true or false, got \"maybe\""
    );
    assert_eq!(
        parse("python: {workers: 0}").unwrap_err(),
        "settings.yaml: python.workers: expected a whole number from 1 to 64, got 0 at line 1 column 19"
    );
    assert_eq!(
        parse("llm_provider: nobody").unwrap_err(),
        "settings.yaml: llm_provider: expected openai, local or embedded, or the name of a section with an api_base, got \"nobody\""
    );
    assert_eq!(
        parse("- a list").unwrap_err(),
        "settings.yaml: expected a mapping of settings at the top level, found [\"a list\"]"
    );
}

/// Issue 13: every numeric key, fed extreme values, is an error that names
/// the key and the range; none panics.
#[test]
fn extreme_numbers_are_errors_never_panics() {
    let keys = [
        ("python", "workers", "a whole number from 1 to 64"),
        (
            "python",
            "import_timeout",
            "a number of seconds above 0 and at most 86400",
        ),
        (
            "tools",
            "max_output_bytes",
            "a whole number from 1 to 67108864",
        ),
        ("agent", "max_rounds", "a whole number from 0 to 100"),
        ("agent", "max_tool_calls", "a whole number from 0 to 1000"),
        (
            "mcp",
            "startup_timeout",
            "a number of seconds above 0 and at most 86400",
        ),
        (
            "openai",
            "timeout",
            "a number of seconds above 0 and at most 86400",
        ),
        ("openai", "max_retries", "a whole number from 0 to 10"),
        (
            "openai",
            "max_tokens",
            "a whole number from 1 to 4294967295",
        ),
        (
            "local",
            "timeout",
            "a number of seconds above 0 and at most 86400",
        ),
    ];
    let extremes = [
        "18446744073709551615",
        "18446744073709551616",
        "-18446744073709551616",
        "1e300",
        "-1e300",
        "1e19",
        "-1",
        ".nan",
        ".inf",
        "'1e400'",
        "[]",
        "{a: 1}",
    ];
    for (section, key, range) in keys {
        for value in extremes {
            let text = format!("{section}:\n  {key}: {value}\n");
            let err = parse(&text).unwrap_err();
            assert!(
                err.starts_with(&format!("settings.yaml: {section}.{key}: "))
                    && err.contains(range),
                "{text} gave {err}"
            );
        }
    }
    for value in extremes {
        let text = format!("tools: {{weather: {{timeout: {value}}}}}");
        let err = parse(&text).unwrap_err();
        assert!(
            err.starts_with("settings.yaml: tools.weather.timeout: "),
            "{text} gave {err}"
        );
    }
}

/// Issue 10: what Riverse accepts with a warning, Riverse (Rust) accepts too.
#[test]
fn what_riverse_accepts_is_read_with_a_warning() {
    let text = r#"
language: fr
llm_provider: deepseek
deepseek: {model: deepseek-chat, api_base: "https://api.deepseek.com", api_key: sk-d, temperature: 2.5}
tools:
  enabled: "true"
  file_list:
  weather: {enabled: "false", timeout: "30"}
python: {workers: "3"}
"#;
    let settings = parse(text).unwrap();
    assert_eq!(settings.language, Language::En);
    assert_eq!(settings.llm_provider, LlmProvider::Openai);
    assert_eq!(settings.openai.section, "deepseek");
    assert_eq!(settings.openai.base_url, "https://api.deepseek.com/v1");
    assert_eq!(settings.openai.model, "deepseek-chat");
    assert_eq!(settings.openai.temperature, Some(2.0));
    assert_eq!(
        settings.tools.per_tool["weather"],
        ToolSettings {
            enabled: Some(false),
            timeout: Some(Duration::from_secs(30)),
            ..ToolSettings::default()
        }
    );
    assert_eq!(settings.python.workers, 3);
    assert_eq!(
        settings.warnings,
        [
            "settings.yaml: language: \"fr\" is not one of en, ja, zh; using en",
            "settings.yaml: llm_provider: \"deepseek\" is not a provider name; its section \"deepseek\" is used as an OpenAI-compatible endpoint",
            "settings.yaml: tools.weather.enabled: \"false\" is text; read as false",
            "settings.yaml: tools.weather.timeout: \"30\" is text; read as 30",
            "settings.yaml: tools.enabled: \"true\" is text; read as true",
            "settings.yaml: python.workers: \"3\" is text; read as 3",
            "settings.yaml: deepseek.temperature: 2.5 is outside 0 to 2; using 2",
        ]
    );
}

#[test]
fn a_clean_environment_for_workers_is_asked_for_by_name() {
    let settings = parse("python: {env: clean, env_allow: [MY_TOOL_KEY]}").unwrap();
    assert_eq!(
        settings.python.env,
        EnvPolicy::Clean {
            allow: vec!["MY_TOOL_KEY".into()]
        }
    );
    assert!(
        parse("python: {env: cleanish}")
            .unwrap_err()
            .contains("python.env")
    );
}

#[test]
fn riverse_s_own_default_settings_load_without_errors() {
    let settings = parse(RIVERSE_DEFAULT_SETTINGS).unwrap();
    assert_eq!(settings.llm_provider, LlmProvider::Openai);
    assert_eq!(settings.tools.per_tool["shell_exec"].enabled, Some(false));
    assert_eq!(settings.warnings, Vec::<String>::new());
}

/// The shape of Riverse's `settings.yaml.default`: its sections, keys and the
/// kinds of their values (comments and most list entries left out).
const RIVERSE_DEFAULT_SETTINGS: &str = r#"
language: "en"
timezone: "Asia/Tokyo"
database: {name: "Riverse", user: "postgres", host: "localhost"}
llm_provider: "openai"
openai: {model: "gpt-4o-mini", api_base: "https://api.openai.com", api_key: "", temperature: 0.7, max_tokens: 2048}
local: {model: "qwen2.5:14b", api_base: "http://localhost:11434", temperature: 0.7, max_tokens: 2048}
cloud_llm:
  enabled: true
  providers:
    - {name: "openai", model: "gpt-4o", api_base: "https://api.openai.com", api_key: "", temperature: 0.7, max_tokens: 2048, search: true, priority: 1}
  escalation: {auto: true, feedback: true, min_response_length: 20}
tools:
  enabled: true
  voice_transcribe: {model: "whisper-1", language: "en"}
  image_describe: {provider: "openai", model: "gpt-4o"}
  file_read: {enabled: true, max_file_size: 1048576, allowed_dirs: []}
  dispatch_task: {enabled: true, strict_mode: true, max_steps: 20, timeout: 300}
  shell_exec:
    enabled: false
    timeout: 30
    whitelist: ["ls", "cat", "git status"]
  finance_query: {enabled: true}
  web_search: {backend: "duckduckgo"}
telegram: {enabled: false, bot_token: "", temp_dir: "tmp/telegram", allowed_user_ids: []}
tts: {enabled: false, voices: {zh: "zh-CN-XiaoxiaoNeural"}, temp_dir: "tmp/tts", max_chars: 500}
session_memory: {char_budget: 3000, keep_recent: 5, summary_ratio: 0.4}
embedding: {enabled: false, model: "bge-m3", api_base: "http://localhost:11434", search: {top_k: 5, min_score: 0.40}}
skills: {enabled: true}
mcp: {enabled: false, servers: []}
proactive: {enabled: true, quiet_hours: {start: "23:00", end: "08:00"}}
agent_doc_scan: {enabled: true, interval_hours: 24}
"#;

#[test]
fn a_tool_approval_is_read_and_a_bad_one_names_its_key() {
    let settings = parse(
        "tools:\n  shell_exec:\n    approval:\n      default: ask\n      auto: [{command: {prefix: ls}}]\n  file_write: {approval: deny}\n",
    )
    .unwrap();
    let verdict = |tool: &str, command: &str| {
        let params = json!({"command": command}).as_object().unwrap().clone();
        settings.tools.per_tool[tool]
            .approval
            .decide(&params)
            .to_string()
    };
    assert_eq!(
        verdict("shell_exec", "ls -l"),
        "tools.shell_exec.approval.auto[0] matched (auto)"
    );
    assert_eq!(
        verdict("shell_exec", "rm x"),
        "tools.shell_exec.approval is ask"
    );
    assert_eq!(
        verdict("file_write", "x"),
        "tools.file_write.approval is deny"
    );
    let err = parse("tools:\n  shell_exec: {approval: {auto: [{command: {regex: \"(\"}}]}}\n")
        .unwrap_err();
    assert_eq!(
        err,
        "settings.yaml: tools.shell_exec.approval.auto[0].command.regex: found open group without closing ')'"
    );
}

#[test]
fn a_tools_own_sandbox_takes_what_it_leaves_out_from_python_sandbox() {
    let settings = parse(
        "python:\n  sandbox: {read: [docs], network: false, memory_mb: 256}\ntools:\n  notes: {sandbox: {write: [notes], memory_mb: 512}}\n",
    )
    .unwrap();
    let python = settings.python.sandbox.as_ref().unwrap();
    assert_eq!(python.label, "python.sandbox");
    assert_eq!(python.read, [PathBuf::from("/project/docs")]);
    let notes = settings.tools.per_tool["notes"].sandbox.as_ref().unwrap();
    assert_eq!(notes.label, "tools.notes.sandbox");
    assert_eq!(notes.read, python.read);
    assert_eq!(notes.write, [PathBuf::from("/project/notes")]);
    assert_eq!(notes.network, python.network);
    assert_eq!(notes.memory_mb, Some(512));
    let err = parse("tools:\n  notes: {sandbox: {network: [70000]}}\n").unwrap_err();
    assert_eq!(
        err,
        "settings.yaml: tools.notes.sandbox.network: expected TCP ports from 1 to 65535, got 70000"
    );
}

#[test]
fn the_log_format_is_text_unless_json_is_asked_for() {
    assert_eq!(parse("").unwrap().log_format, LogFormat::Text);
    assert_eq!(
        parse("log_format: json").unwrap().log_format,
        LogFormat::Json
    );
    assert_eq!(
        parse("log_format: xml").unwrap_err(),
        "settings.yaml: log_format: unknown variant `xml`, expected `text` or `json` at line 1 column 13"
    );
}

#[test]
fn a_tools_background_section_is_read_with_its_timeout_and_its_errors_name_the_key() {
    let settings = parse(
        "tools:\n  slow: {timeout: 300, background: {after: 20, rerun: true, timeout: 900}}\n",
    )
    .unwrap();
    assert_eq!(
        settings.tools.per_tool["slow"],
        ToolSettings {
            timeout: Some(Duration::from_secs(300)),
            background: Some(Background {
                after: Duration::from_secs(20),
                rerun: true,
                timeout: Some(Duration::from_secs(900)),
            }),
            ..ToolSettings::default()
        }
    );
    let err = parse("tools:\n  slow: {background: {after: soon}}\n").unwrap_err();
    assert!(
        err.contains("tools.slow.background.after: expected a number of seconds from 0 to 86400, got \"soon\""),
        "{err}"
    );
}
