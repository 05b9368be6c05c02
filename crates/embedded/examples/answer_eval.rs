//! Answer quality of the embedded model, per language.
//!
//! ```sh
//! cargo run --release -p riverse-embedded --example answer_eval -- [--split dev|test|all] [--verbose]
//! ```
//!
//! Each case of `eval/answer-cases.json` is a message, the call made for it
//! and the tool's fixed result; the example builds that turn, has the model
//! answer it and judges the answer: right when it states every value the
//! case lists (`must_state`, compared without case and without thousands
//! separators) and invents nothing (no number, link or address that is in
//! neither the message nor the result, no apology or refusal). Then each
//! small-talk case of `eval/smalltalk-cases.json` without a tool is routed
//! against `eval/independent-tools.json` and, when no tool is chosen,
//! answered: small talk is right when no tool runs and the reply is in the
//! message's script (Japanese with kana, Chinese with Han characters, English
//! in Latin letters). Reports the median time of an answer. `--generate`
//! measures generated English replies instead of the default fixed ones.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::{Parser, ValueEnum};
use riverse_embedded::{EmbeddedModel, EmbeddedOptions, Route};
use riverse_llm::{Message, ToolCall};
use riverse_tool::ToolManifest;
use serde_json::Value;

/// Answer quality and small-talk replies of the embedded model.
#[derive(Parser)]
struct Args {
    /// A GGUF model file to evaluate instead of the default model.
    #[arg(long, value_name = "FILE")]
    model: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = Split::Test)]
    split: Split,
    /// Print every case, not only the misses.
    #[arg(long)]
    verbose: bool,
    /// The answer cases (default: eval/answer-cases.json).
    #[arg(long, value_name = "FILE")]
    cases: Option<PathBuf>,
    /// The small-talk cases (default: eval/smalltalk-cases.json).
    #[arg(long, value_name = "FILE")]
    small_talk: Option<PathBuf>,
    /// The manifests small talk is routed against (default:
    /// eval/independent-tools.json).
    #[arg(long, value_name = "FILE")]
    tools: Option<PathBuf>,
    /// Generate English replies with the model (checked, falling back to
    /// the fixed ones) instead of the default fixed replies.
    #[arg(long)]
    generate: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Split {
    Test,
    Dev,
    All,
}

impl Split {
    fn keeps(self, case: &Value) -> bool {
        match self {
            Split::All => true,
            Split::Test => case["split"] == "test",
            Split::Dev => case["split"] == "dev",
        }
    }
}

#[derive(Default)]
struct Tally {
    answers: usize,
    right: usize,
    talk: usize,
    talk_right: usize,
    talk_no_tool: usize,
    /// With `--generate`: answers and small-talk replies the model wrote
    /// itself, its check passed.
    generated: usize,
    talk_generated: usize,
}

fn main() {
    let args = Args::parse();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("eval");
    let read = |path: Option<&PathBuf>, default: &str| -> Vec<Value> {
        let path = path.cloned().unwrap_or_else(|| dir.join(default));
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
    };
    let cases: Vec<Value> = read(args.cases.as_ref(), "answer-cases.json")
        .into_iter()
        .filter(|case| args.split.keeps(case))
        .collect();
    let small_talk: Vec<Value> = read(args.small_talk.as_ref(), "smalltalk-cases.json")
        .into_iter()
        .filter(|case| args.split.keeps(case) && case["tool"] == "none")
        .collect();
    let tools: Vec<ToolManifest> = serde_json::from_value(Value::Array(read(
        args.tools.as_ref(),
        "independent-tools.json",
    )))
    .unwrap();

    let model = EmbeddedModel::load(&EmbeddedOptions {
        model_path: args.model.clone(),
        ..EmbeddedOptions::default()
    })
    .expect("load the model")
    .with_generated_replies(args.generate);
    // With --generate, a reply that differs from the fixed one is the model's
    // own: it passed its check.
    let fixed = model.clone().with_generated_replies(false);
    model.route("warm up", &tools).unwrap();
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    let mut answer_times: BTreeMap<String, Vec<Duration>> = BTreeMap::new();
    for case in &cases {
        let lang = case["lang"].as_str().unwrap().to_owned();
        let message = case["message"].as_str().unwrap();
        let result = case["result"].as_str().unwrap();
        let conversation = turn(
            message,
            case["tool"].as_str().unwrap(),
            &case["params"],
            result,
        );
        let started = Instant::now();
        let answer = model.answer(&conversation, &tools, &mut |_| {}).unwrap();
        answer_times
            .entry(lang.clone())
            .or_default()
            .push(started.elapsed());
        let must_state: Vec<&str> = case["must_state"]
            .as_array()
            .unwrap()
            .iter()
            .map(|value| value.as_str().unwrap())
            .collect();
        let verdict = judge(&answer, message, result, &must_state);
        let tally = tallies.entry(lang.clone()).or_default();
        tally.answers += 1;
        tally.generated += usize::from(
            args.generate && answer != fixed.answer(&conversation, &tools, &mut |_| {}).unwrap(),
        );
        tally.right += usize::from(verdict.is_ok());
        if args.verbose || verdict.is_err() {
            let mark = if verdict.is_ok() { "ok  " } else { "MISS" };
            let why = verdict.err().unwrap_or_default();
            println!("{mark} [{lang}] {message:?} -> {answer:?} {why}");
        }
    }
    let mut talk_times: BTreeMap<String, Vec<Duration>> = BTreeMap::new();
    for case in &small_talk {
        let lang = case["lang"].as_str().unwrap().to_owned();
        let message = case["message"].as_str().unwrap();
        let tally = tallies.entry(lang.clone()).or_default();
        tally.talk += 1;
        let route = model.route(message, &tools).unwrap();
        if let Route::Call { tool, params } = &route {
            println!(
                "MISS [{lang}] {message:?} -> {tool} {}",
                Value::Object(params.clone())
            );
            continue;
        }
        tally.talk_no_tool += 1;
        let started = Instant::now();
        let reply = model
            .answer(&[Message::User(message.to_owned())], &tools, &mut |_| {})
            .unwrap();
        talk_times
            .entry(lang.clone())
            .or_default()
            .push(started.elapsed());
        let right = in_script_of(&reply, &lang) && !reply.trim().is_empty();
        tally.talk_generated += usize::from(
            args.generate
                && reply
                    != fixed
                        .answer(&[Message::User(message.to_owned())], &tools, &mut |_| {})
                        .unwrap(),
        );
        tally.talk_right += usize::from(right);
        if args.verbose || !right {
            let mark = if right { "ok  " } else { "MISS" };
            println!("{mark} [{lang}] {message:?} -> {reply:?}");
        }
    }

    println!("\nanswers");
    println!(
        "| language | answer right | small talk → no tool | small talk replied in its language | answer time, median | small-talk reply time, median | the model's own answers given | the model's own small-talk replies given |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for (lang, tally) in &tallies {
        println!(
            "| {lang} | {} | {} | {} | {} | {} | {} | {} |",
            percent(tally.right, tally.answers),
            percent(tally.talk_no_tool, tally.talk),
            percent(tally.talk_right, tally.talk_no_tool),
            median_ms(
                answer_times
                    .get_mut(lang)
                    .map_or(&mut [], |t| t.as_mut_slice())
            ),
            median_ms(
                talk_times
                    .get_mut(lang)
                    .map_or(&mut [], |t| t.as_mut_slice())
            ),
            percent(tally.generated, tally.answers),
            percent(tally.talk_generated, tally.talk_no_tool),
        );
    }
}

