//! Background calls: a call of a tool with `tools.<name>.background` still
//! running after `after` becomes a task. The same call future goes on in a
//! task of its own (never restarted), bounded by the tool's deadline as
//! before; the model reads that the work started, with the task's id, and
//! the turn goes on to its answer. When the task ends, a front end gives its
//! result to the model in a follow-up turn ([`Agent::follow_up`]).
//!
//! Cancelling a task drops its call, which stops it as a deadline does: the
//! Python host kills the worker's process group, an MCP server is sent
//! `notifications/cancelled`, a command's process group is killed.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use riverse_llm::{Message, ToolCall};
use riverse_tool::{
    Answer, Arguments, CallContext, CallOrigin, CallRecord, FailureKind, Params, Progress,
    Question, Registry, ToolResult,
};
use tokio::sync::{mpsc, watch};

use super::listening::{QuestionReply, TaskOnly};
use super::reply::ToolReply;
use super::{Agent, EventSink, ToolUse, Turn, TurnError};

/// What a cancelled task's call reads as.
pub const CANCELLED: &str = "the task was cancelled before it ended";

/// A call running in the background. Cheap to clone; every clone is the
/// same task.
#[derive(Clone)]
pub struct BackgroundTask(Arc<Inner>);

struct Inner {
    id: String,
    call_id: String,
    tool: String,
    params: Params,
    ended: watch::Receiver<Option<TaskEnd>>,
    heard: TaskHeard,
    abort: tokio::task::AbortHandle,
}

/// Where a task's call reports what outlives its turn: its last progress,
/// the server's task it became ([`CallContext::handed_over`]), and the
/// questions it asks once its turn has ended.
pub(crate) struct TaskReports {
    progress: watch::Sender<Option<Progress>>,
    handed_over: watch::Sender<Option<String>>,
    asker: Asker,
}

/// A question a task's call asks after its turn ended, and where its
/// answer goes.
pub type TaskQuestion = (Question, QuestionReply);

/// Where a task's questions go, once a front end said it answers them
/// ([`BackgroundTask::ask_through`]); until then they are cancelled.
type Asker = Arc<parking_lot::Mutex<Option<mpsc::UnboundedSender<TaskQuestion>>>>;

/// What a task reads of its call's reports.
pub(crate) struct TaskHeard {
    progress: watch::Receiver<Option<Progress>>,
    handed_over: watch::Receiver<Option<String>>,
    asker: Asker,
}

impl TaskReports {
    /// The two ends of a task's reports; `handed_over` set when its call is
    /// known to run as a server's task already.
    pub(crate) fn new(handed_over: Option<String>) -> (TaskReports, TaskHeard) {
        let (progress, progress_heard) = watch::channel(None);
        let (handed_over, handed_over_heard) = watch::channel(handed_over);
        let asker = Asker::default();
        let reports = TaskReports {
            progress,
            handed_over,
            asker: asker.clone(),
        };
        let heard = TaskHeard {
            progress: progress_heard,
            handed_over: handed_over_heard,
            asker,
        };
        (reports, heard)
    }

    pub(crate) fn progress(&self, progress: &Progress) {
        self.progress.send_replace(Some(progress.clone()));
    }

    pub(crate) fn handed_over(&self, task_id: &str) {
        self.handed_over.send_replace(Some(task_id.to_owned()));
    }

    /// Asks `question` of whoever answers the task's questions; a cancel
    /// when nobody does.
    pub(crate) async fn ask(&self, question: Question) -> Answer {
        let asker = self.asker.lock().clone();
        let Some(asker) = asker else {
            return Answer::cancel();
        };
        let (reply, answered) = QuestionReply::channel();
        if asker.send((question, reply)).is_err() {
            return Answer::cancel();
        }
        answered.await.unwrap_or_else(|_| Answer::cancel())
    }
}

/// How a task ended.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskEnd {
    /// The call's result; for a cancelled task, a failure saying so.
    pub result: ToolResult,
    /// How long the call ran, from its start in its turn.
    pub ran: Duration,
    /// Cancelled ([`BackgroundTask::cancel`]) rather than ended by its tool.
    pub cancelled: bool,
}

