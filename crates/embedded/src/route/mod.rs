//! Routing: which tool a message calls, and with which parameters, such that
//! the answer is always a valid call.
//!
//! Two stages. The choice stage scores every tool name (and `none`) as the
//! model's reply on a few-shot prompt, calibrated against content-free
//! messages, and adds the character n-gram similarity between the message and
//! each tool's description and examples; `none` wins unless a tool beats it.
//! The parameter stage fills the chosen tool's declared parameters (see
//! [`fill`]): numbers by constrained decoding, strings together, by scoring
//! the candidate spans that `riverse-route`'s text rules allow as each
//! parameter's value. Both prompts' fixed parts are prefilled once per tool
//! set and forked per message.

mod assign;
mod choose;
mod date_parts;
mod date_spans;
mod dates;
mod days;
mod decision;
mod doings;
mod fill;
mod fits;
mod focus;
mod forms;
mod implied;
mod labelled;
mod listed;
mod money;
mod norms;
mod pairs;
mod prompt;
pub(crate) mod reach;
mod signs;
mod speech;
mod values;
mod verb_object;
mod weekdays;
mod written;
mod years;

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use chrono::NaiveDate;
use riverse_llm::Usage;
use riverse_route::{
    Actions, MessageForm, asking_sentence, asks_general, message_form, missing_required,
    names_record, offered_actions, reports_absence, reports_loss, reports_trouble, request_parts,
    requested_actions, works_on,
};
use riverse_tool::{Params, ToolManifest};
use serde_json::Value;

use crate::error::Result;
use crate::inference::engine::{Engine, State};
use crate::inference::prompt_cache::PromptCache;
use crate::tuning::{KEPT_PREFIXES, ROUTED_CUT_BACKOFF_CHARS, ROUTED_MESSAGE_CHARS};

pub use choose::CandidateScore;
use choose::ChoicePrefix;
use decision::{best_tool, decide};
use doings::{asks_whether_done, reports_doing, reports_marked_state};
use reach::Asked;
use values::ValueTokens;

/// What a message asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Route {
    /// No tool: answer directly.
    None,
    /// Call `tool` (one of the offered manifests' names) with `params`, which
    /// holds only parameters that tool declares, each of its declared type.
    Call { tool: String, params: Params },
}

/// A call the message asked for that lacks a value its tool requires: the
/// tool and the parameter the message gives no value for.
#[derive(Debug, Clone, PartialEq)]
pub struct ShortCall {
    pub tool: String,
    pub missing: String,
}

/// A routing decision with the scores behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteReport {
    pub route: Route,
    /// When no call is made because the tool chosen first lacks a required
    /// value: that tool and the value, so the answer can ask for it rather
    /// than say no tool serves the message.
    pub short_of: Option<ShortCall>,
    /// The calls of the further requests a message joins to its first
    /// ("What time is it in London, and how many pounds is 3 kg?"), each a
    /// [`Route::Call`]; empty for a message that asks one thing.
    pub further: Vec<Route>,
    /// Every offered tool, then `none`.
    pub scores: Vec<CandidateScore>,
    /// The message's form, which sets how far ahead of `none` a tool must be.
    pub form: MessageForm,
    /// The tokens routing read and gave. Prompt: the choice prompt, and the
    /// parameter prompt when the chosen tool has parameters, each whole (a
    /// prefix prefilled earlier included). Completion: the choice as scored
    /// (the tool's name, or `none`), and the call's arguments as JSON when
    /// they were filled; each choice weighed, when a call lacking a
    /// required parameter gave way to the next. All 0 when no tool was offered: nothing ran.
    pub usage: Usage,
}

impl RouteReport {
    /// Whether `route` is already among this report's calls (or is none).
    fn calls(&self, route: &Route) -> bool {
        *route == Route::None || self.route == *route || self.further.contains(route)
    }
}

/// Routing state shared by every call on one model: prefilled prompts and
/// token tables.
#[derive(Default)]
pub(crate) struct Router {
    choices: Recent<ChoicePrefix>,
    params: Recent<State>,
    value_tokens: OnceLock<ValueTokens>,
    /// Where prefilled prompts are kept between processes, if anywhere.
    disk: Option<PromptCache>,
}

impl Router {
    pub fn new(disk: Option<PromptCache>) -> Self {
        Router {
            disk,
            ..Router::default()
        }
    }

