//! What a tool says and asks while it runs: progress, log lines, a question
//! to the person behind the front end, a completion from an LLM.
//!
//! Every source hands what its tool sends to the call's [`CallContext`],
//! which keeps the bounds (so no source, and no tool, can flood a front end)
//! and passes the rest to the [`CallListener`] the front end gave the call.

use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio::sync::watch;

use crate::approval::{Approval, ApprovalRequest};
use crate::text::shorten;

/// Log lines passed on per call; past it they are counted, and the count is
/// said in one last line when the call ends.
pub const MAX_LOG_LINES: usize = 1000;
/// The longest log line, progress message or question passed on, in
/// characters.
pub const MAX_MESSAGE_CHARS: usize = 4096;
/// The longest a question or a sample may wait on its front end (then it is
/// a cancel; a sample, an error), and the most waiting a call is excused in
/// all: sources hold a call's deadline to its own time, which leaves out
/// waiting up to this ([`CallContext::time_used`]).
pub const MAX_WAIT: Duration = Duration::from_secs(30 * 60);
/// The largest question schema passed on, as JSON; a larger question is a
/// cancel, and the call logs why.
pub const MAX_SCHEMA_BYTES: usize = 64 * 1024;
/// Progress updates closer together than this are not passed on, except the
/// first that completes (`progress >= total`).
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(50);

/// A log line's severity: MCP's (syslog's) eight levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogLevel {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

impl LogLevel {
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The level a name names (`warn` too); `None` for an unknown one.
    pub fn from_name(name: &str) -> Option<LogLevel> {
        let name = name.trim().to_ascii_lowercase();
        if name == "warn" {
            return Some(LogLevel::Warning);
        }
        LogLevel::ALL
            .into_iter()
            .find(|level| level.as_str() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }
}

/// `self.progress(progress, total, message)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub progress: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl Progress {
    fn is_complete(&self) -> bool {
        // NaN compares false: never complete.
        self.total.is_some_and(|total| self.progress >= total)
    }
}

/// `self.log(message, level)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLine {
    pub level: LogLevel,
    pub message: String,
}

/// `self.ask(message, fields, schema)`: what to ask, and the JSON Schema of
/// the answer (an object of flat properties, as MCP's elicitation takes it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Question {
    pub message: String,
    pub schema: Value,
    /// Set when the host asks whether a call may run (an approval), not the
    /// tool: front ends show it as yes or no.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<ApprovalRequest>,
}

impl Question {
    /// The answer's fields in order, each with its description.
    pub fn fields(&self) -> Vec<(String, String)> {
        let Some(Value::Object(properties)) = self.schema.get("properties") else {
            return Vec::new();
        };
        properties
            .iter()
            .map(|(name, property)| {
                let description = property
                    .get("description")
                    .or_else(|| property.get("title"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                (name.clone(), description.to_owned())
            })
            .collect()
    }
}

/// What the person did with a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerAction {
    Accept,
    Decline,
    /// Nobody answered: no one to ask, no terminal, the deadline passed, the
    /// call was stopped.
    Cancel,
}

/// `Answer(action, content)` as the tool reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    pub action: AnswerAction,
    #[serde(default)]
    pub content: Map<String, Value>,
    /// Why nobody answered, when a front end can say (a cancel only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Answer {
    pub fn cancel() -> Self {
        Answer {
            action: AnswerAction::Cancel,
            content: Map::new(),
            reason: None,
        }
    }

    /// A cancel that says why nobody could answer.
    pub fn unanswered(reason: impl Into<String>) -> Self {
        Answer {
            reason: Some(reason.into()),
            ..Answer::cancel()
        }
    }

    pub fn decline() -> Self {
        Answer {
            action: AnswerAction::Decline,
            content: Map::new(),
            reason: None,
        }
    }

    pub fn accept(content: Map<String, Value>) -> Self {
        Answer {
            action: AnswerAction::Accept,
            content,
            reason: None,
        }
    }
}

/// `self.sample(prompt, max_tokens, system)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleRequest {
    pub prompt: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
}

