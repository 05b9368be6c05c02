//! Real clients on a real socket: the official `openai` package reading what
//! a tool says and answering its question, and the chat page in headless
//! Chromium (Selenium) answering through its form and showing content.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use pretty_assertions::assert_eq;
use riverse_server::AppState;
use riverse_test_support::chromium_or_skip;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call};
use riverse_test_support::venv::serve_python;
use serde_json::{Value, json};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::support::{Backend, get};
use super::talking_tools::served_talking;

/// A server on a loopback port, as `riverse serve` runs it.
pub(super) struct Listening {
    /// `http://127.0.0.1:PORT`
    pub(super) url: String,
    stop: oneshot::Sender<()>,
    serving: JoinHandle<std::io::Result<bool>>,
}

impl Listening {
    pub(super) async fn start(state: Arc<AppState>) -> Listening {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let (stop, stopped) = oneshot::channel::<()>();
        let shutdown = async move {
            let _ = stopped.await;
        };
        let serving = tokio::spawn(riverse_server::serve(
            listener,
            state,
            shutdown,
            Duration::from_secs(10),
        ));
        Listening { url, stop, serving }
    }

    /// Stops it as Ctrl-C does; whether everything in flight finished.
    pub(super) async fn stop(self) -> bool {
        let _ = self.stop.send(());
        self.serving.await.unwrap().unwrap()
    }
}

/// Runs `script` (in tests/python) with the serve test environment's Python,
/// off the runtime's threads; what it printed, as JSON.
pub(super) async fn python(script: &str, args: Vec<String>) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/python")
        .join(script);
    let output = tokio::task::spawn_blocking(move || {
        Command::new(serve_python())
            .arg(path)
            .args(args)
            .env("NO_PROXY", "127.0.0.1,localhost")
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{script} failed:\n{stdout}\n{stderr}"
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|err| panic!("{err}: {stdout}\n{stderr}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_package_reads_what_a_tool_says_and_answers_its_question() {
    let llm = OpenAiServer::start([ev_tool_call("c1", "report", json!({})), ev_text("Written.")]);
    let served = served_talking(&Backend::Sqlite, &llm.url(), "", |_| {}).await;
    let server = Listening::start(served.state.clone()).await;
    let seen = python("stream_client.py", vec![format!("{}/v1", server.url)]).await;
    assert_eq!(
        seen,
        json!({
            "kinds": ["tool_call.started", "tool_call.log", "tool_call.progress", "tool_call.log",
                      "tool_call.progress", "tool_call.question", "tool_call.question_closed",
                      "tool_call.finished", "done"],
            "progress": [[1.0, 3.0, "page 1 of 3"], [3.0, 3.0, "all pages read"]],
            "logs": [["info", "reading 3 pages"], ["warning", "page 2 was slow"]],
            "question": "How should the report be written?",
            "answered": [200, "accept"],
            "closed": ["accept", "answered"],
            "result": "written: Q3 as html, overwrite=False",
            "text": "Written.",
        })
    );
    assert!(server.stop().await);
}

/// Where the page test leaves its screenshots.
fn screenshots() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("page-questions")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_answers_a_question_through_its_form_and_shows_content_inline() {
    if !chromium_or_skip() {
        return;
    }
    let llm = OpenAiServer::start([
        ev_tool_call("c1", "paint", json!({})),
        ev_text("A blue square."),
        ev_tool_call("c2", "report", json!({})),
        ev_text("Report written."),
    ]);
    let served = served_talking(&Backend::Sqlite, &llm.url(), "", |_| {}).await;
    let server = Listening::start(served.state.clone()).await;
    let out = screenshots();
    let seen = python(
        "page_questions.py",
        vec![format!("{}/", server.url), out.display().to_string()],
    )
    .await;
    // A 64-pixel square, decoded from its data URL; the tone and the note too.
    assert_eq!(seen["images"], json!([[true, 64, 64]]));
    assert_eq!(seen["image_src"], "data:image/png;base64,");
    assert_eq!(seen["audio"], json!(["data:audio/wav;base6"]));
    assert_eq!(seen["audio_seconds"], 0.25);
    assert_eq!(
        seen["files"],
        json!([["2-square.txt", "data:text/plain;charset=utf-8,"]])
    );
    assert_eq!(
        seen["paint_logs"],
        json!(["info mixing blue", "info drawing 64 by 64"])
    );
    assert_eq!(seen["question"], "How should the report be written?");
    assert_eq!(
        seen["fields"],
        json!([
            ["input", "text", "title", "Quarterly", false],
            ["select", "select-one", "format", "\"pdf\"", false],
            ["input", "checkbox", "overwrite", "on", true],
        ])
    );
    assert_eq!(
        seen["labels"],
        json!(["Title", "Format", "Overwrite the old one"])
    );
    assert_eq!(seen["buttons"], json!(["Submit", "Decline"]));
    assert_eq!(seen["progress"], json!(["3", "3", "all pages read"]));
    assert_eq!(
        seen["report_logs"],
        json!(["info reading 3 pages", "warning page 2 was slow"])
    );
    assert_eq!(seen["forms_left"], 0);
    assert_eq!(seen["closed"], json!(["Answered: accepted"]));
    let card = seen["report_card"].as_str().unwrap();
    assert!(
        card.contains("result: written: Q3 as html, overwrite=False"),
        "{card}"
    );
    assert!(card.contains("0-Q3.html"), "{card}");
    // Opened again, the conversation shows what the store kept.
    assert_eq!(
        seen["after_reload"],
        json!({
            "images": [[true, 64, 64]],
            "audio": 1,
            "files": ["2-square.txt", "0-Q3.html"],
            "logs": ["info mixing blue", "info drawing 64 by 64",
                     "info reading 3 pages", "warning page 2 was slow"],
            "report_result": "result: written: Q3 as html, overwrite=False",
        })
    );
    for screenshot in ["form.png", "answered.png"] {
        assert!(out.join(screenshot).is_file(), "{screenshot}");
    }
    let listed = get(served.app(), "/v1/conversations").await.json();
    assert_eq!(listed["data"].as_array().unwrap().len(), 1);
    assert!(server.stop().await);
}
