//! What a tool says and asks while it runs (`self.log`, `self.progress`,
//! `self.ask`, `self.sample`) and the content it returns, through a real
//! worker to the call's context, bounded.

use std::sync::Arc;

use parking_lot::Mutex;
use pretty_assertions::assert_eq;
use riverse_test_support::Project;
use riverse_tool::{
    Answer, CallContext, CallListener, Content, LogLevel, LogLine, MAX_LOG_LINES, Progress,
    Question, SampleRequest, ToolResult,
};
use serde_json::{Value, json};

use super::support::{assert_echo_answers, options, project, registry};

const TALKER: &str = r#"
from agent.tools import BaseTool, ToolManifest, ToolResult, Image, Resource


class Talker(BaseTool):
    def manifest(self):
        return ToolManifest(name="talker", description="talks while it works",
                            parameters={"lines": "how many log lines"},
                            parameter_types={"lines": "int"})

    def execute(self, params):
        for n in range(params.get("lines", 2)):
            self.log(f"line {n}")
        self.log("careful", level="warning")
        self.progress(1, 3, "page 1 of 3")
        self.progress(3, 3, "done")
        answer = self.ask("Overwrite report.pdf?", {"overwrite": "yes or no"})
        summary = self.sample("Summarise in one line: pages", max_tokens=20, system="be brief")
        return ToolResult(True, f"{answer.action} {answer.content} {summary}", content=[
            Image(b"\x89PNG\r\n", "image/png"),
            Resource("file:///srv/report.txt", text="the report", mime_type="text/plain"),
        ])
"#;

/// What one call's listener heard, and how it answers.
#[derive(Default)]
struct Listener {
    logs: Mutex<Vec<LogLine>>,
    progress: Mutex<Vec<Progress>>,
    questions: Mutex<Vec<Question>>,
    samples: Mutex<Vec<SampleRequest>>,
    answer: Option<Answer>,
}

#[async_trait::async_trait]
impl CallListener for Listener {
    fn progress(&self, progress: &Progress) {
        self.progress.lock().push(progress.clone());
    }
    fn log(&self, line: &LogLine) {
        self.logs.lock().push(line.clone());
    }
    async fn ask(&self, question: Question) -> Answer {
        self.questions.lock().push(question);
        self.answer.clone().unwrap_or_else(Answer::cancel)
    }
    async fn sample(&self, request: SampleRequest) -> Result<String, String> {
        self.samples.lock().push(request.clone());
        Ok(format!("sampled<{}>", request.prompt))
    }
}

async fn call_heard(
    project: &Project,
    name: &str,
    params: Value,
    listener: Arc<Listener>,
) -> ToolResult {
    let registry = registry(options(project)).await;
    let Value::Object(params) = params else {
        panic!("an object");
    };
    let context = CallContext::new(listener);
    let result = registry.call_with(name, params, &context).await.unwrap();
    assert!(context.has_ended(), "the call ended its context");
    assert_echo_answers(&registry).await;
    result
}

#[tokio::test]
async fn a_tool_logs_reports_progress_asks_samples_and_returns_content() {
    let project = project(&[]);
    project.tool("talker.py", TALKER);
    let mut accepted = serde_json::Map::new();
    accepted.insert("overwrite".into(), json!("yes"));
    let listener = Arc::new(Listener {
        answer: Some(Answer::accept(accepted)),
        ..Listener::default()
    });
    let result = call_heard(&project, "talker", json!({}), listener.clone()).await;
    assert!(result.success, "{result:?}");
    assert_eq!(
        result.data,
        "accept {'overwrite': 'yes'} sampled<Summarise in one line: pages>"
    );
    assert_eq!(
        result.content,
        [
            Content::image(b"\x89PNG\r\n", "image/png"),
            Content::Resource {
                uri: "file:///srv/report.txt".into(),
                text: Some("the report".into()),
                blob: None,
                mime_type: Some("text/plain".into()),
            },
        ]
    );
    let logs: Vec<(LogLevel, String)> = listener
        .logs
        .lock()
        .iter()
        .map(|line| (line.level, line.message.clone()))
        .collect();
    assert_eq!(
        logs,
        [
            (LogLevel::Info, "line 0".into()),
            (LogLevel::Info, "line 1".into()),
            (LogLevel::Warning, "careful".into()),
        ]
    );
    let progress = listener.progress.lock();
    assert_eq!(
        progress.first().unwrap().message.as_deref(),
        Some("page 1 of 3")
    );
    assert_eq!(progress.last().unwrap().progress, 3.0);
    let question = &listener.questions.lock()[0];
    assert_eq!(question.message, "Overwrite report.pdf?");
    assert_eq!(
        question.fields(),
        [("overwrite".to_owned(), "yes or no".to_owned())]
    );
    let sample = &listener.samples.lock()[0];
    assert_eq!(sample.max_tokens, Some(20));
    assert_eq!(sample.system.as_deref(), Some("be brief"));
}