/// The front end's side of a call. Each method has the answer of a front end
/// that has nobody to show or ask: nothing shown, a cancel, no LLM.
#[async_trait::async_trait]
pub trait CallListener: Send + Sync {
    fn progress(&self, _progress: &Progress) {}
    fn log(&self, _line: &LogLine) {}
    async fn ask(&self, _question: Question) -> Answer {
        Answer::cancel()
    }
    /// Whether a call that needs approval may run. By default the request
    /// is a question ([`ApprovalRequest::question`]): an accept is a yes (for
    /// the session when its content says `for_session: true`), a decline a
    /// no, a cancel no answer.
    async fn approve(&self, request: ApprovalRequest) -> Approval {
        match request.question() {
            Ok(question) => Approval::from_answer(&self.ask(question).await),
            Err(unshown) => Approval::Unanswered(unshown.to_string()),
        }
    }
    /// A completion, or why there is none.
    async fn sample(&self, _request: SampleRequest) -> Result<String, String> {
        Err("no LLM is there to sample from".into())
    }
}

/// An LLM a front end falls back on for `self.sample` when its client
/// offers none: Riverse's own (the embedded model included).
#[async_trait::async_trait]
pub trait Sampler: Send + Sync {
    async fn sample(&self, request: SampleRequest) -> Result<String, String>;
}

/// A front end with nobody to show or ask, but an LLM for samples: a call
/// made straight through an API (`POST /v1/tools/{name}/call`).
pub struct SamplesOnly(pub Arc<dyn Sampler>);

#[async_trait::async_trait]
impl CallListener for SamplesOnly {
    async fn approve(&self, _request: ApprovalRequest) -> Approval {
        Approval::Unanswered("a direct call has nobody to ask".into())
    }

    async fn sample(&self, request: SampleRequest) -> Result<String, String> {
        self.0.sample(request).await
    }
}

/// Nobody listens: what a call made without a front end gets.
struct Nobody;

#[async_trait::async_trait]
impl CallListener for Nobody {
    async fn approve(&self, _request: ApprovalRequest) -> Approval {
        Approval::Unanswered("nobody is there to ask".into())
    }
}

/// The field of an approval's accept that makes it a yes for the session.
pub const FOR_SESSION: &str = "for_session";

impl Approval {
    /// What an answer to [`ApprovalRequest::question`] decided.
    pub fn from_answer(answer: &Answer) -> Approval {
        match answer.action {
            AnswerAction::Accept if answer.content.get(FOR_SESSION) == Some(&Value::Bool(true)) => {
                Approval::ApprovedForSession
            }
            AnswerAction::Accept => Approval::Approved,
            AnswerAction::Decline => Approval::Declined,
            AnswerAction::Cancel => Approval::Unanswered(
                answer
                    .reason
                    .clone()
                    .unwrap_or_else(|| "nobody answered".to_owned()),
            ),
        }
    }
}

/// One call's channel to its front end, bounded. Cheap to clone; clones are
/// the same call.
#[derive(Clone)]
pub struct CallContext {
    inner: Arc<Inner>,
}

struct Inner {
    listener: Arc<dyn CallListener>,
    state: Mutex<State>,
    /// True once the call has ended: questions and samples in flight are
    /// cancelled, and nothing more is passed on.
    ended: watch::Sender<bool>,
}

#[derive(Default)]
struct State {
    logs_passed: usize,
    logs_dropped: usize,
    last_progress: Option<Instant>,
    /// The last update passed on completed the call's progress.
    completed: bool,
    /// Questions and samples in flight, since when, and how long the ones
    /// before took: the time the call waited on its front end.
    waits: usize,
    waiting_since: Option<Instant>,
    waited: Duration,
}

/// Counts a question or a sample as waiting on the front end while it lives.
struct Waiting<'a>(&'a Mutex<State>);

impl<'a> Waiting<'a> {
    fn start(state: &'a Mutex<State>) -> Self {
        let mut locked = state.lock();
        if locked.waits == 0 {
            locked.waiting_since = Some(Instant::now());
        }
        locked.waits += 1;
        Waiting(state)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        let mut state = self.0.lock();
        state.waits -= 1;
        if state.waits == 0
            && let Some(since) = state.waiting_since.take()
        {
            state.waited += since.elapsed();
        }
    }
}

impl Default for CallContext {
    fn default() -> Self {
        CallContext::none()
    }
}

impl std::fmt::Debug for CallContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallContext")
            .field("ended", &self.has_ended())
            .finish_non_exhaustive()
    }
}

impl CallContext {
    pub fn new(listener: Arc<dyn CallListener>) -> Self {
        CallContext {
            inner: Arc::new(Inner {
                listener,
                state: Mutex::new(State::default()),
                ended: watch::Sender::new(false),
            }),
        }
    }

    /// A call nobody listens to: progress and logs go nowhere, questions are
    /// cancelled, samples fail.
    pub fn none() -> Self {
        CallContext::new(Arc::new(Nobody))
    }

    pub fn has_ended(&self) -> bool {
        *self.inner.ended.borrow()
    }