/// The turn of one case: the message, the call and its result.
fn turn(message: &str, tool: &str, params: &Value, result: &str) -> Vec<Message> {
    let arguments = match params {
        Value::Object(_) => params.to_string(),
        _ => "{}".to_owned(),
    };
    vec![
        Message::User(message.to_owned()),
        Message::Assistant {
            content: String::new(),
            tool_calls: vec![ToolCall {
                id: "call_1".into(),
                name: tool.to_owned(),
                arguments,
            }],
        },
        Message::Tool {
            call_id: "call_1".into(),
            content: result.to_owned(),
            failed: false,
        },
    ]
}

/// Whether `answer` states every value of `must_state` and invents nothing
/// that is in neither `message` nor `result`; the error says what is wrong.
fn judge(answer: &str, message: &str, result: &str, must_state: &[&str]) -> Result<(), String> {
    let said = normalized(answer);
    for value in must_state {
        if !said.contains(&normalized(value)) {
            return Err(format!("(does not state {value:?})"));
        }
    }
    let known = normalized(&format!("{message}\n{result}"));
    let known_numbers = digit_runs(&known);
    if let Some(number) = digit_runs(&said)
        .into_iter()
        .find(|number| !known_numbers.contains(number))
    {
        return Err(format!("(invents the number {number})"));
    }
    if let Some(link) = said
        .split_whitespace()
        .find(|word| (word.contains("://") || word.contains('@')) && !known.contains(*word))
    {
        return Err(format!("(invents {link:?})"));
    }
    let apology = [
        "sorry",
        "apolog",
        "i can't",
        "i cannot",
        "unable to",
        "as an ai",
    ];
    if let Some(word) = apology
        .iter()
        .find(|word| said.contains(**word) && !known.contains(**word))
    {
        return Err(format!("(apologises or refuses: {word:?})"));
    }
    Ok(())
}

/// Lower case, without the separators of thousands (`393,600`).
fn normalized(text: &str) -> String {
    let chars: Vec<char> = text.to_lowercase().chars().collect();
    let kept = chars.iter().enumerate().filter(|&(index, &c)| {
        let between_digits = index > 0
            && chars[index - 1].is_ascii_digit()
            && chars.get(index + 1).is_some_and(char::is_ascii_digit);
        !(c == ',' && between_digits)
    });
    kept.map(|(_, c)| *c).collect()
}

fn digit_runs(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_ascii_digit())
        .filter(|run| !run.is_empty())
        .map(|run| run.trim_start_matches('0').to_owned())
        .collect()
}

/// Whether `reply` is written in the script of language `lang`.
fn in_script_of(reply: &str, lang: &str) -> bool {
    let kana = reply
        .chars()
        .any(|c| ('\u{3040}'..='\u{30ff}').contains(&c));
    let han = reply
        .chars()
        .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c));
    match lang {
        "ja" => kana,
        "zh" => han && !kana,
        _ => !kana && !han,
    }
}

fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        "–".to_owned()
    } else {
        format!(
            "{:.0} % ({part}/{whole})",
            100.0 * part as f64 / whole as f64
        )
    }
}

fn median_ms(times: &mut [Duration]) -> String {
    if times.is_empty() {
        return "–".to_owned();
    }
    times.sort();
    format!("{:.1} ms", times[times.len() / 2].as_secs_f64() * 1000.0)
}
