//! Routing evaluation and speed report for the embedded model.
//!
//! ```sh
//! cargo run --release -p riverse-embedded --example route_eval -- [--split test|dev|all] [--verbose]
//! ```
//!
//! Routes every message of `eval/routing-cases.json` against the ten
//! manifests of `eval/routing-tools.json` and reports, per language, tool
//! accuracy and full-call accuracy on messages that need a tool, parameter
//! accuracy on those whose tool is right, and `none`'s recall (small talk
//! routed to no tool) and precision; then the confusion of tools over all
//! languages. An expected parameter lists the
//! acceptable values; `"*"` accepts any value or none; a parameter the case
//! does not list must be absent. Then it measures speed: routing time for a
//! warm process (median over the cases, after the tool set's prompt is
//! prefilled), prompt processing and generation tokens per second.
//!
//! `--cold "MESSAGE"` instead times one turn in a fresh process: load, route
//! and a grounded answer. `--prompt-cache DIR` / `--no-prompt-cache` choose
//! where (whether) prefilled prompts are kept between processes; `--cases
//! FILE` evaluates other cases, `--tools FILE` other manifests
//! (`eval/template-tools.json`: the three tools `riverse init` writes);
//! `--dump FILE` writes every case's scores as JSON lines.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chrono::NaiveDate;
use clap::{Parser, ValueEnum};
use riverse_embedded::{EmbeddedModel, EmbeddedOptions, Route};
use riverse_llm::{Message, ToolCall};
use riverse_tool::ToolManifest;
use serde_json::Value;

/// Routing accuracy and speed of the embedded model.
#[derive(Parser)]
struct Args {
    /// A GGUF model file to evaluate instead of the default model.
    #[arg(long, value_name = "FILE")]
    model: Option<PathBuf>,
    /// Which cases to route.
    #[arg(long, value_enum, default_value_t = Split::Test)]
    split: Split,
    /// Print every case, not only the misses.
    #[arg(long)]
    verbose: bool,
    /// Write every case's scores to FILE as JSON lines.
    #[arg(long, value_name = "FILE")]
    dump: Option<PathBuf>,
    /// The manifests to route to (default: eval/routing-tools.json).
    #[arg(long, value_name = "FILE")]
    tools: Option<PathBuf>,
    /// The cases (default: eval/routing-cases.json).
    #[arg(long, value_name = "FILE")]
    cases: Option<PathBuf>,
    /// Keep prefilled prompts in DIR between processes.
    #[arg(long, value_name = "DIR", conflicts_with = "no_prompt_cache")]
    prompt_cache: Option<PathBuf>,
    /// Keep prefilled prompts in memory only.
    #[arg(long)]
    no_prompt_cache: bool,
    /// Time one cold turn on MESSAGE instead: load, route and answer.
    #[arg(long, value_name = "MESSAGE")]
    cold: Option<String>,
    /// The day the cases were written on: the days they name relative to
    /// today ("tomorrow", "next Tuesday") are dated as of it.
    #[arg(long, value_name = "YYYY-MM-DD", default_value = "2026-12-05")]
    today: NaiveDate,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Split {
    Test,
    Dev,
    All,
}

impl Split {
    fn name(self) -> &'static str {
        match self {
            Split::Test => "test",
            Split::Dev => "dev",
            Split::All => "all",
        }
    }
}

struct Case {
    lang: String,
    message: String,
    tool: Option<String>,
    params: BTreeMap<String, Vec<Value>>,
}

#[derive(Default)]
struct Tally {
    tool_cases: usize,
    right_tool: usize,
    right_call: usize,
    /// Parameters judged on messages whose tool is right: each one expected
    /// (but not `"*"`) and each one given that was not expected.
    param_slots: usize,
    right_params: usize,
    talk_cases: usize,
    talk_to_none: usize,
    /// Every message routed to no tool, small talk or not.
    routed_to_none: usize,
}

