//! Third-party clients on a real socket: LangChain, LiteLLM, pydantic-ai,
//! the `llm` CLI, the `openai` Node SDK, the Vercel AI SDK and the Codex CLI,
//! each asking `riverse serve` a question and running a function tool of its
//! own through it, the scripted LLM behind Riverse. The official `openai`
//! Python package is `clients.rs`'s and `client_tools.rs`'s.
//!
//! Each client is a script in `tests/clients` (or the CLI itself) that prints
//! one JSON document of what it read; the tests compare it whole, and read
//! what Riverse sent the LLM from the scripted server's requests. The clients
//! come from riverse-test-support's `clients` module; they reach nothing but
//! the loopback port (see [`offline`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use pretty_assertions::assert_eq;
use riverse_test_support::clients::{clients_python, node_clients};
use riverse_test_support::openai::{OpenAiServer, Reply, ev_text, ev_tool_call, ev_tool_calls};
use serde_json::{Value, json};
use tokio::process::Command;

use super::clients::Listening;
use super::support::{Served, served};

/// How long a client may take: each runs in a few seconds, so one past this
/// hangs (waiting on a reply that never ends, say).
const CLIENT_DEADLINE: Duration = Duration::from_secs(90);

/// `tests/clients/<name>`.
fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/clients")
        .join(name)
}

/// Keeps a client to the loopback port: no proxy for it, every proxy
/// variable elsewhere pointing at a closed port (a stray request fails at
/// once instead of reaching the internet), none of the caller's OpenAI
/// settings, and LiteLLM's cost map read from its own package instead of
/// fetched from GitHub.
fn offline(command: &mut Command) -> &mut Command {
    const NOWHERE: &str = "http://127.0.0.1:9";
    for proxy in ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"] {
        command
            .env(proxy, NOWHERE)
            .env(proxy.to_ascii_lowercase(), NOWHERE);
    }
    for variable in ["OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID"] {
        command.env_remove(variable);
    }
    command
        .env("NO_PROXY", "127.0.0.1,localhost")
        .env("no_proxy", "127.0.0.1,localhost")
        .env("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        .kill_on_drop(true)
}

/// Runs the client `command` (`what`, for messages) [`offline`] to its end,
/// within [`CLIENT_DEADLINE`]; what it printed, as JSON. Panics with all it
/// wrote unless it succeeded.
async fn printed_json(mut command: Command, what: &str) -> Value {
    let output = tokio::time::timeout(CLIENT_DEADLINE, offline(&mut command).output())
        .await
        .unwrap_or_else(|_| panic!("{what} ran past {CLIENT_DEADLINE:?}"))
        .unwrap_or_else(|err| panic!("{what} could not start: {err}"));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|err| panic!("{what}: {err}: {stdout}"))
}

/// Runs `tests/clients/<name>` with the Python clients' interpreter.
async fn python_client(name: &str, args: &[&str]) -> Value {
    let python = tokio::task::spawn_blocking(clients_python).await.unwrap();
    let mut command = Command::new(python);
    command.arg(script(name)).args(args);
    printed_json(command, name).await
}

/// Runs `tests/clients/<name>`, an ES module, with Node 22 and the Node
/// clients.
async fn node_client(name: &str, args: &[&str]) -> Value {
    let clients = tokio::task::spawn_blocking(node_clients).await.unwrap();
    // A copy beside the packages, whose imports resolve to them.
    let dir = clients.script_dir();
    let copy = dir.path().join(name);
    std::fs::copy(script(name), &copy).unwrap();
    let mut command = Command::new(&clients.node);
    command.arg(&copy).args(args);
    printed_json(command, name).await
}

/// `[prompt, completion, total]` tokens of a reply of the scripted LLM's that
/// says `text`: it counts 10 in and a token a character out.
fn usage_of(text: &str) -> Value {
    let out = text.chars().count();
    json!([10, out, 10 + out])
}

/// The contents of the tool results of each request Riverse sent the LLM.
fn tool_results_seen(llm: &OpenAiServer) -> Vec<Vec<String>> {
    llm.requests()
        .iter()
        .map(|request| {
            request
                .tool_results()
                .into_iter()
                .map(|(_, content)| content)
                .collect()
        })
        .collect()
}

