//! The embedded model as a [`Provider`]: no HTTP, no key, works offline.
//!
//! The model routes with its own constrained scoring rather than free text: a
//! request that offers tools and ends with the user's message is answered with
//! at most one tool call; any other request (tool results to explain, or no
//! tools offered) with a short answer grounded in the results. The model is
//! loaded on first use, so commands that never ask it pay nothing.
//!
//! The model runs on blocking threads, at most [`MODEL_JOBS`] jobs at once.
//! A caller that goes away (a client disconnecting, a turn timing out) drops
//! the future awaiting its job, which cancels the job: it stops at its next
//! forward pass, and only then lets the next job start.
//!
//! Every completion reports its [`Usage`], counted with the model's own
//! tokenizer rather than estimated: the prompts it ran the model on (the
//! routing prompts, the reply prompt) and what the model gave after them (the
//! choice and the call's arguments, the reply's generated tokens); see
//! [`crate::RouteReport::usage`]. A reply given without running the model (the
//! results laid out, a fixed reply) adds nothing, so a completion that ran no
//! model at all reports 0 tokens.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use riverse_llm::{
    ChatRequest, ChatResponse, Error, Message, Provider, TextSink, ToolCall, ToolChoice, Usage,
};
use riverse_tool::ToolManifest;
use tokio::sync::{OnceCell, Semaphore, mpsc};

use crate::answer::asks_for_value;
use crate::tuning::MODEL_JOBS;
use crate::{EmbeddedModel, EmbeddedOptions, ModelJob, Route};

pub struct EmbeddedProvider {
    options: EmbeddedOptions,
    /// Added to errors about the model file (see
    /// [`crate::Error::is_about_the_model_file`]): how the caller's
    /// configuration names another file.
    model_file_hint: Option<String>,
    model: OnceCell<EmbeddedModel>,
    /// One permit per model job that may run; a job holds its permit on its
    /// blocking thread until its work has ended.
    jobs: Arc<Semaphore>,
    /// Jobs that stopped because they were cancelled.
    cancelled_jobs: Arc<AtomicUsize>,
}

impl EmbeddedProvider {
    pub fn new(options: EmbeddedOptions) -> Self {
        EmbeddedProvider {
            options,
            model_file_hint: None,
            model: OnceCell::new(),
            jobs: Arc::new(Semaphore::new(MODEL_JOBS)),
            cancelled_jobs: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Model jobs whose work is running now, a cancelled one included until
    /// it has stopped; at most [`MODEL_JOBS`].
    pub fn running_jobs(&self) -> usize {
        MODEL_JOBS - self.jobs.available_permits()
    }

    /// Model jobs so far that stopped early because their caller went away.
    pub fn cancelled_jobs(&self) -> usize {
        self.cancelled_jobs.load(Ordering::Relaxed)
    }

    /// Ends every error about the model file with `hint`, for instance the
    /// setting that names another file.
    pub fn with_model_file_hint(mut self, hint: impl Into<String>) -> Self {
        self.model_file_hint = Some(hint.into());
        self
    }

    /// The model, found (fetched on first use) and loaded off the async threads.
    async fn model(&self) -> Result<EmbeddedModel, Error> {
        let model = self
            .model
            .get_or_try_init(|| {
                let options = self.options.clone();
                self.blocking(move || EmbeddedModel::load(&options))
            })
            .await?;
        Ok(model.clone())
    }

    /// Runs model work as a job on a blocking thread, once a job may run;
    /// dropping the returned future cancels the job. Its failures name the
    /// embedded model.
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> crate::Result<T> + Send + 'static,
    ) -> Result<T, Error> {
        let permit = self
            .jobs
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| Error::Unavailable("the embedded model was shut down".into()))?;
        let job = ModelJob::new();
        let _cancel_on_drop = CancelOnDrop(job.clone());
        let cancelled_jobs = self.cancelled_jobs.clone();
        let running = tokio::task::spawn_blocking(move || {
            let result = job.run(work);
            if matches!(result, Err(crate::Error::Cancelled)) {
                cancelled_jobs.fetch_add(1, Ordering::Relaxed);
            }
            // Only now may the next job start: a job given up on still
            // counts until its work has stopped.
            drop(permit);
            result
        });
        running
            .await
            .map_err(|err| Error::Unavailable(format!("the embedded model stopped: {err}")))?
            .map_err(|err| {
                let hint = match &self.model_file_hint {
                    Some(hint) if err.is_about_the_model_file() => format!(" ({hint})"),
                    _ => String::new(),
                };
                Error::Unavailable(format!("the embedded model failed: {err}{hint}"))
            })
    }
}

