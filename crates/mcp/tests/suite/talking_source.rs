//! A server written with the official Python SDK whose tools talk while they
//! run (`talking_server.py`): what it sends for a call reaches the call's
//! front end, and the front end answers what it asks.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use parking_lot::Mutex;
use pretty_assertions::assert_eq;
use riverse_test_support::Project;
use riverse_test_support::venv::mcp_python;
use riverse_tool::{
    Answer, CallContext, CallListener, Content, LogLevel, LogLine, Progress, Question,
    SampleRequest, ToolResult,
};
use serde_json::json;

use riverse_mcp::{ServerSpec, ServerTransport};

use super::source::{params, registry, sdk_text, stdio};

/// Deadline for the SDK server to start (importing the SDK takes a while on
/// a busy machine).
const STARTUP: std::time::Duration = std::time::Duration::from_secs(120);

/// A front end that records what it hears, answers every question with
/// `answer` and samples itself.
struct FrontEnd {
    answer: Answer,
    /// How long it takes to answer a question.
    answer_after: std::time::Duration,
    progress: Mutex<Vec<Progress>>,
    logs: Mutex<Vec<LogLine>>,
    questions: Mutex<Vec<Question>>,
    samples: Mutex<Vec<SampleRequest>>,
}

#[async_trait::async_trait]
impl CallListener for FrontEnd {
    fn progress(&self, progress: &Progress) {
        self.progress.lock().push(progress.clone());
    }

    fn log(&self, line: &LogLine) {
        self.logs.lock().push(line.clone());
    }

    async fn ask(&self, question: Question) -> Answer {
        self.questions.lock().push(question);
        tokio::time::sleep(self.answer_after).await;
        self.answer.clone()
    }

    async fn sample(&self, request: SampleRequest) -> Result<String, String> {
        let completion = format!("{} words", request.prompt.split_whitespace().count());
        self.samples.lock().push(request);
        Ok(completion)
    }
}

impl FrontEnd {
    fn answering(answer: Answer) -> Arc<Self> {
        Arc::new(FrontEnd {
            answer,
            answer_after: std::time::Duration::ZERO,
            progress: Mutex::default(),
            logs: Mutex::default(),
            questions: Mutex::default(),
            samples: Mutex::default(),
        })
    }

    /// Accepts every question with `{"sure": true}`.
    fn sure() -> Arc<Self> {
        FrontEnd::answering(Answer::accept(
            json!({"sure": true}).as_object().unwrap().clone(),
        ))
    }
}

async fn talking(project: &Project) -> riverse_tool::Registry {
    talking_with(project, &[]).await
}

async fn talking_with(project: &Project, timeouts: &[(&str, u64)]) -> riverse_tool::Registry {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/talking_server.py");
    std::fs::copy(script, project.path().join("talking_server.py")).unwrap();
    let python = mcp_python().display().to_string();
    let server = stdio("talk", &python, &["talking_server.py"]);
    registry(project, vec![server], STARTUP, timeouts).await
}

#[tokio::test]
async fn waiting_for_the_front_ends_answer_is_not_the_tools_time() {
    let project = Project::new();
    let registry = talking_with(&project, &[("mcp_talk_confirm", 1)]).await;
    let mut slow = FrontEnd::sure();
    // The answer comes well after the tool's deadline of one second.
    Arc::get_mut(&mut slow).unwrap().answer_after = std::time::Duration::from_millis(2500);
    let context = CallContext::new(slow);
    let result = registry
        .call_with(
            "mcp_talk_confirm",
            params(json!({"question": "Delete it?"})),
            &context,
        )
        .await
        .unwrap();
    assert_eq!(result, sdk_text("accept: sure=True"));
}

#[tokio::test]
async fn progress_log_lines_and_an_image_reach_the_calls_front_end() {
    let project = Project::new();
    let registry = talking(&project).await;
    let front_end = FrontEnd::sure();
    let context = CallContext::new(front_end.clone());
    let result = registry
        .call_with("mcp_talk_report", params(json!({"steps": 3})), &context)
        .await
        .unwrap();
    let mut expected = ToolResult::ok("report ready");
    expected.content = vec![Content::Image {
        data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
            .into(),
        mime_type: "image/png".into(),
    }];
    assert_eq!(result, expected);
    let steps: Vec<Progress> = (1..=3)
        .map(|step| Progress {
            progress: f64::from(step),
            total: Some(3.0),
            message: Some(format!("step {step} of 3")),
        })
        .collect();
    assert_eq!(*front_end.progress.lock(), steps);
    let lines: Vec<LogLine> = (1..=3)
        .map(|step| LogLine {
            level: LogLevel::Info,
            message: format!("finished step {step}"),
        })
        .collect();
    assert_eq!(*front_end.logs.lock(), lines);
}