fn main() {
    let args = Args::parse();
    let split = args.split.name();
    let mut dump = args
        .dump
        .as_ref()
        .map(|path| std::fs::File::create(path).unwrap());

    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("eval");
    let tools_path = args
        .tools
        .clone()
        .unwrap_or_else(|| dir.join("routing-tools.json"));
    let tools: Vec<ToolManifest> =
        serde_json::from_str(&std::fs::read_to_string(&tools_path).unwrap())
            .expect("the tools file holds manifests");
    let cases_path = args
        .cases
        .clone()
        .unwrap_or_else(|| dir.join("routing-cases.json"));
    let cases = load_cases(&cases_path, args.split, &tools);

    let mut options = EmbeddedOptions {
        model_path: args.model.clone(),
        ..EmbeddedOptions::default()
    };
    if let Some(dir) = &args.prompt_cache {
        options.prompt_cache_dir = Some(dir.clone());
    }
    if args.no_prompt_cache {
        options.prompt_cache_dir = None;
    }
    let started = Instant::now();
    let model = EmbeddedModel::load(&options)
        .expect("load the model")
        .on_day(args.today);
    let load_time = started.elapsed();
    if let Some(message) = &args.cold {
        cold(&model, load_time, &tools, message);
        return;
    }

    let started = Instant::now();
    model.route("warm up", &tools).unwrap();
    let prefix_time = started.elapsed();

    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    // (expected, chosen) → messages, `none` for no tool.
    let mut confusion: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut timings = Vec::new();
    for case in &cases {
        let started = Instant::now();
        let report = model.route_report(&case.message, &tools).unwrap();
        timings.push(started.elapsed());
        let tally = tallies.entry(case.lang.clone()).or_default();
        let (chosen, params) = match &report.route {
            Route::None => (None, None),
            Route::Call { tool, params } => (Some(tool.as_str()), Some(params)),
        };
        let right_tool = chosen == case.tool.as_deref();
        let right_call =
            right_tool && params.is_none_or(|params| params_match(&case.params, params));
        tally.routed_to_none += usize::from(chosen.is_none());
        *confusion
            .entry((
                case.tool.clone().unwrap_or_else(|| "none".into()),
                chosen.unwrap_or("none").to_owned(),
            ))
            .or_default() += 1;
        match &case.tool {
            Some(_) => {
                tally.tool_cases += 1;
                tally.right_tool += usize::from(right_tool);
                tally.right_call += usize::from(right_call);
                if let (true, Some(params)) = (right_tool, params) {
                    let (right, slots) = params_right(&case.params, params);
                    tally.right_params += right;
                    tally.param_slots += slots;
                }
            }
            None => {
                tally.talk_cases += 1;
                tally.talk_to_none += usize::from(right_tool);
            }
        }
        if let Some(dump) = &mut dump {
            use std::io::Write;
            let scores: Vec<Value> = report
                .scores
                .iter()
                .map(|s| {
                    serde_json::json!({
                        "name": s.name, "model": s.model, "similarity": s.similarity,
                        "combined": s.combined, "serves": s.serves,
                        "shape": s.shape, "pruned": s.pruned,
                    })
                })
                .collect();
            let line = serde_json::json!({
                "lang": case.lang, "message": case.message, "expected": case.tool,
                "chosen": chosen, "right_call": right_call, "scores": scores,
                "form": report.form.name(),
            });
            writeln!(dump, "{line}").unwrap();
        }
        if args.verbose || !right_call {
            let mark = if right_call { "ok  " } else { "MISS" };
            let scores: Vec<String> = report
                .scores
                .iter()
                .map(|s| {
                    let unserved = if s.serves {
                        ""
                    } else {
                        " (action not offered)"
                    };
                    format!("{}={:.1}/{:.2}{unserved}", s.name, s.model, s.similarity)
                })
                .collect();
            println!(
                "{mark} [{}] {:?} ({}) -> {} (expected {}) [{}]",
                case.lang,
                case.message,
                report.form.name(),
                describe(&report.route),
                case.tool.as_deref().unwrap_or("none"),
                scores.join(" ")
            );
        }
    }

    println!("\nrouting, split {split}, {} tools", tools.len());
    println!(
        "| language | tool choice | full call | parameters (right tool) | small talk → none (none's recall) | none's precision |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    for (lang, tally) in &tallies {
        println!(
            "| {lang} | {} | {} | {} | {} | {} |",
            percent(tally.right_tool, tally.tool_cases),
            percent(tally.right_call, tally.tool_cases),
            percent(tally.right_params, tally.param_slots),
            percent(tally.talk_to_none, tally.talk_cases),
            percent(tally.talk_to_none, tally.routed_to_none),
        );
    }
    let talk: (usize, usize, usize) = tallies.values().fold((0, 0, 0), |(a, b, c), t| {
        (a + t.talk_to_none, b + t.talk_cases, c + t.routed_to_none)
    });
    println!(
        "| all | | | | {} | {} |",
        percent(talk.0, talk.1),
        percent(talk.0, talk.2)
    );
    print_confusion(&confusion);

    timings.sort();
    let median = timings[timings.len() / 2];
    let p90 = timings[timings.len() * 9 / 10];
    println!("\nspeed");
    println!("| measure | value |");
    println!("| --- | --- |");
    println!("| model load | {} |", ms(load_time));
    println!(
        "| first route (prefills the tool set's prompts) | {} |",
        ms(prefix_time)
    );
    println!(
        "| warm routing decision, median of {} | {} |",
        timings.len(),
        ms(median)
    );
    println!("| warm routing decision, p90 | {} |", ms(p90));

    let (prompt_rate, generation_rate) = throughput(&model);
    println!("| prompt processing | {prompt_rate:.0} tok/s |");
    println!("| generation | {generation_rate:.1} tok/s |");
}

