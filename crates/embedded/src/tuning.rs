//! Every number the embedded model's routing and answers were tuned with, in
//! one table: what it does, why it has its value, and what measured it.
//!
//! Routing quality is measured by `examples/route_eval.rs` (see
//! docs/performance.md) and restraint by `examples/restraint_eval.rs` (see
//! docs/embedded-model.md); constants that change routing were chosen on its
//! `dev` split only, and the `test` split reports them. "Not measured" means
//! the value was set by reasoning alone; it is a candidate for a sweep on
//! the dev split.
//!
//! The word lists routing consults are data files of `riverse-route`
//! (`crates/route/data/`).

use riverse_route::RequestLength;

// Choosing the tool (route/choose.rs).

/// How strongly similarity counts against calibrated log-probabilities: a
/// perfect textual match is worth this many nats. Chosen with
/// [`CALL_MARGIN`] on the dev split; neighbouring values (6 to 10 with a
/// margin of 3 to 5) scored within a case or two of it, and 12 instead of 8
/// gained most with the glossary (docs/performance.md).
pub const SIMILARITY_WEIGHT: f32 = 12.0;

/// A tool must beat `none` by this much (in combined units) to be called.
/// The model gives every tool a positive calibrated score for almost any
/// real sentence, small talk included, so a tool has to be clearly ahead.
/// Chosen with [`SIMILARITY_WEIGHT`] on the dev split.
pub const CALL_MARGIN: f32 = 4.0;

/// What a tool must win by beyond [`CALL_MARGIN`] when the message is a
/// statement ("The weather has been lovely lately", 最近いい天気が続いてるね):
/// a statement about a tool's topic asks for nothing, and the model scores
/// it for the topic's tool as readily as a question. Chosen on the dev
/// splits (small talk and both routing splits): 2, 4, 6 and 8 sent 30, 34,
/// 35 and 36 of 40 small-talk messages to no tool, costing no tool message;
/// more gained nothing.
pub const STATEMENT_MARGIN: f32 = 8.0;

/// What a tool must win by beyond [`CALL_MARGIN`] when the message is a
/// fragment without a verb ("weather in Paris", "ok cool"): usually a terse
/// request, sometimes an interjection. Chosen on the dev splits: 2 sent
/// one more small-talk message to no tool but lost a call to a tool without
/// examples, whose imperatives ("Track FedEx …") are fragments.
pub const FRAGMENT_MARGIN: f32 = 0.0;

/// What a tool must win by beyond the other margins when the message asks
/// what is usual or wise in general ("how long does a PCR run usually
/// take?", 鱼得了白点病怎么办？: see `riverse_route::asks_general`) and
/// names no record: what holds for anyone is seldom in a tool's records,
/// though the message names a tool's subject. Chosen on the read splits
/// (fresh 11 to 18): 2 to 12 turned 9 to 11 wrong calls into none and cost
/// at most one right call; 6 is the middle of that plateau.
pub const GENERAL_MARGIN: f32 = 6.0;

/// What a tool that changes things (creates, sends, removes…: see
/// `riverse_route::Actions::changes`) must win by beyond the other margins
/// when the message names none of its actions: a question or a remark
/// about a tool's subject ("Who has the Atlas room booked?", "I keep
/// snoozing every reminder") is no request to change anything, and a wrong
/// change is worse than no call. Set to [`STATEMENT_MARGIN`] by reasoning
/// (the same doubt: a message that asks for nothing of the tool); checked
/// on the dev splits (docs/embedded-model.md).
pub const CHANGE_MARGIN: f32 = 8.0;

/// What a tool gains in the choice when the request opens with the verb
/// its name opens with ("stop session S-77812" for `stop_charging` beside
/// `list_sessions`, "moved S-009912 to freezer F3" for `move_sample`): the
/// author named the tool by that action. Chosen on the read splits (4, 6,
/// 8 and 12 moved the same requests, none for the worse; 6 kept).
pub const NAME_VERB_BONUS: f32 = 6.0;

/// What a tool gains in the choice when the message has a token of a shape
/// its manifest writes (a path for a file reader, an expression for a
/// calculator), in combined units: such a token says more than words do.
/// Set to the call margin by reasoning, not swept.
pub const SHAPE_CHOICE_BONUS: f32 = 4.0;

