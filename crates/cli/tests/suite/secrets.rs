//! Secrets (`secrets:` and `tools.<name>.secrets`) from the real binary: a
//! tool given a secret leaks it every way it can, and no encoding of it
//! reaches the LLM, the terminal, the logs, a trace, an MCP client, the
//! server's answers or anything it stores; a tool not given it can't have
//! it, and no tool inherits the variables it and Riverse's keys come from.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE};
use pretty_assertions::assert_eq;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_calls};
use riverse_test_support::otlp::OtlpReceiver;
use riverse_test_support::{McpProcess, Project};
use serde_json::{Value, json};

use super::ask::{riverse, text};
use super::command::riverse_in;
use super::serve::{Server, http};

const SECRET: &str = "tk-9f8/e+d=7c6b5a4Q";
const SECRET_VARIABLE: &str = "RIVERSE_TEST_LEAKED_KEY";
const LLM_KEY: &str = "sk-llm-key-never-shown-1234";

/// What the tool writes, each way, as it writes it (`leaks_secret.py`).
fn written_forms() -> Vec<String> {
    let with = |before: &[u8], after: &[u8]| {
        let mut bytes = before.to_vec();
        bytes.extend_from_slice(SECRET.as_bytes());
        bytes.extend_from_slice(after);
        bytes
    };
    let hex: String = SECRET.bytes().map(|byte| format!("{byte:02x}")).collect();
    let unicode: String = SECRET
        .chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect();
    let base64 = STANDARD.encode(with(b"x", b""));
    let base64_url = URL_SAFE.encode(with(b"xy", b"z"));
    vec![
        SECRET.to_owned(),
        // The characters that only the secret decides.
        base64[2..base64.len() - 2].to_owned(),
        base64_url[3..base64_url.len() - 3].to_owned(),
        hex,
        "tk-9f8%2Fe%2Bd%3D7c6b5a4Q".to_owned(),
        unicode,
        SECRET[..6].to_owned() + "\n" + &SECRET[6..],
        LLM_KEY.to_owned(),
    ]
}

fn assert_no_secret(place: &str, text: &str) {
    for form in written_forms() {
        assert!(
            !text.contains(&form),
            "{place} carries the secret as {form:?}:\n{text}"
        );
    }
}

fn project(llm: &OpenAiServer, extra: &str) -> Project {
    let project = Project::new();
    project
        .fixture("leaks_secret.py")
        .fixture("reads_env.py")
        .settings(&format!(
            "llm_provider: openai\n\
             openai: {{api_base: \"{}\", api_key: {LLM_KEY}, model: test-model, max_retries: 0}}\n\
             secrets:\n  API_KEY: {{env: {SECRET_VARIABLE}}}\n\
             tools:\n  leaks_secret: {{secrets: [API_KEY]}}\n{extra}",
            llm.url()
        ));
    project
}

fn leaking_turn() -> OpenAiServer {
    OpenAiServer::start([
        ev_tool_calls(&[
            ("c1", "leaks_secret", json!({})),
            ("c2", "leaks_secret", json!({"fail": true})),
            ("c3", "asks_for_secret", json!({})),
            ("c4", "reads_env", json!({"name": SECRET_VARIABLE})),
            ("c5", "reads_env", json!({"name": "OPENAI_API_KEY"})),
        ]),
        ev_text("Done."),
    ])
}

/// What the LLM was sent as each call's result.
fn tool_results(llm: &OpenAiServer) -> Vec<(String, String)> {
    llm.requests()
        .last()
        .expect("the LLM was asked again")
        .tool_results()
}

