//! `riverse ask`, against the scripted server.

use std::net::TcpListener;
use std::process::{Command, Output};

use pretty_assertions::assert_eq;
use riverse_embedded::{fetch, location};
use riverse_test_support::Project;
use riverse_test_support::index::{PackageIndex, installing_from};
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call};
use serde_json::{Value, json};

/// `riverse --dir PROJECT`, with no LLM settings leaking in from the
/// environment.
pub(super) fn riverse(project: &Project) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_riverse"));
    command
        .arg("--dir")
        .arg(project.path())
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("RIVERSE_CONFIG")
        .env_remove("RUST_LOG")
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .env("XDG_STATE_HOME", project.path().join("state"));
    installing_from(&mut command, &PackageIndex::shared().url());
    command
}

/// A project with the weather tool whose settings point at `server`.
pub(super) fn project_for(server: &OpenAiServer, extra: &str) -> Project {
    let project = Project::new();
    project.fixture("weather.py").settings(&format!(
        "llm_provider: openai\nopenai: {{api_base: \"{}\", api_key: sk-file, max_retries: 0}}\n{extra}",
        server.url()
    ));
    project
}

pub(super) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn ask(project: &Project, args: &[&str]) -> Output {
    riverse(project).arg("ask").args(args).output().unwrap()
}

/// A loopback port nothing listens on.
fn closed_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn ask_prints_the_answer_after_running_the_tool() {
    let server = OpenAiServer::start([
        ev_tool_call("c1", "weather", json!({"city": "Tokyo"})),
        ev_text("It is 21°C and sunny in Tokyo."),
    ]);
    let project = project_for(&server, "");
    let output = ask(&project, &["What's the weather in Tokyo?"]);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(text(&output.stdout), "It is 21°C and sunny in Tokyo.\n");
    assert!(
        stderr.contains("→ weather {\"city\":\"Tokyo\"}"),
        "{stderr}"
    );
    assert!(stderr.contains("✓ weather ("), "{stderr}");
    let requests = server.requests();
    assert_eq!(requests[0].header("authorization"), Some("Bearer sk-file"));
    assert_eq!(
        requests[1].tool_results(),
        vec![("c1".into(), "Tokyo: 21°C, sunny".into())]
    );
}