/// What a tool gains in the choice when the message names a word of its
/// name, or a glossary concept one names ("logs" for `search_logs`,
/// "dollars" or ドル for `convert_currency`), in combined units: the name is
/// the most specific text a manifest has, and the model alone often
/// prefers a tool whose name the message does not mention ("grep the
/// gateway logs" went to `timestamp_to_date`). Not given to a statement,
/// which asks nothing of the tool it names. Set to
/// [`SHAPE_CHOICE_BONUS`] by reasoning (evidence of the same weight);
/// checked on the dev splits (docs/embedded-model.md).
pub const NAME_CHOICE_BONUS: f32 = 4.0;

/// What a tool gains in the choice when the message names one of the
/// options a parameter of it lists ("savings" of an account that is "one
/// of: checking, savings, credit_card"): a value the tool takes, as
/// specific as a word of its name but shared by every tool that lists
/// it. Half of [`NAME_CHOICE_BONUS`] by reasoning; checked on the dev
/// splits (docs/embedded-model.md).
pub const OPTION_CHOICE_BONUS: f32 = 2.0;

/// Added to a tool's choice score for each kind of value the message
/// writes that its parameters take: a day, a measure in a parameter's unit,
/// a record's number (see `route::fits`).
pub const FIT_CHOICE_BONUS: f32 = 2.0;

/// Candidates scored in full per batch while pruning: a batch costs one
/// forward pass whatever its size, so a few at a time avoids a second pass.
/// Speed only: pruning picks the same winner whatever the batch (a unit test
/// checks it against full scoring). Not measured against other sizes.
pub const PRUNE_BATCH: usize = 3;

/// Examples shown per tool in the choice prompt; more cost prompt tokens for
/// little gain once every tool has one or two. Not measured.
pub const SHOTS_PER_TOOL: usize = 2;

/// Longest description or example kept in a prompt, in characters; a tool
/// author's essay would crowd out the rest. Not measured: no manifest of
/// the evaluation comes near it.
pub const MAX_TEXT_CHARS: usize = 200;

/// The most of a message routing reads, in characters: its start, the
/// rest being dropped before anything looks at it. The routing prompts show
/// the model no more of it than this (the [`MAX_TEXT_CHARS`] clip), so a
/// value is only ever copied from text the model has read, and a message of
/// a megabyte costs what one of this length does: finding and scoring the
/// candidate values of all of it grew faster than its length. Requests are
/// short: the longest message of the evaluation has 96 characters.
pub const ROUTED_MESSAGE_CHARS: usize = MAX_TEXT_CHARS;

/// How far back from [`ROUTED_MESSAGE_CHARS`] a cut looks for a space, in
/// characters: far enough for any word, near enough that the text of a
/// message without spaces (Japanese after an English lead-in, a long URL)
/// is cut at the limit rather than dropped back to the lead-in.
pub const ROUTED_CUT_BACKOFF_CHARS: usize = 32;

/// Prefilled prompts (choice and parameter prefixes) kept per process, most
/// recently used last. Memory against re-prefilling: one entry is a few MB
/// of keys and values. Not measured.
pub const KEPT_PREFIXES: usize = 8;

// Filling parameter values (route/fill.rs, route/values.rs).

/// How much less likely a value is made when it lies before the previous
/// parameter's value, in nats. Authors declare parameters in the order
/// people say them ("30 miles to km": value, from, to), so a value found
/// after the previous one is the better guess; the model alone often swaps
/// such pairs. Chosen on the dev split.
pub const ORDER_PENALTY: f32 = 3.0;

/// How much less likely a value is made for each word it skips after the
/// previous parameter's value, in nats, up to [`ORDER_PENALTY`]: in "30
/// miles to km" the unit right after the number is the one it is in. Chosen on
/// the dev split.
pub const SKIP_PENALTY: f32 = 1.0;

/// How much a string value lying before the value of a parameter declared
/// earlier costs, in nats, when string parameters are filled together. Authors
/// declare parameters in the order people usually say them, but "Remind me in
/// 30 minutes to check the oven" says the time first, so it is only a nudge.
/// 0 scored the same on the dev split; kept for the order it states.
pub const JOINT_ORDER_PENALTY: f32 = 1.0;

/// How strongly a candidate's n-gram similarity to a parameter's description
/// and examples counts against the model's log-probability of it, in nats
/// for a perfect match. Chosen on the dev split: 8 lost an English case.
pub const PARAM_SIMILARITY_WEIGHT: f32 = 4.0;

/// How much the model's log-probability of closing a string value right
/// after it counts, 0 to 1: at 1 a value is scored as the model would write
/// it, closing quote included. 0.7 scored the same on the dev split, 0.5 lost
/// a case.
pub const CLOSE_WEIGHT: f32 = 1.0;