/// One cold turn in this fresh process: route `message`, then answer it from
/// a made-up tool result, timing each part (running the tool is left out).
fn cold(model: &EmbeddedModel, load_time: Duration, tools: &[ToolManifest], message: &str) {
    let started = Instant::now();
    let route = model.route(message, tools).unwrap();
    let route_time = started.elapsed();
    let mut conversation = vec![Message::User(message.to_owned())];
    if let Route::Call { tool, params } = &route {
        conversation.push(Message::Assistant {
            content: String::new(),
            tool_calls: vec![ToolCall {
                id: "call_1".into(),
                name: tool.clone(),
                arguments: Value::Object(params.clone()).to_string(),
            }],
        });
        conversation.push(Message::Tool {
            call_id: "call_1".into(),
            content: "Oslo: 🌦 +7°C, wind 13 km/h".into(),
            failed: false,
        });
    }
    let started = Instant::now();
    let answer = model.answer(&conversation, tools, &mut |_| {}).unwrap();
    let answer_time = started.elapsed();
    println!("route: {}", describe(&route));
    println!("answer: {answer}");
    println!(
        "| cold turn: load {} + route {} + answer {} | {} |",
        ms(load_time),
        ms(route_time),
        ms(answer_time),
        ms(load_time + route_time + answer_time)
    );
}

fn load_cases(path: &Path, split: Split, tools: &[ToolManifest]) -> Vec<Case> {
    let raw: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    raw.into_iter()
        .filter(|case| split == Split::All || case["split"] == split.name())
        .map(|case| {
            let tool = case["tool"]
                .as_str()
                .filter(|tool| *tool != "none")
                .map(str::to_owned);
            let manifest = tools
                .iter()
                .find(|manifest| Some(&manifest.name) == tool.as_ref());
            let params = case["params"]
                .as_object()
                .map(|params| {
                    params
                        .iter()
                        .map(|(key, values)| (key.clone(), accepted_values(manifest, key, values)))
                        .collect()
                })
                .unwrap_or_default();
            Case {
                lang: case["lang"].as_str().unwrap().to_owned(),
                message: case["message"].as_str().unwrap().to_owned(),
                tool,
                params,
            }
        })
        .collect()
}

/// The values a case accepts for parameter `key`: an array lists them,
/// but for a parameter declared a list it is the one value; anything
/// else is the one value.
fn accepted_values(manifest: Option<&ToolManifest>, key: &str, values: &Value) -> Vec<Value> {
    let declared_list = manifest
        .and_then(|manifest| manifest.parameter_types.get(key))
        .and_then(|declared| declared.conversion())
        .is_some_and(|kind| kind == riverse_tool::Kind::List);
    match values {
        Value::Array(values) if !declared_list => values.clone(),
        value => vec![value.clone()],
    }
}