/// The replies of a client's tool run: the call, then `answer`.
fn tool_round(id: &str, city: &str, answer: &str) -> [Reply; 2] {
    [
        ev_tool_call(id, "packing_list", json!({"city": city})),
        ev_text(answer),
    ]
}

/// Two tool runs of a client's, Tokyo's answered "Pack the boots." and
/// Oslo's "Pack the umbrella.".
fn two_tool_rounds() -> impl Iterator<Item = Reply> {
    tool_round("m1", "Tokyo", "Pack the boots.")
        .into_iter()
        .chain(tool_round("m2", "Oslo", "Pack the umbrella."))
}

/// What Riverse should send the LLM of [`two_tool_rounds`]: the question,
/// then the client's result, for each city.
fn two_rounds_results() -> Vec<Vec<String>> {
    vec![
        vec![],
        vec!["umbrella and boots for Tokyo".to_owned()],
        vec![],
        vec!["umbrella and boots for Oslo".to_owned()],
    ]
}

/// Two plain answers, for a client that asks once whole and once streamed.
fn hello_twice() -> [Reply; 2] {
    [ev_text("Hello from Riverse."), ev_text("Hello again.")]
}

/// What a client prints of [`hello_twice`]'s answers.
fn both_answers_seen() -> Value {
    json!({
        "whole": {"text": "Hello from Riverse.", "usage": usage_of("Hello from Riverse.")},
        "streamed": {"text": "Hello again.", "usage": usage_of("Hello again.")},
    })
}

/// What a client prints of one run of its tool for Tokyo.
fn one_round_seen() -> Value {
    json!({
        "calls": [["packing_list", {"city": "Tokyo"}]],
        "answer": "Pack the boots.",
        "usage": usage_of("Pack the boots."),
    })
}

/// What Riverse should send the LLM of one run for Tokyo: the question,
/// then the client's result.
fn one_round_results() -> Vec<Vec<String>> {
    vec![vec![], vec!["umbrella and boots for Tokyo".to_owned()]]
}

/// What a client that ran [`two_tool_rounds`] once whole and once streamed
/// prints.
fn two_rounds_seen() -> Value {
    json!({
        "whole": {
            "calls": [["packing_list", {"city": "Tokyo"}]],
            "answer": "Pack the boots.",
            "usage": usage_of("Pack the boots."),
        },
        "streamed": {
            "calls": [["packing_list", {"city": "Oslo"}]],
            "answer": "Pack the umbrella.",
            "usage": usage_of("Pack the umbrella."),
        },
    })
}