#[tokio::test]
async fn nobody_listening_is_a_cancel_and_a_sample_error_the_tool_can_catch() {
    let project = project(&[]);
    project.tool(
        "asker.py",
        r#"
from agent.tools import BaseTool, ToolManifest, ToolResult


class Asker(BaseTool):
    def manifest(self):
        return ToolManifest(name="asker", description="asks", parameters={})

    def execute(self, params):
        self.log("nobody hears this")
        answer = self.ask("Really?")
        try:
            self.sample("hello")
        except RuntimeError as exc:
            return ToolResult(True, f"{answer.action} {answer.accepted} / {exc}")
        return ToolResult(False, "", "sample() did not raise")
"#,
    );
    let registry = registry(options(&project)).await;
    let result = super::support::call(&registry, "asker", json!({})).await;
    assert_eq!(result.data, "cancel False / no LLM is there to sample from");
}

#[tokio::test]
async fn a_flood_of_log_lines_is_bounded_and_the_call_still_finishes() {
    let project = project(&[]);
    project.tool("talker.py", TALKER);
    let listener = Arc::new(Listener::default());
    let result = call_heard(
        &project,
        "talker",
        json!({"lines": 100_000}),
        listener.clone(),
    )
    .await;
    assert!(result.success, "{result:?}");
    let logs = listener.logs.lock();
    assert_eq!(
        logs.len(),
        MAX_LOG_LINES + 1,
        "the bound and one counted line"
    );
    assert_eq!(
        logs.last().unwrap().message,
        "99001 more log lines were not shown (a call shows at most 1000)"
    );
}

#[tokio::test]
async fn content_past_the_limit_is_left_out_and_said() {
    let project = project(&[]);
    project.tool(
        "big_image.py",
        r#"
from agent.tools import BaseTool, ToolManifest, ToolResult, Image


class BigImage(BaseTool):
    def manifest(self):
        return ToolManifest(name="big_image", description="a big picture", parameters={})

    def execute(self, params):
        return ToolResult(True, "drawn", content=[Image(b"x" * 500, "image/png"),
                                                  Image(b"y" * 5_000_000, "image/png")])
"#,
    );
    let mut options = options(&project);
    options.limits.max_content_bytes = 4096;
    let registry = riverse_tool::Registry::new(
        riverse_python::python_tools(options).await,
        riverse_tool::RegistryOptions {
            limits: riverse_tool::CallLimits {
                max_content_bytes: 4096,
                ..Default::default()
            },
            ..Default::default()
        },
    );
    let result = super::support::call(&registry, "big_image", json!({})).await;
    assert_eq!(result.content, [Content::image(&[b'x'; 500], "image/png")]);
    assert_eq!(
        result.data,
        "drawn\n[image image/png, 5.0 MB] left out: a result carries at most 4.1 KB of content"
    );
}

#[tokio::test]
async fn bad_content_and_bad_calls_are_named_errors() {
    let project = project(&[]);
    project.tool(
        "bad_content.py",
        r#"
from agent.tools import BaseTool, ToolManifest, ToolResult, Image


class BadContent(BaseTool):
    def manifest(self):
        return ToolManifest(name="bad_content", description="wrong", parameters={"what": "which"})

    def execute(self, params):
        what = params.get("what")
        if what == "str":
            return ToolResult(True, "x", content=[Image("not bytes", "image/png")])
        if what == "level":
            self.log("x", level="loud")
        if what == "progress":
            self.progress("half")
        if what == "nan":
            self.progress(float("nan"))
        if what == "nan_question":
            self.ask("How much?", schema={"type": "object", "properties": {"n": {"default": float("inf")}}})
        return ToolResult(True, "x", content=["a string"])
"#,
    );
    let registry = registry(options(&project)).await;
    let call = |what: &'static str| {
        let registry = registry.clone();
        async move {
            super::support::call(&registry, "bad_content", json!({ "what": what }))
                .await
                .error
        }
    };
    assert_eq!(
        call("str").await,
        "execute() returned a ToolResult whose content[0] has data of type str, expected bytes"
    );
    assert_eq!(
        call("list").await,
        "execute() returned a ToolResult whose content[0] is str, expected Image, Audio or Resource"
    );
    assert!(
        call("level")
            .await
            .contains("log level 'loud' is none of debug, info"),
        "names the level"
    );
    assert!(
        call("progress")
            .await
            .contains("progress(): progress is str, expected a number"),
        "names the value"
    );
    assert!(
        call("nan")
            .await
            .contains("progress(): progress is nan, expected a finite number"),
        "names the value"
    );
    // Not JSON: the tool hears it, and the worker's stream stays whole.
    let not_json = call("nan_question").await;
    assert!(not_json.contains("ValueError"), "{not_json}");
    assert_echo_answers(&registry).await;
}