impl BackgroundTask {
    /// Runs `call` (the call `call_id` of `tool` with `params`) in a task of
    /// its own, as the task `id`; `started` is when the call began, `heard`
    /// what its context reports.
    pub(crate) fn spawn(
        id: String,
        call_id: &str,
        tool: &str,
        params: Params,
        started: Instant,
        heard: TaskHeard,
        call: impl Future<Output = ToolResult> + Send + 'static,
    ) -> BackgroundTask {
        let (sender, ended) = watch::channel(None);
        let running = async move {
            let result = call.await;
            let end = TaskEnd {
                result,
                ran: started.elapsed(),
                cancelled: false,
            };
            sender.send_replace(Some(end));
        };
        let running = tracing::Instrument::instrument(running, tracing::Span::current());
        let handle = match CallOrigin::current() {
            Some(origin) => tokio::spawn(origin.scope(running)),
            None => tokio::spawn(running),
        };
        BackgroundTask(Arc::new(Inner {
            id,
            call_id: call_id.to_owned(),
            tool: tool.to_owned(),
            params,
            ended,
            heard,
            abort: handle.abort_handle(),
        }))
    }

    /// A new task id: `task_` and 32 hex digits.
    pub fn new_id() -> String {
        format!("task_{}", uuid::Uuid::new_v4().simple())
    }

    pub fn id(&self) -> &str {
        &self.0.id
    }

    /// The id of the model's call it runs.
    pub fn call_id(&self) -> &str {
        &self.0.call_id
    }

    pub fn tool(&self) -> &str {
        &self.0.tool
    }

    pub fn params(&self) -> &Params {
        &self.0.params
    }

    /// The call's last progress (`self.progress`), changing as it comes.
    pub fn progress(&self) -> watch::Receiver<Option<Progress>> {
        self.0.heard.progress.clone()
    }

    /// The id of the task of its tool's server that the call became, once
    /// it has become one (an MCP server's task), changing as it comes.
    pub fn handed_over(&self) -> watch::Receiver<Option<String>> {
        self.0.heard.handed_over.clone()
    }

    /// Has the questions the call asks from now on, its turn having ended,
    /// sent to `asker` to be answered; without it they are cancelled.
    pub fn ask_through(&self, asker: mpsc::UnboundedSender<TaskQuestion>) {
        *self.0.heard.asker.lock() = Some(asker);
    }

    /// Stops the call; [`BackgroundTask::ended`] then says it was cancelled.
    /// A task that has ended stays as it ended.
    pub fn cancel(&self) {
        self.0.abort.abort();
    }

    /// Whether the task has ended (or was cancelled).
    pub fn is_finished(&self) -> bool {
        self.0.abort.is_finished()
    }

    /// Waits for the task's end.
    pub async fn ended(&self) -> TaskEnd {
        let mut ended = self.0.ended.clone();
        match ended.wait_for(Option::is_some).await {
            Ok(end) => end.clone().unwrap_or_else(cancelled),
            // The call was dropped before it ended: cancelled.
            Err(_) => cancelled(),
        }
    }

    /// The record of the call as it ended with `end`.
    pub fn record(&self, end: &TaskEnd) -> CallRecord {
        let params = Arguments::Object(self.0.params.clone());
        CallRecord::finished(
            &self.0.call_id,
            &self.0.tool,
            params,
            end.result.clone(),
            end.ran,
        )
    }
}

fn cancelled() -> TaskEnd {
    TaskEnd {
        result: ToolResult::failed(FailureKind::Denied, CANCELLED),
        ran: Duration::ZERO,
        cancelled: true,
    }
}

impl fmt::Debug for BackgroundTask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BackgroundTask")
            .field("id", &self.0.id)
            .field("call_id", &self.0.call_id)
            .field("tool", &self.0.tool)
            .finish_non_exhaustive()
    }
}

/// Two handles are equal when they are of the same task.
impl PartialEq for BackgroundTask {
    fn eq(&self, other: &Self) -> bool {
        self.0.id == other.0.id
    }
}

/// What the model reads for a call that became the task `id`.
pub(crate) fn started_reply(id: &str, tool: &str) -> String {
    format!(
        "The call of {tool} is still running, now in the background as task {id}. \
         Its result will be given to you when it ends: tell the user the work \
         started, and do not call {tool} again for it."
    )
}

impl Agent {
    /// How long a call of `tool` runs in its turn before it becomes a task;
    /// `None` for a tool without `tools.<name>.background`.
    pub fn background_after(&self, tool: &str) -> Option<Duration> {
        self.options.background.get(tool).map(|b| b.after)
    }

    /// The deadline of a call of `tool` that may become a task
    /// (`tools.<name>.background.timeout`), when it has one of its own.
    pub(crate) fn task_timeout(&self, tool: &str) -> Option<Duration> {
        self.options.background.get(tool).and_then(|b| b.timeout)
    }