/// What leaving a string parameter `null` costs against a value, in nats:
/// ` null}` is a short, likely continuation whatever the message says.
/// Chosen on the dev split: 0 and 3 lost many values, 8 scored the same.
pub const NULL_PENALTY: f32 = 5.0;

/// What a string value gains for each unit of content it covers (a word
/// that is neither a function word nor the tool's own, half a CJK character
/// that is no particle), in nats: the model alone stops at the first name
/// ("Bangkok" of "cheap flights to Bangkok"). Chosen on the dev split: 0.5
/// and 1.0 scored lower, 2.0 the same.
pub const COVERAGE_BONUS: f32 = 1.5;

/// What a candidate of a shape the parameter's examples have gains, in nats
/// ("3pm" for "When, e.g. 6pm", a path for "e.g. notes/todo.txt"), and what
/// one loses where only another parameter's examples have its shape ("3時"
/// as a reminder's text). Not swept beyond 0 and 3.
pub const SHAPE_FIT_BONUS: f32 = 3.0;

/// How long a message copied whole must be to be dropped as the request
/// rather than kept as a value: three words, or six CJK characters. A bare
/// value sent alone ("AAPL", "2+2", "東京") is shorter. Not measured.
pub const WHOLE_REQUEST: RequestLength = RequestLength {
    words: 3,
    cjk_chars: 6,
};

// Answering (answer/).

/// Longest generated reply given, in characters: two short sentences.
pub const REPLY_MAX_CHARS: usize = 240;

/// Most tokens of an answer: two short sentences. Not measured.
pub const ANSWER_MAX_TOKENS: usize = 96;

/// The repetition penalty of every generation, as llama.cpp's
/// `repeat_penalty` (which defaults to 1.1). Answers used 1.15 and plain
/// completions 1.1; answers are what users read, and a 135M model loops on
/// one phrase more readily than the models llama.cpp's default was set for,
/// so 1.15 is the one value. Plain completions only measure speed, which
/// the penalty does not change. Not measured beyond reading answers.
pub const REPEAT_PENALTY: f32 = 1.15;

/// How many of the last generated tokens the repetition penalty looks at
/// (llama.cpp's `repeat_last_n` is 64). Not measured.
pub const PENALTY_WINDOW: usize = 64;

/// Earlier user/assistant messages kept in an answer's prompt; more only
/// dilute a small model's attention and cost prompt time. Not measured.
pub const HISTORY_MESSAGES: usize = 4;

/// Longest history message kept, in bytes of UTF-8 (300 characters of
/// English). Not measured.
///
/// An answer's prompt is bounded in bytes because its tokens are: the
/// tokenizer is byte-level BPE, which never makes more tokens of a text
/// than it has bytes. With [`ANSWER_QUESTION_BYTES`], [`ANSWER_RESULTS_BYTES`]
/// and the fixed instructions and ChatML framing (under 500 bytes), a prompt
/// stays under 7,000 bytes, so under 7,000 tokens, and it and
/// [`ANSWER_MAX_TOKENS`] fit SmolLM2's context of 8,192 whatever the
/// conversation holds.
pub const HISTORY_BYTES: usize = 300;

/// Longest question an answer's prompt keeps, in bytes: its start, which
/// says what is asked. A question of a megabyte costs what one of this
/// length does. Not measured: no question of the evaluation comes near it.
pub const ANSWER_QUESTION_BYTES: usize = 2000;

/// Most bytes of this turn's tool results an answer's prompt keeps, shared
/// equally between the results (each keeps its start). Tool output can be
/// large (a Python tool's is cut at 64 KiB); the model's answer is two
/// sentences, which a result's first lines almost always hold, and the whole
/// results are still what a verbatim answer gives. Not measured.
pub const ANSWER_RESULTS_BYTES: usize = 3000;

// Running the model (inference/).

/// Tokens processed per forward pass while prefilling, so the attention
/// scores of one chunk stay small. Memory only; every choice gives the same
/// logits.
pub const PREFILL_CHUNK: usize = 256;

/// Model jobs (routing, answering, loading) an [`EmbeddedProvider`] runs at
/// once; more wait for one to end. The model is CPU-bound and each forward
/// pass already uses every core candle is given, so a second job at once only
/// slows the first. A job counts until its work has really stopped, a
/// cancelled one included (it stops at its next forward pass), so callers
/// that give up cannot pile up work behind the bound. Not measured.
///
/// [`EmbeddedProvider`]: crate::EmbeddedProvider
pub const MODEL_JOBS: usize = 1;

/// Prefilled prompts kept on disk; the oldest are removed beyond this. A
/// tool set's entries take a few MB. Not measured.
pub const KEPT_PROMPT_FILES: usize = 32;