    pub fn progress(&self, mut progress: Progress) {
        if self.has_ended() || !progress.progress.is_finite() {
            return;
        }
        {
            let mut state = self.inner.state.lock();
            let now = Instant::now();
            let recent = state
                .last_progress
                .is_some_and(|last| now.duration_since(last) < PROGRESS_INTERVAL);
            let completes = progress.is_complete() && !state.completed;
            if recent && !completes {
                return;
            }
            state.last_progress = Some(now);
            state.completed = progress.is_complete();
        }
        progress.total = progress.total.filter(|total| total.is_finite());
        progress.message = progress.message.map(|message| bounded(&message));
        self.inner.listener.progress(&progress);
    }

    pub fn log(&self, level: LogLevel, message: &str) {
        if self.has_ended() {
            return;
        }
        {
            let mut state = self.inner.state.lock();
            if state.logs_passed >= MAX_LOG_LINES {
                state.logs_dropped += 1;
                return;
            }
            state.logs_passed += 1;
        }
        let line = LogLine {
            level,
            message: bounded(message),
        };
        self.inner.listener.log(&line);
    }

    /// Counts log lines the source did not send, past the bound (a Python
    /// worker keeps it too); the call's last line says how many.
    pub fn logs_not_sent(&self, count: usize) {
        let mut state = self.inner.state.lock();
        state.logs_dropped = state.logs_dropped.saturating_add(count);
    }

    /// How long the call has waited on its front end so far: for answers to
    /// its questions and for samples. A source does not count it against the
    /// call's deadline: a person takes the time they take.
    pub fn time_waiting(&self) -> Duration {
        let state = self.inner.state.lock();
        state.waited
            + state
                .waiting_since
                .map_or(Duration::ZERO, |since| since.elapsed())
    }

    /// The tool's own time since `started`: what passed, less the time it
    /// waited on its front end. Sources hold a call's deadline to this.
    pub fn time_used(&self, started: Instant) -> Duration {
        started
            .elapsed()
            .saturating_sub(self.time_waiting().min(MAX_WAIT))
    }

    /// Runs `call` until it ends or has used `timeout` of its own time (see
    /// [`CallContext::time_used`]); `None` past that.
    pub async fn within<F: Future>(&self, timeout: Duration, call: F) -> Option<F::Output> {
        let started = Instant::now();
        let mut call = std::pin::pin!(call);
        loop {
            let left = timeout.saturating_sub(self.time_used(started));
            if left.is_zero() {
                return None;
            }
            if let Ok(output) = tokio::time::timeout(left, &mut call).await {
                return Some(output);
            }
        }
    }

    /// Asks the front end; a cancel once the call has ended.
    pub async fn ask(&self, mut question: Question) -> Answer {
        question.message = bounded(&question.message);
        let schema_bytes =
            serde_json::to_string(&question.schema).map_or(usize::MAX, |json| json.len());
        if schema_bytes > MAX_SCHEMA_BYTES {
            self.log(
                LogLevel::Warning,
                &format!(
                    "a question was not asked: its schema of {schema_bytes} bytes is over the {MAX_SCHEMA_BYTES} a question may have"
                ),
            );
            return Answer::cancel();
        }
        let mut ended = self.inner.ended.subscribe();
        if *ended.borrow() {
            return Answer::cancel();
        }
        let _waiting = Waiting::start(&self.inner.state);
        tokio::select! {
            answer = self.inner.listener.ask(question) => answer,
            _ = ended.wait_for(|ended| *ended) => Answer::cancel(),
            () = tokio::time::sleep(MAX_WAIT) => Answer::cancel(),
        }
    }

    /// Asks the front end whether a call may run; no answer once the call
    /// has ended, past [`MAX_WAIT`], or when its arguments can't each be
    /// shown to the person asked ([`ApprovalRequest::shown_arguments`]).
    pub async fn approve(&self, request: ApprovalRequest) -> Approval {
        // Here rather than in each front end: one that renders the request
        // its own way is held to the same rule.
        if let Err(unshown) = request.shown_arguments() {
            return Approval::Unanswered(unshown.to_string());
        }
        let mut ended = self.inner.ended.subscribe();
        if *ended.borrow() {
            return Approval::Unanswered("the call ended first".into());
        }
        tokio::select! {
            approval = self.inner.listener.approve(request) => approval,
            _ = ended.wait_for(|ended| *ended) => Approval::Unanswered("the call ended first".into()),
            () = tokio::time::sleep(MAX_WAIT) => {
                Approval::Unanswered(format!("nobody answered in {}", crate::seconds(MAX_WAIT)))
            }
        }
    }