#[tokio::test]
async fn a_servers_question_is_answered_by_the_calls_front_end() {
    let project = Project::new();
    let registry = talking(&project).await;
    let front_end = FrontEnd::sure();
    let context = CallContext::new(front_end.clone());
    let result = registry
        .call_with(
            "mcp_talk_confirm",
            params(json!({"question": "Delete it?"})),
            &context,
        )
        .await
        .unwrap();
    assert_eq!(result, sdk_text("accept: sure=True"));
    let questions = front_end.questions.lock();
    assert_eq!(questions.len(), 1);
    assert_eq!(questions[0].message, "Delete it?");
    assert_eq!(
        questions[0].fields(),
        [("sure".to_owned(), "Sure".to_owned())]
    );
}

#[tokio::test]
async fn a_servers_sample_is_answered_by_the_calls_front_end() {
    let project = Project::new();
    let registry = talking(&project).await;
    let front_end = FrontEnd::sure();
    let context = CallContext::new(front_end.clone());
    let result = registry
        .call_with(
            "mcp_talk_summarise",
            params(json!({"text": "one two three"})),
            &context,
        )
        .await
        .unwrap();
    assert_eq!(result, sdk_text("summary: 3 words"));
    assert_eq!(
        *front_end.samples.lock(),
        [SampleRequest {
            prompt: "one two three".into(),
            system: Some("Answer in one line.".into()),
            max_tokens: Some(50),
        }]
    );
}

#[tokio::test]
async fn a_call_nobody_listens_to_answers_the_servers_question_with_cancel() {
    let project = Project::new();
    let registry = talking(&project).await;
    let result = registry
        .call(
            "mcp_talk_confirm",
            params(json!({"question": "Delete it?"})),
        )
        .await
        .unwrap();
    assert_eq!(result, sdk_text("cancel"));
}

#[tokio::test]
async fn two_calls_at_once_each_hear_their_own_progress() {
    let project = Project::new();
    let registry = talking(&project).await;
    let (first, second) = (FrontEnd::sure(), FrontEnd::sure());
    let (first_context, second_context) = (
        CallContext::new(first.clone()),
        CallContext::new(second.clone()),
    );
    let (one, two) = tokio::join!(
        registry.call_with(
            "mcp_talk_report",
            params(json!({"steps": 2})),
            &first_context
        ),
        registry.call_with(
            "mcp_talk_report",
            params(json!({"steps": 3})),
            &second_context
        ),
    );
    assert!(one.unwrap().success && two.unwrap().success);
    let totals = |front_end: &FrontEnd| {
        let progress = front_end.progress.lock();
        progress.iter().map(|p| p.total).collect::<Vec<_>>()
    };
    assert_eq!(totals(&first), [Some(2.0); 2]);
    assert_eq!(totals(&second), [Some(3.0); 3]);
}

/// The talking server on streamable HTTP, killed on drop.
struct HttpServer {
    child: Child,
    url: String,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn talking_over_http(project: &Project) -> HttpServer {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/talking_server.py");
    let mut child = Command::new(mcp_python())
        .arg(script)
        .arg("http")
        .current_dir(project.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port: u16 = line
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("no port from the server: {line:?}"));
    HttpServer {
        child,
        url: format!("http://127.0.0.1:{port}/mcp"),
    }
}

/// Over streamable HTTP a question comes on the stream of the call that
/// asks it, so two calls at once are each asked through their own front end.
#[tokio::test]
async fn two_calls_at_once_over_http_each_answer_their_own_question() {
    let project = Project::new();
    let server = talking_over_http(&project);
    let spec = ServerSpec {
        name: "talk".into(),
        transport: ServerTransport::Http {
            url: server.url.clone(),
            headers: BTreeMap::new(),
        },
        opens_2026: false,
    };
    let registry = registry(&project, vec![spec], STARTUP, &[]).await;
    let (sure, declining) = (FrontEnd::sure(), FrontEnd::answering(Answer::decline()));
    let (sure_context, declining_context) = (
        CallContext::new(sure.clone()),
        CallContext::new(declining.clone()),
    );
    let (accepted, declined) = tokio::join!(
        registry.call_with(
            "mcp_talk_confirm",
            params(json!({"question": "Keep it?"})),
            &sure_context
        ),
        registry.call_with(
            "mcp_talk_confirm",
            params(json!({"question": "Drop it?"})),
            &declining_context
        ),
    );
    assert_eq!(accepted.unwrap(), sdk_text("accept: sure=True"));
    assert_eq!(declined.unwrap(), sdk_text("decline"));
    assert_eq!(sure.questions.lock()[0].message, "Keep it?");
    assert_eq!(declining.questions.lock()[0].message, "Drop it?");
}