    /// `must_call`: one of `tools` is called even when `none` wins; days
    /// the message names relative to `today` are dated as of it.
    ///
    /// A message that joins several requests ("X, and Y?") has each routed
    /// on its own: the first call is the report's route, the others its
    /// `further` calls, and a part no tool serves is left out. When no part
    /// calls a tool, the message is routed whole.
    pub fn route(
        &self,
        engine: &Engine,
        message: &str,
        tools: &[ToolManifest],
        must_call: bool,
        today: NaiveDate,
    ) -> Result<RouteReport> {
        let message = routed_part(message);
        let parts = request_parts(message);
        if must_call || tools.is_empty() || parts.len() < 2 {
            return self.route_one(engine, message, tools, must_call, today);
        }
        let mut first: Option<RouteReport> = None;
        let mut usage = Usage::default();
        for part in parts {
            let report = self.route_one(engine, part, tools, false, today)?;
            usage = Usage::sum(Some(usage), Some(report.usage)).unwrap_or_default();
            match &mut first {
                None if report.route != Route::None => first = Some(report),
                Some(first) if !first.calls(&report.route) => {
                    first.further.push(report.route);
                }
                _ => {}
            }
        }
        match first {
            Some(mut report) => {
                report.usage = usage;
                Ok(report)
            }
            None => self.route_one(engine, message, tools, false, today),
        }
    }

    /// The route of one request.
    fn route_one(
        &self,
        engine: &Engine,
        message: &str,
        tools: &[ToolManifest],
        must_call: bool,
        today: NaiveDate,
    ) -> Result<RouteReport> {
        if tools.is_empty() {
            return Ok(RouteReport {
                route: Route::None,
                short_of: None,
                further: Vec::new(),
                scores: Vec::new(),
                form: message_form(message),
                usage: Usage::default(),
            });
        }
        let choice = self.choice_prefix(engine, tools)?;
        // A required call takes the best tool whatever it offers.
        let (mut requested, mut asked) = match must_call {
            true => (Actions::default(), Asked::default()),
            false => (requested_actions(message), Asked::of(message)),
        };
        // Details around the asking sentence do not make it a remark.
        let mut form = message_form(asking_sentence(message));
        // A report of a doing asks a recording tool to record it: a request
        // to create, not a remark, and the day it names is the doing's.
        if !must_call && requested.is_empty() && reports_doing(message, form) {
            form = MessageForm::Request;
            requested = requested_actions("record");
            asked.past = false;
        }
        // A record said to be sold, paid or done asks the tool that marks
        // it so to mark it.
        if !must_call && requested.is_empty() && reports_marked_state(message, form, tools) {
            form = MessageForm::Request;
            requested = requested_actions("mark");
        }
        // A question whether a thing was done asks to read its record.
        if !must_call && requested.is_empty() && asks_whether_done(message, form) {
            requested = requested_actions("check");
        }
        // A report of something broken, lost or stolen asks for it to be
        // reported: a request to create one (a repair request, a ticket, a
        // loss report), or for a lost thing, to block it. When it happened
        // ("yesterday") asks for no history.
        let fault = form != MessageForm::Question && reports_trouble(message);
        if !must_call && requested.is_empty() && fault {
            form = MessageForm::Request;
            requested = requested_actions("submit");
            if reports_loss(message) {
                requested = requested.union(requested_actions("block"));
            }
            asked.past = false;
        }
        // A word that one will not attend asks to tell of the absence, or
        // to cancel or move what one would have attended; nothing to read.
        let absent = form != MessageForm::Question && reports_absence(message);
        if !must_call && requested.is_empty() && absent {
            form = MessageForm::Request;
            requested = ["submit", "cancel", "reschedule"]
                .into_iter()
                .fold(requested, |found, verb| {
                    found.union(requested_actions(verb))
                });
            asked.past = false;
        }
        // A question of what is usual or wise in general names no record.
        let general = asks_general(message) && !names_record(message);
        let (mut scores, mut prompt_tokens) =
            choice.score(engine, message, requested, &asked, today)?;
        // `none` is the last candidate.
        let none = choice.candidates.len().saturating_sub(1);
        let mut reply_tokens = 0;
        let mut short_of: Option<ShortCall> = None;
        // A call without a parameter its tool requires is not made: a tool
        // short of what it works on (its record's identifier) is out of the
        // running, and the next best is weighed; one short of another
        // required value is no call at all.
        let route = loop {
            let decided = decide(&scores, form, general)
                .or_else(|| must_call.then(|| best_tool(&scores)).flatten());
            let Some(index) = decided else {
                reply_tokens += choice.reply_tokens(none);
                break Route::None;
            };
            reply_tokens += choice.reply_tokens(index);
            let tool = &tools[index];
            let (params, params_prompt) = self.fill_params(engine, tool, message, today)?;
            if params_prompt > 0 {
                let arguments = Value::Object(params.clone()).to_string();
                prompt_tokens += params_prompt;
                reply_tokens += engine.tokenizer.encode(&arguments)?.len();
            }
            let missing = missing_required(tool, &params);
            if must_call || (missing.is_none() && !idle(tool, &params, requested, message)) {
                break Route::Call {
                    tool: tool.name.clone(),
                    params,
                };
            }
            scores[index].incomplete = true;
            if let Some(missing) = &missing {
                short_of.get_or_insert_with(|| ShortCall {
                    tool: tool.name.clone(),
                    missing: missing.clone(),
                });
            }
            // The tool asked for, short of a value its manifest requires:
            // no call, rather than another tool's.
            if missing.is_some_and(|name| !works_on(tool, &name)) {
                reply_tokens += choice.reply_tokens(none);
                break Route::None;
            }
        };
        Ok(RouteReport {
            short_of: short_of.filter(|_| route == Route::None),
            route,
            further: Vec::new(),
            scores,
            form,
            usage: Usage::new(prompt_tokens as u64, reply_tokens as u64),
        })
    }