/// A project with Riverse's `weather` tool served on a loopback port, its
/// LLM `llm`; the server and the `/v1` base URL clients are given.
async fn serving(llm: &OpenAiServer) -> (Served, Listening, String) {
    let served = served(llm, &[], "").await;
    let server = Listening::start(served.state.clone()).await;
    let base = format!("{}/v1", server.url);
    (served, server, base)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_node_reads_an_answer_whole_and_streamed_with_usage() {
    let llm = OpenAiServer::start(hello_twice());
    let (_served, server, base) = serving(&llm).await;
    let seen = node_client("openai_chat.mjs", &[&base, "plain"]).await;
    assert_eq!(seen, both_answers_seen());
    assert!(server.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_node_runs_its_own_tool_whole_and_through_its_stream_helper() {
    let llm = OpenAiServer::start(two_tool_rounds());
    let (_served, server, base) = serving(&llm).await;
    let seen = node_client("openai_chat.mjs", &[&base, "tool"]).await;
    assert_eq!(seen, two_rounds_seen());
    assert_eq!(tool_results_seen(&llm), two_rounds_results());
    assert!(server.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_node_gets_only_its_own_call_of_a_mixed_round() {
    let llm = OpenAiServer::start([
        ev_tool_calls(&[
            ("m1", "weather", json!({"city": "Tokyo"})),
            ("m2", "packing_list", json!({"city": "Tokyo"})),
        ]),
        ev_text("Sunny: pack light."),
    ]);
    let (_served, server, base) = serving(&llm).await;
    let mut seen = node_client("openai_chat.mjs", &[&base, "mixed"]).await;
    let ids = seen.as_object_mut().unwrap().remove("ids").unwrap();
    assert_eq!(
        seen,
        json!({
            "finish_reason": "tool_calls",
            "calls": [["packing_list", {"city": "Tokyo"}]],
            "riverse_calls": [["weather", "Tokyo: 21°C, sunny"]],
            "answer": "Sunny: pack light.",
        })
    );
    // The continuation carries Riverse's result, which the client never
    // saw, beside the client's, under the id the client was given.
    let requests = llm.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[1].tool_results(),
        vec![
            ("m1".to_owned(), "Tokyo: 21°C, sunny".to_owned()),
            (
                ids[0].as_str().unwrap().to_owned(),
                "umbrella and boots for Tokyo".to_owned()
            ),
        ]
    );
    assert!(server.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn langchain_reads_an_answer_invoked_and_streamed_with_usage() {
    let llm = OpenAiServer::start(hello_twice());
    let (_served, server, base) = serving(&llm).await;
    let seen = python_client("langchain_chat.py", &[&base, "plain"]).await;
    assert_eq!(seen, both_answers_seen());
    assert!(server.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn langchain_runs_its_bound_tool_and_riverse_passes_the_result_on() {
    let llm = OpenAiServer::start(tool_round("m1", "Tokyo", "Pack the boots."));
    let (_served, server, base) = serving(&llm).await;
    let seen = python_client("langchain_chat.py", &[&base, "tool"]).await;
    assert_eq!(seen, one_round_seen());
    assert_eq!(tool_results_seen(&llm), one_round_results());
    assert!(server.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn litellm_reads_an_answer_whole_and_streamed_with_usage() {
    let llm = OpenAiServer::start(hello_twice());
    let (_served, server, base) = serving(&llm).await;
    let seen = python_client("litellm_chat.py", &[&base, "plain"]).await;
    assert_eq!(seen, both_answers_seen());
    assert!(server.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn litellm_runs_its_own_tool_and_riverse_passes_the_result_on() {
    let llm = OpenAiServer::start(tool_round("m1", "Tokyo", "Pack the boots."));
    let (_served, server, base) = serving(&llm).await;
    let seen = python_client("litellm_chat.py", &[&base, "tool"]).await;
    assert_eq!(seen, one_round_seen());
    assert_eq!(tool_results_seen(&llm), one_round_results());
    assert!(server.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pydantic_ai_reads_an_answer_run_and_streamed_with_usage() {
    let llm = OpenAiServer::start(hello_twice());
    let (_served, server, base) = serving(&llm).await;
    let seen = python_client("pydantic_ai_agent.py", &[&base, "plain"]).await;
    assert_eq!(seen, both_answers_seen());
    assert!(server.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pydantic_ai_runs_its_plain_tool_and_riverse_passes_the_result_on() {
    let llm = OpenAiServer::start(tool_round("m1", "Tokyo", "Pack the boots."));
    let (_served, server, base) = serving(&llm).await;
    let seen = python_client("pydantic_ai_agent.py", &[&base, "tool"]).await;
    assert_eq!(
        seen,
        json!({
            "calls": [["packing_list", {"city": "Tokyo"}]],
            "answer": "Pack the boots.",
            // The agent adds up both requests: the call's, then the answer's.
            "usage": [20, 1 + 15, 21 + 15],
        })
    );
    assert_eq!(tool_results_seen(&llm), one_round_results());
    assert!(server.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_llm_cli_reads_an_answer_streamed_and_not_and_logs_its_usage() {
    let llm = OpenAiServer::start(hello_twice());
    let (_served, server, base) = serving(&llm).await;
    let seen = python_client("llm_cli.py", &[&base, "plain"]).await;
    let logged =
        |text: &str| json!([{"usage": [10, text.len()], "tool_calls": [], "tool_results": []}]);
    assert_eq!(
        seen,
        json!({
            "streamed": {"answer": "Hello from Riverse.", "logged": logged("Hello from Riverse.")},
            "whole": {"answer": "Hello again.", "logged": logged("Hello again.")},
        })
    );
    assert!(server.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_llm_cli_runs_its_functions_and_riverse_passes_the_results_on() {
    let llm = OpenAiServer::start(two_tool_rounds());
    let (_served, server, base) = serving(&llm).await;
    let seen = python_client("llm_cli.py", &[&base, "tool"]).await;
    // llm logs each request of its chain: the one answered with the call,
    // then the one that sent the result.
    let logged = |city: &str, answer: &str| {
        json!([
            {"usage": [10, 1], "tool_calls": [["packing_list", {"city": city}]], "tool_results": []},
            {"usage": [10, answer.len()], "tool_calls": [],
             "tool_results": [format!("umbrella and boots for {city}")]},
        ])
    };
    assert_eq!(
        seen,
        json!({
            "streamed": {"answer": "Pack the boots.", "logged": logged("Tokyo", "Pack the boots.")},
            "whole": {"answer": "Pack the umbrella.", "logged": logged("Oslo", "Pack the umbrella.")},
        })
    );
    assert_eq!(tool_results_seen(&llm), two_rounds_results());
    assert!(server.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ai_sdk_reads_an_answer_generated_and_streamed_with_usage() {
    let llm = OpenAiServer::start(hello_twice());
    let (_served, server, base) = serving(&llm).await;
    let seen = node_client("ai_sdk.mjs", &[&base, "plain"]).await;
    assert_eq!(
        seen,
        json!({
            "whole": {
                "text": "Hello from Riverse.",
                "steps": [["stop", []]],
                "usage": usage_of("Hello from Riverse."),
            },
            "streamed": {
                "text": "Hello again.",
                "deltas": "Hello again.",
                "steps": [["stop", []]],
                "usage": usage_of("Hello again."),
            },
        })
    );
    assert!(server.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ai_sdk_runs_its_own_tool_and_riverse_passes_the_result_on() {
    let llm = OpenAiServer::start(two_tool_rounds());
    let (_served, server, base) = serving(&llm).await;
    let seen = node_client("ai_sdk.mjs", &[&base, "tool"]).await;
    // Each run adds up its two steps' usage: the call's, then the answer's.
    let steps =
        |city: &str| json!([["tool-calls", [["packing_list", {"city": city}]]], ["stop", []]]);
    assert_eq!(
        seen,
        json!({
            "whole": {
                "text": "Pack the boots.",
                "steps": steps("Tokyo"),
                "usage": [20, 1 + 15, 21 + 15],
            },
            "streamed": {
                "text": "Pack the umbrella.",
                "deltas": "Pack the umbrella.",
                "steps": steps("Oslo"),
                "usage": [20, 1 + 18, 21 + 18],
            },
        })
    );
    assert_eq!(tool_results_seen(&llm), two_rounds_results());
    assert!(server.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_node_reads_a_response_whole_and_streamed_with_usage() {
    let llm = OpenAiServer::start(hello_twice());
    let (_served, server, base) = serving(&llm).await;
    let seen = node_client("openai_responses.mjs", &[&base, "plain"]).await;
    assert_eq!(
        seen,
        json!({
            "whole": {
                "status": "completed",
                "text": "Hello from Riverse.",
                "usage": usage_of("Hello from Riverse."),
            },
            "streamed": {
                "status": "completed",
                "text": "Hello again.",
                "usage": usage_of("Hello again."),
                "types": [
                    "response.created",
                    "response.in_progress",
                    "response.output_item.added",
                    "response.content_part.added",
                    "response.output_text.delta",
                    "response.output_text.done",
                    "response.content_part.done",
                    "response.output_item.done",
                    "response.completed",
                ],
            },
        })
    );
    assert!(server.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_node_runs_its_function_tool_through_responses() {
    let llm = OpenAiServer::start(two_tool_rounds());
    let (_served, server, base) = serving(&llm).await;
    let seen = node_client("openai_responses.mjs", &[&base, "tool"]).await;
    assert_eq!(seen, two_rounds_seen());
    assert_eq!(tool_results_seen(&llm), two_rounds_results());
    assert!(server.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_node_sends_back_a_mixed_responses_round_whole() {
    let llm = OpenAiServer::start([
        ev_tool_calls(&[
            ("m1", "weather", json!({"city": "Tokyo"})),
            ("m2", "packing_list", json!({"city": "Tokyo"})),
        ]),
        ev_text("Sunny: pack light."),
    ]);
    let (_served, server, base) = serving(&llm).await;
    let mut seen = node_client("openai_responses.mjs", &[&base, "mixed"]).await;
    let ids = seen.as_object_mut().unwrap().remove("ids").unwrap();
    assert_eq!(
        seen,
        json!({
            "items": [
                ["mcp_call", "weather", "Tokyo: 21°C, sunny"],
                ["function_call", "packing_list", "{\"city\":\"Tokyo\"}"],
            ],
            "calls": [["packing_list", {"city": "Tokyo"}]],
            "answer": "Sunny: pack light.",
        })
    );
    // The mcp_call item the client sent back as input is Riverse's call and
    // its result again (under the item's id), beside the client's result.
    let requests = llm.requests();
    assert_eq!(requests.len(), 2);
    let ids: Vec<String> = serde_json::from_value(ids).unwrap();
    assert_eq!(
        requests[1].tool_results(),
        vec![
            (ids[0].clone(), "Tokyo: 21°C, sunny".to_owned()),
            (ids[1].clone(), "umbrella and boots for Tokyo".to_owned()),
        ]
    );
    assert!(server.stop().await);
}

/// What Codex says of a model its catalog doesn't know (it goes on with
/// defaults).
const UNKNOWN_MODEL: &str = "Model metadata for `riverse` not found. \
Defaulting to fallback metadata; this can degrade performance and cause issues.";

/// Runs one `codex exec` task with `prompt` against `base`.
async fn codex(base: &str, prompt: &str) -> Value {
    let clients = tokio::task::spawn_blocking(node_clients).await.unwrap();
    let codex = clients.codex.display().to_string();
    python_client("codex_exec.py", &[base, &codex, prompt]).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_exec_answers_a_task_through_responses() {
    let llm = OpenAiServer::start([ev_text("Hello from Riverse.")]);
    let (_served, server, base) = serving(&llm).await;
    let seen = codex(&base, "Say hello").await;
    assert_eq!(
        seen,
        json!({
            "status": 0,
            "last_message": "Hello from Riverse.",
            "items": [["error", UNKNOWN_MODEL], ["agent_message", "Hello from Riverse."]],
            "errors": [],
        })
    );
    assert!(server.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_exec_runs_its_command_tool_and_riverse_passes_the_output_on() {
    let llm = OpenAiServer::start([
        ev_tool_call(
            "m1",
            "exec_command",
            json!({"cmd": "echo codex-tool-ok", "login": false}),
        ),
        ev_text("The command printed codex-tool-ok."),
    ]);
    let (_served, server, base) = serving(&llm).await;
    let seen = codex(&base, "Run echo codex-tool-ok").await;
    assert_eq!(
        seen,
        json!({
            "status": 0,
            "last_message": "The command printed codex-tool-ok.",
            "items": [
                ["error", UNKNOWN_MODEL],
                ["command_execution", "/bin/bash -c 'echo codex-tool-ok'", "codex-tool-ok\n", 0],
                ["agent_message", "The command printed codex-tool-ok."],
            ],
            "errors": [],
        })
    );
    // The model was offered Codex's tools beside Riverse's.
    let offered = llm.requests()[0].tool_names();
    assert!(
        ["exec_command", "weather"]
            .iter()
            .all(|name| offered.contains(&(*name).to_owned())),
        "{offered:?}"
    );
    // Codex's function_call_output, as Riverse passed it on: a header (chunk
    // id, wall time, exit code), then the output.
    let results = tool_results_seen(&llm);
    assert_eq!(results.len(), 2, "{results:?}");
    assert_eq!(results[0], Vec::<String>::new());
    let [output] = results[1].as_slice() else {
        panic!("{results:?}")
    };
    assert!(
        output.contains("Process exited with code 0")
            && output.ends_with("Output:\ncodex-tool-ok\n"),
        "{output}"
    );
    assert!(server.stop().await);
}