    /// Asks the front end's LLM; fails once the call has ended.
    pub async fn sample(&self, request: SampleRequest) -> Result<String, String> {
        let mut ended = self.inner.ended.subscribe();
        if *ended.borrow() {
            return Err("the call has ended".into());
        }
        let _waiting = Waiting::start(&self.inner.state);
        tokio::select! {
            completion = self.inner.listener.sample(request) => completion,
            _ = ended.wait_for(|ended| *ended) => Err("the call has ended".into()),
            () = tokio::time::sleep(MAX_WAIT) => {
                Err(format!("no completion came in {}", crate::seconds(MAX_WAIT)))
            }
        }
    }

    /// Ends the call: says how many log lines were not passed on, cancels
    /// what is in flight, and passes nothing more. Later calls do nothing.
    pub fn end(&self) {
        if self.inner.ended.send_replace(true) {
            return;
        }
        let dropped = self.inner.state.lock().logs_dropped;
        if dropped > 0 {
            self.inner.listener.log(&LogLine {
                level: LogLevel::Warning,
                message: format!(
                    "{dropped} more log lines were not shown (a call shows at most {MAX_LOG_LINES})"
                ),
            });
        }
    }
}

/// Ends its call when dropped: when the call finishes, and when it is
/// stopped (its future dropped by a deadline or a Ctrl-C).
pub struct EndOnDrop(pub CallContext);

impl Drop for EndOnDrop {
    fn drop(&mut self) {
        self.0.end();
    }
}