#[test]
fn ask_json_prints_one_document_with_every_tool_call() {
    let server = OpenAiServer::start([
        ev_tool_call("c1", "weather", json!({"city": "Oslo"})),
        ev_text("Oslo is sunny."),
    ]);
    let project = project_for(&server, "");
    let output = ask(&project, &["Weather in Oslo?", "--json"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let mut document: Value = serde_json::from_slice(&output.stdout).unwrap();
    let duration = document["tool_calls"][0]
        .as_object_mut()
        .unwrap()
        .remove("duration_ms")
        .unwrap();
    assert!(duration.is_u64(), "{duration}");
    assert_eq!(
        document,
        json!({
            "answer": "Oslo is sunny.",
            "tool_calls": [{"call_id": "c1", "tool": "weather", "params": {"city": "Oslo"}, "success": true,
                            "data": "Oslo: 21°C, sunny", "error": ""}],
            "skills": []
        })
    );
}

#[test]
fn ask_exits_1_with_one_line_when_the_llm_cannot_be_reached() {
    let port = closed_port();
    let project = Project::new();
    project.settings(&format!(
        "llm_provider: openai\nopenai: {{api_base: \"http://127.0.0.1:{port}\", max_retries: 0}}\n"
    ));
    for args in [&["hello"][..], &["hello", "--json"][..]] {
        let output = ask(&project, args);
        assert_eq!(output.status.code(), Some(1));
        assert_eq!(text(&output.stdout), "");
        assert_eq!(
            text(&output.stderr),
            format!(
                "riverse: can't reach the LLM at http://127.0.0.1:{port}/v1/chat/completions: connection refused \
                 (check openai.api_base in settings.yaml or OPENAI_BASE_URL)\n"
            )
        );
    }
}

/// A project on the embedded default (no `llm_provider`), with the weather tool
/// and the model in the cache the tests share.
fn embedded_project() -> Project {
    let project = model_cached_project();
    project.fixture("weather.py");
    project
}

/// An empty project, with the embedded model in the cache the tests share.
pub(super) fn model_cached_project() -> Project {
    let cache = location::default_cache_dir().expect("HOME or XDG_CACHE_HOME is set");
    fetch::ensure_cached(&cache, "python3", false).expect("fetch the embedded model");
    Project::new()
}

#[test]
fn ask_on_the_embedded_default_calls_a_python_tool_and_answers_from_its_result() {
    let project = embedded_project();
    let output = ask(&project, &["What's the weather in Tokyo?", "--json"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    let calls = document["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1, "{document}");
    assert_eq!(calls[0]["tool"], "weather");
    assert_eq!(calls[0]["params"], json!({"city": "Tokyo"}));
    assert_eq!(calls[0]["success"], true);
    assert_eq!(calls[0]["data"], "Tokyo: 21°C, sunny");
    assert_eq!(
        document["answer"], "Tokyo: 21°C, sunny",
        "the answer is the result, stated plainly: {document}"
    );
}

#[test]
fn ask_on_the_embedded_default_shows_the_chosen_call_and_answers_small_talk_without_tools() {
    let project = embedded_project();
    let output = ask(&project, &["Is it raining in London?"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(r#"→ weather {"city":"London"}"#),
        "the chosen call is shown: {stderr}"
    );
    assert!(
        text(&output.stdout).contains("21"),
        "the answer uses the result: {}",
        text(&output.stdout)
    );

    let output = ask(&project, &["Thank you, that was nice!", "--json"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["tool_calls"], json!([]), "{document}");
    assert_eq!(document["answer"], "You're welcome. Anything else?");

    // A remark on the tool's topic asks for nothing: no tool, a friendly
    // reply in the message's language.
    for (remark, reply) in [
        ("The sunsets here have been unreal this week.", "I see."),
        ("この週末はずっと雨だったね", "そうなんですね。"),
        ("这几天的雾霾真严重", "原来如此。"),
    ] {
        let output = ask(&project, &[remark, "--json"]);
        assert!(output.status.success(), "{}", text(&output.stderr));
        let document: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(document["tool_calls"], json!([]), "{remark}: {document}");
        let answer = document["answer"].as_str().unwrap();
        assert!(answer.starts_with(reply), "{remark}: {answer}");
    }
}

/// Issue 49: a failed call's answer is one sentence in the message's
/// language, however raw the error the tool returned; `--json` keeps it.
#[test]
fn a_failed_calls_answer_on_the_embedded_default_is_one_sentence_in_the_messages_language() {
    let project = model_cached_project();
    project.fixture("unreachable_weather.py");
    for (question, expected) in [
        (
            "What's the weather in Tokyo?",
            "The weather tool couldn't reach the service it uses.",
        ),
        (
            "東京の天気は？",
            "weather ツールは接続先に接続できませんでした。",
        ),
        (
            "北京今天天气怎么样？",
            "weather 工具无法连接到它使用的服务。",
        ),
    ] {
        let output = ask(&project, &[question, "--json"]);
        assert!(output.status.success(), "{}", text(&output.stderr));
        let document: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(document["answer"], expected, "{question}: {document}");
        let call = &document["tool_calls"][0];
        assert_eq!(call["success"], false, "{question}: {document}");
        assert!(
            call["error"]
                .as_str()
                .unwrap()
                .contains("HTTPSConnectionPool(host='wttr.in'"),
            "the details stay in --json: {document}"
        );
    }
}

#[test]
fn a_missing_embedded_model_file_is_one_line_naming_it() {
    let project = Project::new();
    project.settings("embedded: {model_path: models/absent.gguf}\n");
    let output = ask(&project, &["hello"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("absent.gguf"), "{stderr}");
}

#[test]
fn environment_variables_override_the_key_and_base_url_of_the_file() {
    let server = OpenAiServer::start([ev_text("from the env server")]);
    let project = Project::new();
    project.settings(&format!(
        "llm_provider: openai\nopenai: {{api_base: \"http://127.0.0.1:{}\", api_key: from-file, max_retries: 0}}\n",
        closed_port()
    ));
    let output = riverse(&project)
        .args(["ask", "hi"])
        .env("OPENAI_API_KEY", "sk-env")
        .env("OPENAI_BASE_URL", server.base_url())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "from the env server\n");
    let request = server.single_request();
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.header("authorization"), Some("Bearer sk-env"));
}

#[test]
fn a_bad_llm_setting_names_its_key() {
    let project = Project::new();
    project.settings("llm_provider: openai\nopenai: {max_retries: many}\n");
    let output = ask(&project, &["hi"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        format!(
            "riverse: {}: openai.max_retries: expected a whole number from 0 to 10, got \"many\" at line 2 column 23\n",
            project.path().join("settings.yaml").display()
        )
    );
}

/// Issue 10: Riverse warns about a temperature outside 0 to 2 and goes on.
#[test]
fn a_setting_riverse_accepts_is_warned_about_and_used() {
    let server = OpenAiServer::start([ev_text("warm")]);
    let project = project_for(&server, "");
    project.settings(&format!(
        "llm_provider: openai\nopenai: {{api_base: \"{}\", temperature: 7, max_tokens: \"100\"}}\n",
        server.url()
    ));
    let output = ask(&project, &["hi"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("openai.temperature: 7 is outside 0 to 2; using 2")
            && stderr.contains("openai.max_tokens: \"100\" is text; read as 100"),
        "{stderr}"
    );
    let body = server.single_request().body;
    assert_eq!(
        (&body["temperature"], &body["max_tokens"]),
        (&json!(2.0), &json!(100))
    );
}

#[test]
fn the_temperature_is_sent_as_written() {
    let server = OpenAiServer::start([ev_text("ok")]);
    let project = project_for(&server, "");
    project.settings(&format!(
        "llm_provider: openai\nopenai: {{api_base: \"{}\", temperature: 0.7}}\n",
        server.url()
    ));
    let output = ask(&project, &["hi"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(server.single_request().body["temperature"], json!(0.7));
}

/// Issue 13: a model that is still calling tools at the limits and then
/// says nothing is a failed `ask`, not an empty success.
#[test]
fn an_empty_answer_after_the_limits_is_a_failure() {
    let server = OpenAiServer::start([
        ev_tool_call("c1", "weather", json!({"city": "Tokyo"})),
        ev_text(""),
    ]);
    let project = project_for(&server, "agent: {max_rounds: 1}");
    let output = ask(&project, &["weather?"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains("still calling tools at the limits of agent.max_rounds (1)"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn credentials_in_the_api_base_are_not_shown() {
    let project = Project::new();
    project.settings(&format!(
        "llm_provider: openai\nopenai: {{api_base: \"http://user:sk-secret@127.0.0.1:{}\", max_retries: 0}}\n",
        closed_port()
    ));
    let output = ask(&project, &["hi"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(!stderr.contains("sk-secret"), "{stderr}");
    assert!(stderr.contains("http://user:***@127.0.0.1:"), "{stderr}");
}

#[test]
fn a_missing_project_directory_is_named() {
    let output = Command::new(env!("CARGO_BIN_EXE_riverse"))
        .args(["--dir", "/nonexistent/riverse-project", "tools"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        "riverse: the project directory /nonexistent/riverse-project does not exist\n"
    );
}

#[test]
fn a_japanese_answer_is_printed_intact() {
    let server = OpenAiServer::start([ev_text("東京は晴れです。").split_bytes(4)]);
    let project = project_for(&server, "language: ja");
    let output = ask(&project, &["東京の天気は？"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "東京は晴れです。\n");
    let sent = server.single_request().roles_and_contents();
    assert!(sent[0].1.starts_with("あなたは Riverse"), "{sent:?}");
    assert_eq!(sent[1].1, "東京の天気は？");
}