/// The confusion of tools over every language: one row per expected tool,
/// one column per chosen tool, `none` last in both.
fn print_confusion(confusion: &BTreeMap<(String, String), usize>) {
    let mut names: Vec<&str> = confusion
        .keys()
        .flat_map(|(expected, chosen)| [expected.as_str(), chosen.as_str()])
        .filter(|name| *name != "none")
        .collect();
    names.sort_unstable();
    names.dedup();
    names.push("none");
    println!("\nconfusion (rows: expected, columns: chosen)");
    println!("| expected | {} |", names.join(" | "));
    println!("| --- |{}", " --- |".repeat(names.len()));
    for expected in &names {
        let row: Vec<String> = names
            .iter()
            .map(|chosen| {
                let key = ((*expected).to_owned(), (*chosen).to_owned());
                confusion.get(&key).map_or(".".into(), usize::to_string)
            })
            .collect();
        if row.iter().any(|cell| cell != ".") {
            println!("| {expected} | {} |", row.join(" | "));
        }
    }
}

/// The parameters right, and the parameters judged: each expected one but
/// `"*"`, and each one given that was not expected.
fn params_right(
    expected: &BTreeMap<String, Vec<Value>>,
    actual: &serde_json::Map<String, Value>,
) -> (usize, usize) {
    let extra = actual
        .keys()
        .filter(|key| !expected.contains_key(*key))
        .count();
    let (mut right, mut judged) = (0, extra);
    for (key, accepted) in expected {
        if accepted.iter().any(|value| value == "*") {
            continue;
        }
        judged += 1;
        let given = actual.get(key);
        right +=
            usize::from(given.is_some_and(|value| accepted.iter().any(|want| same(want, value))));
    }
    (right, judged)
}

fn params_match(
    expected: &BTreeMap<String, Vec<Value>>,
    actual: &serde_json::Map<String, Value>,
) -> bool {
    let extra = actual.keys().any(|key| !expected.contains_key(key));
    let each = expected.iter().all(|(key, accepted)| {
        if accepted.iter().any(|value| value == "*") {
            return true;
        }
        actual
            .get(key)
            .is_some_and(|value| accepted.iter().any(|want| same(want, value)))
    });
    !extra && each
}

/// Whether `got` is the value `want`: numbers as numbers, strings without
/// case, lists in any order, objects key by key.
fn same(want: &Value, got: &Value) -> bool {
    match (want, got) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::String(a), Value::String(b)) => a.trim().eq_ignore_ascii_case(b.trim()),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().all(|item| b.iter().any(|other| same(item, other)))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, value)| b.get(key).is_some_and(|other| same(value, other)))
        }
        _ => want == got,
    }
}

fn describe(route: &Route) -> String {
    match route {
        Route::None => "none".to_owned(),
        Route::Call { tool, params } => format!("{tool} {}", Value::Object(params.clone())),
    }
}

/// Prompt tokens per second over a ~500-token prompt, and generated tokens
/// per second over 128 tokens; the median of three runs each.
fn throughput(model: &EmbeddedModel) -> (f64, f64) {
    let turn = "<|im_start|>user\nDescribe the water cycle, the seasons, and how clouds form, \
                in simple words for a child.<|im_end|>\n";
    let long_prompt = format!(
        "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n{}<|im_start|>assistant\n",
        turn.repeat(16)
    );
    let mut prompt_rates = Vec::new();
    let mut generation_rates = Vec::new();
    for _ in 0..3 {
        let completion = model.complete(&long_prompt, 1, &mut |_| {}).unwrap();
        prompt_rates.push(completion.prompt_tokens as f64 / completion.prompt_time.as_secs_f64());
        let short = format!(
            "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n{turn}<|im_start|>assistant\n"
        );
        let completion = model.complete(&short, 128, &mut |_| {}).unwrap();
        generation_rates
            .push(completion.generated_tokens as f64 / completion.generation_time.as_secs_f64());
    }
    (median(prompt_rates), median(generation_rates))
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
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

fn ms(duration: Duration) -> String {
    format!("{:.0} ms", duration.as_secs_f64() * 1000.0)
}