#[test]
fn a_secret_reaches_its_tool_and_no_encoding_of_it_leaves() {
    let llm = leaking_turn();
    let receiver = OtlpReceiver::start();
    let project = project(&llm, "");
    let output = riverse(&project)
        .env(SECRET_VARIABLE, SECRET)
        .env("OPENAI_API_KEY", LLM_KEY)
        .env("RUST_LOG", "debug")
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url())
        .args(["ask", "--json", "leak it"])
        .output()
        .unwrap();
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(output.status.success(), "{stderr}");
    assert_no_secret("the terminal", &stdout);
    assert_no_secret("the log", &stderr);
    for request in llm.requests() {
        assert_no_secret("a request to the LLM", &request.body.to_string());
    }
    let exported = format!("{:?}", receiver.spans());
    assert_no_secret("the traces", &exported);

    let results = tool_results(&llm);
    let result = |id: &str| {
        results
            .iter()
            .find(|(call, _)| call == id)
            .map(|(_, text)| text.clone())
            .unwrap_or_else(|| panic!("no result for {id}: {results:?}"))
    };
    // Every form the tool wrote is there, each as the secret's name.
    let leaked = result("c1");
    for name in [
        "raw",
        "base64",
        "base64_url",
        "hex",
        "url",
        "json_unicode",
        "split",
    ] {
        assert!(
            leaked.contains(&format!("{name}=")),
            "{name} missing: {leaked}"
        );
    }
    assert!(leaked.contains("raw=[secret:API_KEY]"), "{leaked}");
    assert!(leaked.contains("split=[secret:API_KEY]"), "{leaked}");
    assert!(
        result("c2").contains("failed with [secret:API_KEY]"),
        "{}",
        result("c2")
    );
    assert!(
        result("c3").contains("secret \"API_KEY\" is not given to asks_for_secret")
            && result("c3").contains("tools.asks_for_secret.secrets"),
        "{}",
        result("c3")
    );
    assert_eq!(result("c4"), "(unset)", "the secret's variable is withheld");
    assert_eq!(result("c5"), "(unset)", "Riverse's LLM key is withheld");
}

#[test]
fn env_allow_gives_back_a_withheld_variable() {
    let llm = OpenAiServer::start([
        ev_tool_calls(&[("c1", "reads_env", json!({"name": "OPENAI_API_KEY"}))]),
        ev_text("Done."),
    ]);
    let project = project(&llm, "python: {env_allow: [OPENAI_API_KEY]}\n");
    let output = riverse(&project)
        .env(SECRET_VARIABLE, SECRET)
        .env("OPENAI_API_KEY", LLM_KEY)
        .args(["ask", "which key?"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    // Read by the tool, but still never shown: the LLM sees its name.
    assert_eq!(
        tool_results(&llm),
        [("c1".to_owned(), "[secret:llm.api_key]".to_owned())]
    );
}

#[test]
fn an_mcp_client_gets_the_scrubbed_result() {
    let llm = OpenAiServer::start([]);
    let project = project(&llm, "");
    let mut command = riverse_in(project.path(), &["mcp"]);
    command.env(SECRET_VARIABLE, SECRET);
    let mut session = McpProcess::start(command);
    session.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "leaks_secret", "arguments": {}}}));
    let reply = session.reply_to(&json!(1));
    assert_no_secret("the MCP reply", &reply.to_string());
    assert_eq!(
        reply["result"]["structuredContent"]["leaks"]["raw"],
        json!("[secret:API_KEY]"),
        "{reply}"
    );
}

#[test]
fn the_server_answers_and_stores_no_secret() {
    let llm = leaking_turn();
    let project = project(&llm, "");
    let server = Server::start(
        &project,
        &[(SECRET_VARIABLE, SECRET), ("RUST_LOG", "debug")],
    );
    let body = json!({"model": "riverse", "messages": [{"role": "user", "content": "leak it"}]});
    let (status, answer) = http(&server.url, "POST", "/v1/chat/completions", Some(&body));
    assert_eq!(status, 200, "{answer}");
    assert_no_secret("the API's answer", &answer);
    // A stored conversation: the same turn again, kept in the store.
    llm.push([
        ev_tool_calls(&[("c1", "leaks_secret", json!({}))]),
        ev_text("Done."),
    ]);
    let (status, created) = http(&server.url, "POST", "/v1/conversations", Some(&json!({})));
    assert_eq!(status, 200, "{created}");
    let id = serde_json::from_str::<Value>(&created).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let turn = json!({"content": "leak it", "stream": false});
    let path = format!("/v1/conversations/{id}/messages");
    let (status, answer) = http(&server.url, "POST", &path, Some(&turn));
    assert_eq!(status, 200, "{answer}");
    let (_, stored) = http(&server.url, "GET", &format!("/v1/conversations/{id}"), None);
    assert!(stored.contains("[secret:API_KEY]"), "{stored}");
    assert_no_secret("the stored conversation", &stored);
    let (_, log) = server.stop(nix::sys::signal::Signal::SIGTERM);
    assert_no_secret("the server's log", &log);
    // Everything the server wrote: its store, its state; not the settings,
    // which hold the LLM key they were given.
    let written: Vec<_> = files_under(project.path())
        .into_iter()
        .filter(|file| !file.ends_with("settings.yaml"))
        .collect();
    assert!(
        written
            .iter()
            .any(|file| file.to_string_lossy().ends_with("riverse.db")),
        "no store among {written:?}"
    );
    for file in written {
        let bytes = std::fs::read(&file).unwrap_or_default();
        assert_no_secret(
            &file.display().to_string(),
            &String::from_utf8_lossy(&bytes),
        );
    }
}

fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn a_tool_naming_an_unknown_secret_is_an_error_naming_the_key() {
    let project = Project::new();
    project.settings("secrets:\n  A: {env: X}\ntools:\n  t: {secrets: [B]}\n");
    let output = riverse(&project).args(["tools"]).output().unwrap();
    assert!(!output.status.success());
    assert!(
        text(&output.stderr).contains("tools.t.secrets: \"B\" is not a secret under `secrets`"),
        "{}",
        text(&output.stderr)
    );
    project.settings("secrets:\n  A: {vault: X}\n");
    let output = riverse(&project).args(["tools"]).output().unwrap();
    assert!(
        text(&output.stderr).contains("secrets.A: unknown key `vault`"),
        "{}",
        text(&output.stderr)
    );
}

/// `${secret:NAME}` in an MCP server's `env` and a YAML agent's header: the
/// server and the site get the value, and what comes back shows its name;
/// neither a server's process nor a command agent's inherits Riverse's own
/// keys or the secrets' variables.
#[test]
fn mcp_servers_and_agents_are_given_secrets_by_reference() {
    let site = riverse_test_support::web::WebServer::start();
    let inner = Project::new();
    inner.fixture("reads_env.py");
    // The inner Riverse would hand both on to its tools: only the outer one
    // withholding them keeps them out.
    inner.settings(&format!(
        "python: {{env_allow: [OPENAI_API_KEY, {SECRET_VARIABLE}]}}\n"
    ));
    let project = Project::new();
    project.settings(&format!(
        "secrets:\n  API_KEY: {{env: {SECRET_VARIABLE}}}\n\
         mcp:\n  enabled: true\n  startup_timeout: 120\n  servers:\n    - {{name: inner, command: {riverse:?}, args: [--dir, {inner:?}, mcp], \
         env: {{ECHO_ME: \"${{secret:API_KEY}}\"}}}}\n\
         agents:\n  - {{name: keyed, type: http, parameters: {{}}, \
         http: {{url: \"{site}/echo\", headers: {{X-Api-Key: \"${{secret:API_KEY}}\"}}, result_path: headers}}}}\n  \
         - {{name: environment, type: command, parameters: {{}}, command: {{template: env}}}}\n",
        riverse = env!("CARGO_BIN_EXE_riverse"),
        inner = inner.path().display().to_string(),
        site = site.url(),
    ));
    let call = |args: &[&str]| {
        let output = riverse(&project)
            .env(SECRET_VARIABLE, SECRET)
            .env("OPENAI_API_KEY", LLM_KEY)
            .args(args)
            .output()
            .unwrap();
        let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
        assert!(output.status.success(), "{stderr}");
        assert_no_secret("the terminal", &format!("{stdout}{stderr}"));
        stdout
    };
    assert_eq!(
        call(&["call", "mcp_inner_reads_env", "name=ECHO_ME"]),
        "[secret:API_KEY]\n"
    );
    let headers: Value = serde_json::from_str(&call(&["call", "keyed"])).unwrap();
    assert_eq!(headers["x-api-key"], json!("[secret:API_KEY]"), "{headers}");
    for variable in ["OPENAI_API_KEY", SECRET_VARIABLE] {
        let name = format!("name={variable}");
        assert_eq!(
            call(&["call", "mcp_inner_reads_env", &name]),
            "(unset)\n",
            "{variable} reached the MCP server's process"
        );
    }
    let environment = call(&["call", "environment"]);
    assert!(environment.contains("PATH="), "{environment}");
    for variable in ["OPENAI_API_KEY", SECRET_VARIABLE] {
        assert!(
            !environment.contains(&format!("{variable}=")),
            "{variable} reached a command agent: {environment}"
        );
    }
}
