//! What a turn's running tools say and ask, as turn events.
//!
//! Each call of a round gets a [`CallContext`] whose listener turns its
//! progress, log lines and questions into [`TurnEvent`]s on a channel the
//! round drains between results, so a front end sees them in its one event
//! sink; samples go to the agent's own LLM.

use std::sync::Arc;

use parking_lot::Mutex;
use riverse_llm::{ChatRequest, Message, Provider};
use riverse_tool::{
    Answer, CallContext, CallListener, LogLine, Progress, Question, SampleRequest, Sampler,
};
use tokio::sync::{mpsc, oneshot};

use super::TurnEvent;
use super::background::TaskReports;

/// The answer to a tool's question, for the front end to give once. Every
/// clone is the same reply; when all are dropped unanswered, or the call
/// ends first, the tool reads a cancel.
#[derive(Clone)]
pub struct QuestionReply {
    sender: Arc<Mutex<Option<oneshot::Sender<Answer>>>>,
}

impl QuestionReply {
    /// A reply and where its answer arrives (an error there: withdrawn or
    /// dropped unanswered, which a tool reads as a cancel).
    pub fn channel() -> (QuestionReply, oneshot::Receiver<Answer>) {
        let (sender, receiver) = oneshot::channel();
        let reply = QuestionReply {
            sender: Arc::new(Mutex::new(Some(sender))),
        };
        (reply, receiver)
    }

    /// Gives the answer; false when it was given already or nobody waits
    /// for it any more (the call ended).
    pub fn answer(&self, answer: Answer) -> bool {
        match self.sender.lock().take() {
            Some(sender) => sender.send(answer).is_ok(),
            None => false,
        }
    }

    /// Whether the tool still waits for this answer.
    pub fn is_open(&self) -> bool {
        self.sender
            .lock()
            .as_ref()
            .is_some_and(|sender| !sender.is_closed())
    }
}

impl std::fmt::Debug for QuestionReply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QuestionReply")
            .field("open", &self.is_open())
            .finish()
    }
}

impl PartialEq for QuestionReply {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.sender, &other.sender)
    }
}

/// One call's listener: its events go to the round's channel.
struct RoundListener {
    call_id: String,
    tool: String,
    events: mpsc::UnboundedSender<TurnEvent>,
    sampler: Arc<dyn Sampler>,
}

#[async_trait::async_trait]
impl CallListener for RoundListener {
    fn progress(&self, progress: &Progress) {
        let _ = self.events.send(TurnEvent::ToolProgress {
            call_id: self.call_id.clone(),
            tool: self.tool.clone(),
            progress: progress.clone(),
        });
    }

    fn log(&self, line: &LogLine) {
        let _ = self.events.send(TurnEvent::ToolLog {
            call_id: self.call_id.clone(),
            tool: self.tool.clone(),
            line: line.clone(),
        });
    }

    async fn ask(&self, question: Question) -> Answer {
        let (reply, answered) = QuestionReply::channel();
        let asked = self.events.send(TurnEvent::ToolQuestion {
            call_id: self.call_id.clone(),
            tool: self.tool.clone(),
            question,
            reply,
        });
        if asked.is_err() {
            return Answer::cancel();
        }
        answered.await.unwrap_or_else(|_| Answer::cancel())
    }

    async fn sample(&self, request: SampleRequest) -> Result<String, String> {
        self.sampler.sample(request).await
    }
}

/// The context of one call of a round.
pub(super) fn call_context(
    call_id: &str,
    tool: &str,
    events: &mpsc::UnboundedSender<TurnEvent>,
    sampler: &Arc<dyn Sampler>,
) -> CallContext {
    CallContext::new(Arc::new(RoundListener {
        call_id: call_id.to_owned(),
        tool: tool.to_owned(),
        events: events.clone(),
        sampler: sampler.clone(),
    }))
}

/// `self.sample` answered by a provider: the agent's own LLM.
pub struct ProviderSampler {
    provider: Arc<dyn Provider>,
}

impl ProviderSampler {
    pub fn new(provider: Arc<dyn Provider>) -> Self {
        ProviderSampler { provider }
    }
}

#[async_trait::async_trait]
impl Sampler for ProviderSampler {
    async fn sample(&self, request: SampleRequest) -> Result<String, String> {
        let mut messages = Vec::new();
        if let Some(system) = request.system {
            messages.push(Message::System(system));
        }
        messages.push(Message::User(request.prompt));
        let request = ChatRequest {
            messages: &messages,
            tools: &[],
            temperature: None,
            max_tokens: request.max_tokens,
            tool_choice: &riverse_llm::ToolChoice::Auto,
            parallel_tool_calls: None,
        };
        match self.provider.complete(request, None).await {
            Ok(response) => Ok(response.text),
            Err(err) => Err(format!("{}: {err}", self.provider.describe())),
        }
    }
}

/// A background call's listener: as a round call's, and what outlives the
/// round (its last progress, the server's task it became) kept in `kept`.
struct TaskListener {
    round: RoundListener,
    kept: TaskReports,
}

#[async_trait::async_trait]
impl CallListener for TaskListener {
    fn progress(&self, progress: &Progress) {
        self.kept.progress(progress);
        self.round.progress(progress);
    }

    fn log(&self, line: &LogLine) {
        self.round.log(line);
    }

    fn handed_over(&self, task_id: &str) {
        self.kept.handed_over(task_id);
    }

    /// The turn's front end answers while the round runs; once it has
    /// ended, whoever answers the task's questions does.
    async fn ask(&self, question: Question) -> Answer {
        if self.round.events.is_closed() {
            return self.kept.ask(question).await;
        }
        self.round.ask(question).await
    }

    async fn sample(&self, request: SampleRequest) -> Result<String, String> {
        self.round.sample(request).await
    }
}

/// The context of a call of a round that may become a task: what outlives
/// the round also goes to `kept`.
pub(super) fn task_context(
    call_id: &str,
    tool: &str,
    events: &mpsc::UnboundedSender<TurnEvent>,
    sampler: &Arc<dyn Sampler>,
    kept: TaskReports,
) -> CallContext {
    CallContext::new(Arc::new(TaskListener {
        round: RoundListener {
            call_id: call_id.to_owned(),
            tool: tool.to_owned(),
            events: events.clone(),
            sampler: sampler.clone(),
        },
        kept,
    }))
}

/// A call outside any turn: only what a task keeps is heard.
pub(super) struct TaskOnly(pub TaskReports);

#[async_trait::async_trait]
impl CallListener for TaskOnly {
    fn progress(&self, progress: &Progress) {
        self.0.progress(progress);
    }

    fn handed_over(&self, task_id: &str) {
        self.0.handed_over(task_id);
    }

    async fn ask(&self, question: Question) -> Answer {
        self.0.ask(question).await
    }
}
