//! What a tool says and asks while it runs: progress, log lines, a question
//! to the person behind the front end, a completion from an LLM.
//!
//! Every source hands what its tool sends to the call's [`CallContext`],
//! which keeps the bounds (so no source, and no tool, can flood a front end)
//! and passes the rest to the [`CallListener`] the front end gave the call.

mod listener;
mod messages;

use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use tokio::sync::watch;

use crate::approval::{Approval, ApprovalRequest};
use crate::text::shorten;
use listener::Nobody;
pub use listener::{CallListener, Sampler, SamplesOnly};
pub use messages::{Answer, AnswerAction, LogLevel, LogLine, Progress, Question, SampleRequest};

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

/// One call's channel to its front end, bounded. Cheap to clone; clones are
/// the same call.
#[derive(Clone)]
pub struct CallContext {
    inner: Arc<Inner>,
}

struct Inner {
    listener: Arc<dyn CallListener>,
    /// Where the call came from, for hooks; `None` when nobody said.
    origin: Option<CallOrigin>,
    state: Mutex<State>,
    /// True once the call has ended: questions and samples in flight are
    /// cancelled, and nothing more is passed on.
    ended: watch::Sender<bool>,
    /// The call's deadline, in place of its tool's `timeout`.
    timeout: Option<Duration>,
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

/// Where a call came from: the front end (`call`, `ask`, `chat`, `mcp`, `serve`,
/// …) and the conversation it belongs to, when it has one. Hooks see them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CallOrigin {
    pub front_end: String,
    pub conversation: Option<String>,
}

tokio::task_local! {
    /// The origin of the calls whose contexts are made in a task
    /// ([`CallOrigin::scope`]).
    static ORIGIN: CallOrigin;
}

impl CallOrigin {
    pub fn new(front_end: &str, conversation: Option<&str>) -> Self {
        CallOrigin {
            front_end: front_end.to_owned(),
            conversation: conversation.map(str::to_owned),
        }
    }

    /// Runs `future` so that the calls whose contexts it makes
    /// ([`CallContext::new`]) come from this origin: a front end wraps its
    /// turn in it.
    pub async fn scope<F: Future>(self, future: F) -> F::Output {
        ORIGIN.scope(self, future).await
    }

    /// Runs `run` with this origin as the task's ([`CallOrigin::current`]),
    /// for a front end that starts its turn in a task of its own.
    pub fn in_scope<R>(self, run: impl FnOnce() -> R) -> R {
        ORIGIN.sync_scope(self, run)
    }

    /// The origin the current task runs in, if any.
    pub fn current() -> Option<CallOrigin> {
        ORIGIN.try_with(CallOrigin::clone).ok()
    }
}

impl CallContext {
    /// A call heard by `listener`, from the origin of the task it is made
    /// in ([`CallOrigin::scope`]), if any.
    pub fn new(listener: Arc<dyn CallListener>) -> Self {
        CallContext::with_origin(listener, ORIGIN.try_with(CallOrigin::clone).ok())
    }

    /// A call from `origin`, when it is known.
    pub fn with_origin(listener: Arc<dyn CallListener>, origin: Option<CallOrigin>) -> Self {
        CallContext {
            inner: Arc::new(Inner {
                listener,
                origin,
                state: Mutex::new(State::default()),
                ended: watch::Sender::new(false),
                timeout: None,
            }),
        }
    }

    /// The call runs under `timeout` rather than its tool's `timeout` (a
    /// call that may become a task, under `background.timeout`). Set as the
    /// context is made, before it is shared.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.timeout = Some(timeout);
        }
        self
    }

    /// The call's own deadline, when it has one in place of its tool's.
    pub fn timeout(&self) -> Option<Duration> {
        self.inner.timeout
    }

    /// A call nobody listens to: progress and logs go nowhere, questions are
    /// cancelled, samples fail.
    pub fn none() -> Self {
        CallContext::new(Arc::new(Nobody))
    }

    /// Where the call came from, when its front end said.
    pub fn origin(&self) -> Option<&CallOrigin> {
        self.inner.origin.as_ref()
    }

    pub fn has_ended(&self) -> bool {
        *self.inner.ended.borrow()
    }

    /// The call now runs as the task `task_id` of the server that serves
    /// its tool (an MCP server's task), which can be asked about it later.
    pub fn handed_over(&self, task_id: &str) {
        if !self.has_ended() {
            self.inner.listener.handed_over(task_id);
        }
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
        question.scrub_secrets();
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
    pub async fn sample(&self, mut request: SampleRequest) -> Result<String, String> {
        request.scrub_secrets();
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

/// A message as passed on: secrets taken out, then cut to the bound.
fn bounded(text: &str) -> String {
    let text = riverse_secrets::scrub(text);
    if text.len() <= MAX_MESSAGE_CHARS {
        return text.into_owned();
    }
    shorten(&text, MAX_MESSAGE_CHARS)
}

#[cfg(test)]
mod tests;