    fn choice_prefix(&self, engine: &Engine, tools: &[ToolManifest]) -> Result<Arc<ChoicePrefix>> {
        let key = fingerprint(&prompt::choice_prefix(tools));
        if let Some(found) = self.choices.recall(key) {
            return Ok(found);
        }
        // Built outside the lock: a second tool set need not wait for the
        // first, and two callers building the same prefix only waste time.
        let built = Arc::new(ChoicePrefix::build(engine, tools, self.disk.as_ref())?);
        self.choices.remember(key, built.clone());
        Ok(built)
    }

    fn params_prefix(&self, engine: &Engine, tool: &ToolManifest) -> Result<Arc<State>> {
        let text = prompt::params_prefix(tool);
        let key = fingerprint(&text);
        if let Some(found) = self.params.recall(key) {
            return Ok(found);
        }
        let disk_key = format!("params\n{text}");
        let layers = engine.weights.config.layers;
        let built = match self
            .disk
            .as_ref()
            .and_then(|disk| disk.load(&disk_key, layers))
        {
            Some((state, _)) => Arc::new(state),
            None => {
                let state = engine.prefill(&text)?;
                if let Some(disk) = &self.disk {
                    disk.save(&disk_key, &state, &[]);
                }
                Arc::new(state)
            }
        };
        self.params.remember(key, built.clone());
        Ok(built)
    }

    /// The parameters of `tool` for `message`, and the tokens of the
    /// parameter prompt (0 when the tool has none, and none ran).
    fn fill_params(
        &self,
        engine: &Engine,
        tool: &ToolManifest,
        message: &str,
        today: NaiveDate,
    ) -> Result<(Params, usize)> {
        if tool.parameters.is_empty() {
            return Ok((Params::new(), 0));
        }
        let tokens = match self.value_tokens.get() {
            Some(tokens) => tokens,
            None => {
                let built = ValueTokens::new(engine)?;
                self.value_tokens.get_or_init(|| built)
            }
        };
        let prefix = self.params_prefix(engine, tool)?;
        fill::fill_params(engine, tokens, &prefix, tool, message, today)
    }
}

/// Whether a call of `tool` with `params` would change things on nothing
/// the message gave: the tool changes things (by its manifest), declares
/// parameters, got none of them, and the message does not name an action
/// it offers ("Compare today's dollar rate with last month's" gives
/// `order_history` nothing; "Deploy" asks `deploy` to run as it is). A
/// tool that reads runs on its defaults ("What time is it?").
///
/// A message that writes a number the tool took none of gives it nothing
/// either, whatever action it names ("Move 500 from checking to savings"
/// gives a savings rate, a fraction, no value).
fn idle(tool: &ToolManifest, params: &Params, requested: Actions, message: &str) -> bool {
    let offered = offered_actions(tool);
    offered.changes()
        && !tool.parameters.is_empty()
        && params.is_empty()
        && (!offered.meets(requested) || message.chars().any(|c| c.is_ascii_digit()))
}

/// The start of `message` that routing reads: at most
/// [`ROUTED_MESSAGE_CHARS`] characters, cut before the word the limit falls
/// in when a space comes within [`ROUTED_CUT_BACKOFF_CHARS`] before it (a
/// part of a word would be offered as a value), else at the limit.
pub(crate) fn routed_part(message: &str) -> &str {
    let message = message.trim_start();
    let Some((limit, _)) = message.char_indices().nth(ROUTED_MESSAGE_CHARS) else {
        return message;
    };
    let head = &message[..limit];
    if message[limit..].starts_with(char::is_whitespace) {
        return head;
    }
    let nearest_space = head
        .char_indices()
        .rev()
        .take(ROUTED_CUT_BACKOFF_CHARS)
        .find(|(_, character)| character.is_whitespace());
    match nearest_space {
        Some((space, _)) if space > 0 => head[..space].trim_end(),
        _ => head,
    }
}