    /// A context for a call of `tool` outside any turn, reporting to
    /// `reports`, under the tool's task deadline.
    fn task_only_context(&self, tool: &str, reports: TaskReports) -> CallContext {
        let context = CallContext::new(Arc::new(TaskOnly(reports)));
        match self.task_timeout(tool) {
            Some(timeout) => context.with_timeout(timeout),
            None => context,
        }
    }

    /// Whether any tool has `tools.<name>.background`: calls may become
    /// tasks.
    pub fn has_background_tools(&self) -> bool {
        !self.options.background.is_empty()
    }

    /// Whether a task of `tool` left running by a Riverse that stopped is
    /// run again (`tools.<name>.background.rerun`).
    pub fn reruns(&self, tool: &str) -> bool {
        self.options.background.get(tool).is_some_and(|b| b.rerun)
    }

    /// Starts the call `call_id` of `tool` again, as the task `id`, outside
    /// any turn (its progress is kept on the task; its questions are
    /// cancelled).
    pub fn rerun(&self, id: String, call_id: &str, tool: &str, params: Params) -> BackgroundTask {
        let registry = self.registry();
        let name = tool.to_owned();
        let call_id_owned = call_id.to_owned();
        let call_params = params.clone();
        let (reports, heard) = TaskReports::new(None);
        let context = self.task_only_context(tool, reports);
        let call = async move {
            call_registry(&registry, &name, &call_id_owned, call_params, &context).await
        };
        BackgroundTask::spawn(id, call_id, tool, params, Instant::now(), heard, call)
    }

    /// Follows again, as the task `id` outside any turn, the call `call_id`
    /// of `tool` that had become the task `handed_over` of its tool's server
    /// before Riverse stopped ([`riverse_tool::Registry::resume`]).
    pub fn resume(
        &self,
        id: String,
        call_id: &str,
        tool: &str,
        params: Params,
        handed_over: &str,
    ) -> BackgroundTask {
        let registry = self.registry();
        let name = tool.to_owned();
        let server_task = handed_over.to_owned();
        let (reports, heard) = TaskReports::new(Some(server_task.clone()));
        let context = self.task_only_context(tool, reports);
        let call = async move {
            match registry.resume(&name, &server_task, &context).await {
                Ok(result) => result,
                Err(error) => ToolResult::from(riverse_tool::CallFailure::from(error)),
            }
        };
        BackgroundTask::spawn(id, call_id, tool, params, Instant::now(), heard, call)
    }

    /// A turn that answers from `result`, the result of the task `task_id`
    /// (a call of `tool` with `params`), after `history`: the task's call
    /// and its result are given to the model as the last exchange, under the
    /// task's id, and the model answers from them (or calls more tools).
    /// The turn's messages begin with that exchange.
    pub async fn follow_up(
        &self,
        history: &[Message],
        task_id: &str,
        tool: &str,
        params: &Params,
        result: &ToolResult,
        on_event: EventSink<'_>,
    ) -> Result<Turn, TurnError> {
        let max_bytes = self.registry().limits().max_output_bytes;
        let reply = ToolReply::of(self.options.language, tool, result, max_bytes);
        let exchange = [
            Message::Assistant {
                content: String::new(),
                tool_calls: vec![ToolCall {
                    id: task_id.to_owned(),
                    name: tool.to_owned(),
                    arguments: serde_json::Value::Object(params.clone()).to_string(),
                }],
            },
            Message::Tool {
                call_id: task_id.to_owned(),
                content: reply.content,
                failed: reply.failed,
            },
        ];
        let mut history = history.to_vec();
        history.extend(exchange.iter().cloned());
        let mut turn = self
            .turn_with(&history, None, &ToolUse::default(), on_event)
            .await?;
        // What the turn adds to the conversation starts with the exchange.
        turn.messages.splice(0..0, exchange);
        Ok(turn)
    }
}

/// One call of `name` through `registry`, every error a failed result.
pub(crate) async fn call_registry(
    registry: &Registry,
    name: &str,
    call_id: &str,
    params: Params,
    context: &CallContext,
) -> ToolResult {
    use riverse_tool::{CallError, CallFailure};
    match registry
        .call_with_id(name, Some(call_id), params, context)
        .await
    {
        Ok(result) => result,
        Err(error @ CallError::UnknownTool(_)) => {
            let offered = registry
                .available_manifests()
                .map(|m| m.name.clone())
                .collect();
            ToolResult::from(CallFailure::NotCallable {
                error,
                offered: Some(offered),
            })
        }
        Err(error) => ToolResult::from(CallFailure::from(error)),
    }
}