fn bounded(text: &str) -> String {
    if text.len() <= MAX_MESSAGE_CHARS {
        return text.to_owned();
    }
    shorten(text, MAX_MESSAGE_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[derive(Default)]
    struct Heard {
        logs: Mutex<Vec<LogLine>>,
        progress: Mutex<Vec<Progress>>,
    }

    #[async_trait::async_trait]
    impl CallListener for Heard {
        fn progress(&self, progress: &Progress) {
            self.progress.lock().push(progress.clone());
        }
        fn log(&self, line: &LogLine) {
            self.logs.lock().push(line.clone());
        }
        async fn ask(&self, _question: Question) -> Answer {
            std::future::pending().await
        }
    }

    #[test]
    fn a_flood_of_log_lines_is_cut_and_counted() {
        let heard = Arc::new(Heard::default());
        let context = CallContext::new(heard.clone());
        for n in 0..MAX_LOG_LINES + 250 {
            context.log(LogLevel::Info, &format!("line {n}"));
        }
        context.log(LogLevel::Info, &"x".repeat(10 * MAX_MESSAGE_CHARS));
        context.end();
        context.log(LogLevel::Info, "after the end");
        let logs = heard.logs.lock();
        assert_eq!(logs.len(), MAX_LOG_LINES + 1);
        assert_eq!(
            logs[MAX_LOG_LINES - 1].message,
            format!("line {}", MAX_LOG_LINES - 1)
        );
        assert_eq!(
            logs[MAX_LOG_LINES].message,
            "251 more log lines were not shown (a call shows at most 1000)"
        );
    }

    #[test]
    fn a_long_line_is_shortened() {
        let heard = Arc::new(Heard::default());
        let context = CallContext::new(heard.clone());
        context.log(LogLevel::Info, &"x".repeat(10 * MAX_MESSAGE_CHARS));
        assert!(heard.logs.lock()[0].message.len() < 2 * MAX_MESSAGE_CHARS);
    }

    #[test]
    fn progress_in_a_burst_passes_its_first_and_its_completion() {
        let heard = Arc::new(Heard::default());
        let context = CallContext::new(heard.clone());
        for step in 0..=10_000 {
            context.progress(Progress {
                progress: f64::from(step),
                total: Some(10_000.0),
                message: None,
            });
        }
        let progress = heard.progress.lock();
        assert_eq!(progress.first().unwrap().progress, 0.0);
        assert_eq!(progress.last().unwrap().progress, 10_000.0);
        assert!(progress.len() < 10_001, "{} updates passed", progress.len());
    }

    #[test]
    fn completions_past_the_first_are_throttled_too() {
        let heard = Arc::new(Heard::default());
        let context = CallContext::new(heard.clone());
        for _ in 0..10_000 {
            context.progress(Progress {
                progress: 1.0,
                total: Some(1.0),
                message: Some("x".repeat(100)),
            });
        }
        assert!(
            heard.progress.lock().len() < 100,
            "{} passed",
            heard.progress.lock().len()
        );
        context.progress(Progress {
            progress: f64::NAN,
            total: None,
            message: None,
        });
        assert!(heard.progress.lock().iter().all(|p| p.progress == 1.0));
    }

    #[tokio::test]
    async fn an_oversized_question_is_a_cancel_and_says_why() {
        let heard = Arc::new(Heard::default());
        let context = CallContext::new(heard.clone());
        let choices: Vec<String> = (0..20_000).map(|n| format!("choice {n}")).collect();
        let question = Question {
            message: "Which?".into(),
            schema: serde_json::json!({"type": "object", "properties": {"pick": {"enum": choices}}}),
            approval: None,
        };
        assert_eq!(context.ask(question).await, Answer::cancel());
        assert!(
            heard.logs.lock()[0]
                .message
                .starts_with("a question was not asked: its schema of")
        );
    }

    #[tokio::test]
    async fn a_question_in_flight_is_cancelled_when_the_call_ends() {
        let context = CallContext::new(Arc::new(Heard::default()));
        let asking = tokio::spawn({
            let context = context.clone();
            async move {
                context
                    .ask(Question {
                        message: "Overwrite?".into(),
                        schema: serde_json::json!({"type": "object", "properties": {}}),
                        approval: None,
                    })
                    .await
            }
        });
        tokio::task::yield_now().await;
        drop(EndOnDrop(context.clone()));
        assert_eq!(asking.await.unwrap(), Answer::cancel());
        assert!(context.has_ended());
    }

    #[tokio::test]
    async fn nobody_cancels_questions_and_fails_samples() {
        let context = CallContext::none();
        let question = Question {
            message: "?".into(),
            schema: serde_json::json!({}),
            approval: None,
        };
        assert_eq!(context.ask(question).await.action, AnswerAction::Cancel);
        let sample = SampleRequest {
            prompt: "hi".into(),
            system: None,
            max_tokens: None,
        };
        assert!(context.sample(sample).await.is_err());
    }

    /// Says yes to every approval it is asked for, and counts them.
    #[derive(Default)]
    struct YesToAll(Mutex<usize>);

    #[async_trait::async_trait]
    impl CallListener for YesToAll {
        async fn approve(&self, _request: ApprovalRequest) -> Approval {
            *self.0.lock() += 1;
            Approval::Approved
        }
    }

    // Issue 41: a front end with its own way of showing a call is held to
    // showing each argument too.
    #[tokio::test]
    async fn a_call_with_too_many_arguments_to_show_is_refused_without_asking() {
        let person = Arc::new(YesToAll::default());
        let context = CallContext::new(person.clone());
        let arguments: crate::Params = (0..200)
            .map(|n| (format!("a{n}"), serde_json::json!(n)))
            .collect();
        let request = ApprovalRequest {
            tool: "t".into(),
            arguments,
            rule: "tools.t.approval".into(),
        };
        let Approval::Unanswered(why) = context.approve(request).await else {
            panic!("a call with 200 arguments was approved");
        };
        assert!(
            why.starts_with("its 200 arguments are too many to show"),
            "{why}"
        );
        assert_eq!(*person.0.lock(), 0, "the person was asked");
    }

    #[test]
    fn levels_read_by_name() {
        assert_eq!(LogLevel::from_name("WARN"), Some(LogLevel::Warning));
        assert_eq!(LogLevel::from_name("debug"), Some(LogLevel::Debug));
        assert_eq!(LogLevel::from_name("loud"), None);
        assert!(LogLevel::Error > LogLevel::Info);
    }

    /// Answers every question after a while.
    struct Slow(Duration);

    #[async_trait::async_trait]
    impl CallListener for Slow {
        async fn ask(&self, _question: Question) -> Answer {
            tokio::time::sleep(self.0).await;
            Answer::decline()
        }
    }

    #[tokio::test]
    async fn time_spent_waiting_on_the_front_end_is_not_the_calls() {
        let context = CallContext::new(Arc::new(Slow(Duration::from_millis(300))));
        let question = Question {
            message: "?".into(),
            schema: serde_json::json!({}),
            approval: None,
        };
        let asked = context
            .within(Duration::from_millis(100), context.ask(question))
            .await;
        assert_eq!(asked, Some(Answer::decline()));
        assert!(context.time_waiting() >= Duration::from_millis(300));
        let working = context
            .within(
                Duration::from_millis(100),
                tokio::time::sleep(Duration::from_secs(60)),
            )
            .await;
        assert_eq!(working, None, "the call's own time ran out");
    }
}