const PATIENT: &str = r#"
import time
from agent.tools import BaseTool, ToolManifest, ToolResult


class Patient(BaseTool):
    def manifest(self):
        return ToolManifest(name="patient", description="asks, then works",
                            parameters={"work": "seconds of work after the answer"},
                            parameter_types={"work": "float"})

    def execute(self, params):
        action = self.ask("Still there?").action
        time.sleep(params.get("work", 0))
        return ToolResult(True, action)
"#;

/// Answers every question after `delay`.
struct Slow(std::time::Duration);

#[async_trait::async_trait]
impl CallListener for Slow {
    async fn ask(&self, _question: Question) -> Answer {
        tokio::time::sleep(self.0).await;
        Answer::decline()
    }
}

async fn patient_registry(project: &Project) -> riverse_tool::Registry {
    project.tool("patient.py", PATIENT);
    super::support::registry_with(
        options(project),
        super::support::policy(
            "patient",
            riverse_tool::ToolPolicy {
                timeout: Some(std::time::Duration::from_millis(300)),
                ..Default::default()
            },
        ),
    )
    .await
}

#[tokio::test]
async fn waiting_for_the_answer_is_not_the_tools_time() {
    let project = project(&[]);
    let registry = patient_registry(&project).await;
    // The answer comes well after the tool's deadline of 300 ms.
    let context = CallContext::new(Arc::new(Slow(std::time::Duration::from_secs(1))));
    let result = registry
        .call_with("patient", Default::default(), &context)
        .await
        .unwrap();
    assert_eq!(result, ToolResult::ok("decline"));
    assert!(context.time_waiting() >= std::time::Duration::from_secs(1));
}

#[tokio::test]
async fn a_tool_working_past_its_deadline_after_the_answer_times_out() {
    let project = project(&[]);
    let registry = patient_registry(&project).await;
    let context = CallContext::new(Arc::new(Slow(std::time::Duration::ZERO)));
    let Value::Object(params) = json!({"work": 30}) else {
        unreachable!()
    };
    let result = registry
        .call_with("patient", params, &context)
        .await
        .unwrap();
    assert_eq!(result.failure, Some(riverse_tool::FailureKind::Timeout));
    assert_echo_answers(&registry).await;
}

#[tokio::test]
async fn a_flooding_call_does_not_hold_up_another() {
    let project = project(&[]);
    project.tool(
        "flood.py",
        r#"
import os
from agent.tools import BaseTool, ToolManifest, ToolResult


class Flood(BaseTool):
    def manifest(self):
        return ToolManifest(name="flood", description="logs until told to stop",
                            parameters={"stop": "a file whose existence stops it"})

    def execute(self, params):
        n = 0
        while not os.path.exists(params["stop"]):
            self.log(f"line {n}")
            self.progress(n)
            n += 1
        return ToolResult(True, f"{n} lines")
"#,
    );
    let mut options = options(&project);
    options.workers = 2;
    let registry = registry(options).await;
    let listener = Arc::new(Listener::default());
    let context = CallContext::new(listener.clone());
    let stop = project.path().join("stop");
    let Value::Object(params) = json!({ "stop": stop }) else {
        unreachable!()
    };
    let flooding = tokio::spawn({
        let registry = registry.clone();
        async move { registry.call_with("flood", params, &context).await }
    });
    // Until the flood has logged past the bound, so the count line is due.
    let what = format!("the flood to log {MAX_LOG_LINES} lines");
    riverse_test_support::eventually_async(std::time::Duration::from_secs(60), what, || {
        listener.logs.lock().len() >= MAX_LOG_LINES
    })
    .await;
    // The flood is running, and runs until the file exists: echo answers
    // while it does.
    assert_eq!(
        super::support::call(&registry, "echo", json!({"text": "meanwhile"})).await,
        ToolResult::ok("meanwhile")
    );
    assert!(!flooding.is_finished(), "the flood was still running");
    std::fs::write(&stop, "").unwrap();
    assert!(flooding.await.unwrap().unwrap().success);
    let logs = listener.logs.lock();
    assert_eq!(logs.len(), MAX_LOG_LINES + 1);
    assert!(
        logs.last()
            .unwrap()
            .message
            .ends_with("more log lines were not shown (a call shows at most 1000)")
    );
}