#[async_trait::async_trait]
impl Provider for EmbeddedProvider {
    fn describe(&self) -> String {
        match (self.model.get(), &self.options.model_path) {
            (Some(model), _) => format!("the embedded model ({})", model.path().display()),
            (None, Some(path)) => format!("the embedded model ({})", path.display()),
            (None, None) => "the embedded model (SmolLM2-135M-Instruct)".to_owned(),
        }
    }

    async fn complete(
        &self,
        request: ChatRequest<'_>,
        mut on_text: Option<TextSink<'_>>,
    ) -> Result<ChatResponse, Error> {
        let model = self.model().await?;
        let mut routing = Usage::default();
        let (offered, must_call) = offered_tools(&request);
        if let (false, Some(Message::User(message))) = (offered.is_empty(), request.messages.last())
        {
            let (router, asked) = (model.clone(), message.clone());
            let report = self
                .blocking(move || {
                    if must_call {
                        router.route_report_calling(&asked, &offered)
                    } else {
                        router.route_report(&asked, &offered)
                    }
                })
                .await?;
            routing = report.usage;
            // The tool asked for lacks a value: ask for it.
            let question = report.short_of.as_ref().and_then(|short| {
                let tool = request.tools.iter().find(|tool| tool.name == short.tool)?;
                let about = tool.parameters.get(&short.missing)?;
                Some(asks_for_value(message, &tool.name, &short.missing, about))
            });
            // A message that joins several requests calls a tool for each.
            let tool_calls: Vec<ToolCall> = std::iter::once(report.route)
                .chain(report.further)
                .filter_map(|route| match route {
                    Route::None => None,
                    Route::Call { tool, params } => Some((tool, params)),
                })
                .enumerate()
                .map(|(index, (tool, params))| ToolCall {
                    id: call_id(request.messages.len(), index),
                    name: tool,
                    arguments: serde_json::Value::Object(params).to_string(),
                })
                .collect();
            if !tool_calls.is_empty() {
                return Ok(ChatResponse {
                    tool_calls,
                    usage: Some(routing),
                    ..ChatResponse::default()
                });
            }
            if let Some(text) = question {
                if let Some(sink) = on_text.as_mut() {
                    sink(&text);
                }
                return Ok(ChatResponse {
                    text,
                    usage: Some(routing),
                    ..ChatResponse::default()
                });
            }
        }
        let conversation = request.messages.to_vec();
        let tools = request.tools.to_vec();
        let (pieces_tx, mut pieces) = mpsc::unbounded_channel::<String>();
        let answering = self.blocking(move || {
            model.answer_with_usage(&conversation, &tools, &mut |piece: &str| {
                let _ = pieces_tx.send(piece.to_owned());
            })
        });
        tokio::pin!(answering);
        let (text, answered) = loop {
            tokio::select! {
                Some(piece) = pieces.recv() => {
                    if let Some(sink) = on_text.as_mut() {
                        sink(&piece);
                    }
                }
                answered = &mut answering => break answered?,
            }
        };
        // Pieces sent just before the answer finished.
        while let Ok(piece) = pieces.try_recv() {
            if let Some(sink) = on_text.as_mut() {
                sink(&piece);
            }
        }
        Ok(ChatResponse {
            text,
            tool_calls: Vec::new(),
            usage: Usage::sum(Some(routing), Some(answered)),
        })
    }
}

/// The id of a turn's `index`th call, after `messages` messages: the first
/// keeps the id a single call has always had.
fn call_id(messages: usize, index: usize) -> String {
    match index {
        0 => format!("call_{messages}"),
        _ => format!("call_{messages}_{index}"),
    }
}

/// The tools a request lets the model call, and whether it must call one.
fn offered_tools(request: &ChatRequest<'_>) -> (Vec<ToolManifest>, bool) {
    match request.tool_choice {
        ToolChoice::Auto => (request.tools.to_vec(), false),
        ToolChoice::None => (Vec::new(), false),
        ToolChoice::Required => (request.tools.to_vec(), true),
        ToolChoice::Function(name) => {
            let named = request.tools.iter().filter(|tool| tool.name == *name);
            (named.cloned().collect(), true)
        }
    }
}

/// Cancels a job when the future awaiting it is dropped (or has its result,
/// when cancelling changes nothing).
struct CancelOnDrop(ModelJob);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}