fn fingerprint(text: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

/// The last [`KEPT_PREFIXES`] values used, by key, most recently used last.
struct Recent<T> {
    entries: Mutex<Vec<(u64, Arc<T>)>>,
}

impl<T> Default for Recent<T> {
    fn default() -> Self {
        Recent {
            entries: Mutex::new(Vec::new()),
        }
    }
}

impl<T> Recent<T> {
    /// The entries; a panic elsewhere while they were held left them whole
    /// (every change is one push or remove), so poisoning is ignored.
    fn entries(&self) -> MutexGuard<'_, Vec<(u64, Arc<T>)>> {
        self.entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn recall(&self, key: u64) -> Option<Arc<T>> {
        let mut entries = self.entries();
        let index = entries.iter().position(|(k, _)| *k == key)?;
        let entry = entries.remove(index);
        let found = entry.1.clone();
        entries.push(entry);
        Some(found)
    }

    fn remember(&self, key: u64, value: Arc<T>) {
        let mut entries = self.entries();
        entries.retain(|(k, _)| *k != key);
        entries.push((key, value));
        if entries.len() > KEPT_PREFIXES {
            entries.remove(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_on_nothing_the_message_gave_is_idle_unless_its_action_is_asked() {
        let tool = ToolManifest {
            name: "order_history".into(),
            description: "Past orders of a customer.".into(),
            parameters: [("customer".to_owned(), "Customer ID".to_owned())]
                .into_iter()
                .collect(),
            ..ToolManifest::default()
        };
        let nothing = Params::new();
        let compare = requested_actions("Compare today's dollar to yen rate with last month's");
        assert!(idle(&tool, &nothing, compare, ""));
        let mut given = Params::new();
        given.insert("customer".into(), Value::from("4411"));
        assert!(!idle(&tool, &given, compare, ""));
        let deploy = ToolManifest {
            name: "deploy".into(),
            description: "Deploy a branch of a service.".into(),
            parameters: [("branch".to_owned(), "Git branch (default: main)".to_owned())]
                .into_iter()
                .collect(),
            ..ToolManifest::default()
        };
        assert!(!idle(
            &deploy,
            &nothing,
            requested_actions("Deploy it"),
            "Deploy it"
        ));
        let move_500 = "Move 500 from checking to savings";
        assert!(idle(
            &deploy,
            &nothing,
            requested_actions("Deploy"),
            move_500
        ));
        let clock = ToolManifest {
            name: "clock".into(),
            description: "Get the current date and time.".into(),
            parameters: [("timezone".to_owned(), "IANA time zone".to_owned())]
                .into_iter()
                .collect(),
            ..ToolManifest::default()
        };
        assert!(!idle(
            &clock,
            &nothing,
            requested_actions("What time is it?"),
            "What time is it?"
        ));
        let bare = ToolManifest {
            name: "clock".into(),
            description: "Current time.".into(),
            ..ToolManifest::default()
        };
        assert!(!idle(&bare, &nothing, Actions::default(), ""));
    }

    #[test]
    fn routing_reads_the_start_of_a_long_message_up_to_a_word() {
        let short = "What time is it in Tokyo?";
        assert_eq!(routed_part(short), short);
        let long = format!(
            "What time is it in Tokyo? {}",
            "lorem ipsum ".repeat(100_000)
        );
        let part = routed_part(&long);
        assert!(part.starts_with(short), "{part}");
        assert!(part.chars().count() <= ROUTED_MESSAGE_CHARS, "{part}");
        assert!(
            part.ends_with("lorem") || part.ends_with("ipsum"),
            "cut between words: {part:?}"
        );
        let japanese = "東京".repeat(1000);
        assert_eq!(routed_part(&japanese).chars().count(), ROUTED_MESSAGE_CHARS);
        // A lead-in with spaces, then text without any: the text is kept up
        // to the limit, not dropped back to the lead-in.
        let lead_in = format!("Translate to English: {}", "東京".repeat(1000));
        let part = routed_part(&lead_in);
        assert_eq!(part.chars().count(), ROUTED_MESSAGE_CHARS, "{part}");
        assert!(part.starts_with("Translate to English: 東京"), "{part}");
        // Spaces before the message, then one long word: not an empty part.
        let one_word = format!("   {}", "x".repeat(500));
        assert_eq!(routed_part(&one_word).chars().count(), ROUTED_MESSAGE_CHARS);
    }
}
