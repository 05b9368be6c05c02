//! Restraint and multi-part evaluation of the embedded model's routing.
//!
//! ```sh
//! CANDLE_NUM_THREADS=1 cargo run --profile quick -p riverse-embedded --example restraint_eval -- --split dev
//! ```
//!
//! Reads the projects of `eval/restraint-tools.json` (each a set of tool
//! manifests) and routes every case of `eval/restraint-cases.json` and
//! `eval/multipart-cases.json` against its own project's tools. Restraint
//! cases name the one tool that serves them, or `null` when none does;
//! multi-part cases list every call the message asks for. Reported: the
//! no-call rate (no tool serves, and none was called), the right-tool rate
//! and the whole-call rate (every value right) of the served cases, how
//! often a wrong tool was given the whole message as a value, and for
//! multi-part messages how often every expected tool was called, and with
//! every value right.
//!
//! Only the cases of the chosen split are read past their `split` field:
//! the others are dropped unseen, and the misses printed are the chosen
//! split's.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use clap::{Parser, ValueEnum};
use riverse_embedded::{EmbeddedModel, EmbeddedOptions, Route, RouteReport};
use riverse_tool::{Kind, ToolManifest};
use serde_json::{Map, Value};

/// Restraint and multi-part routing of the embedded model.
#[derive(Parser)]
struct Args {
    /// Which cases to route.
    #[arg(long, value_enum)]
    split: Split,
    /// Print every case, not only the misses.
    #[arg(long)]
    verbose: bool,
    /// Print each miss's candidate scores (why a tool won or lost).
    #[arg(long)]
    scores: bool,
    /// Write every case's candidate scores to this file, one JSON object a
    /// line: what the choice weighed, to study it without routing again.
    #[arg(long, value_name = "FILE")]
    dump: Option<PathBuf>,
    /// The projects' manifests (default: eval/restraint-tools.json).
    #[arg(long, value_name = "FILE")]
    tools: Option<PathBuf>,
    /// Restraint cases (default: eval/restraint-cases.json).
    #[arg(long, value_name = "FILE")]
    cases: Option<PathBuf>,
    /// Multi-part cases (default: eval/multipart-cases.json).
    #[arg(long, value_name = "FILE")]
    multipart: Option<PathBuf>,
    /// The day the cases were written on: the days they name relative to
    /// today ("tomorrow", "next Tuesday") are dated as of it.
    #[arg(long, value_name = "YYYY-MM-DD", default_value = "2026-12-05")]
    today: NaiveDate,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Split {
    Test,
    Dev,
}

impl Split {
    fn name(self) -> &'static str {
        match self {
            Split::Test => "test",
            Split::Dev => "dev",
        }
    }
}

/// One expected call: a tool and the values it must get.
struct Expected {
    tool: String,
    params: Map<String, Value>,
}

struct Case {
    project: String,
    lang: String,
    message: String,
    /// Every call the message asks for; none when no tool serves it.
    calls: Vec<Expected>,
}

#[derive(Default)]
struct Tally {
    unserved: usize,
    no_call: usize,
    served: usize,
    right_tool: usize,
    whole_call: usize,
    /// Wrong calls (a tool where none serves, or another tool) given the
    /// whole message as a value.
    whole_message_values: usize,
    multipart: usize,
    every_tool: usize,
    every_call: usize,
}

fn main() {
    let args = Args::parse();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("eval");
    let projects = load_projects(
        &args
            .tools
            .clone()
            .unwrap_or_else(|| dir.join("restraint-tools.json")),
    );
    let restraint = load_cases(
        &args
            .cases
            .clone()
            .unwrap_or_else(|| dir.join("restraint-cases.json")),
        args.split,
    );
    let multipart = load_cases(
        &args
            .multipart
            .clone()
            .unwrap_or_else(|| dir.join("multipart-cases.json")),
        args.split,
    );
    let model = EmbeddedModel::load(&EmbeddedOptions::default())
        .expect("load the model")
        .on_day(args.today);
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    let mut dump = args
        .dump
        .as_ref()
        .map(|path| std::io::BufWriter::new(std::fs::File::create(path).expect("create the dump")));
    for (case, is_multipart) in restraint
        .iter()
        .map(|case| (case, false))
        .chain(multipart.iter().map(|case| (case, true)))
    {
        let tools = projects
            .get(&case.project)
            .unwrap_or_else(|| panic!("no project {:?}", case.project));
        let report = model.route_report(&case.message, tools).unwrap();
        let calls = calls_of(&report);
        let tally = tallies.entry(case.lang.clone()).or_default();
        let right = judge(tally, case, &calls, tools, is_multipart);
        if args.verbose || !right {
            let expected: Vec<&str> = case.calls.iter().map(|c| c.tool.as_str()).collect();
            let got: Vec<String> = calls
                .iter()
                .map(|(tool, params)| format!("{tool} {}", Value::Object((*params).clone())))
                .collect();
            let short_of = report
                .short_of
                .as_ref()
                .map(|short| format!(" (short of {}.{})", short.tool, short.missing))
                .unwrap_or_default();
            println!(
                "{} [{}] {:?} -> [{}]{short_of} (expected [{}])",
                if right { "ok  " } else { "MISS" },
                case.lang,
                case.message,
                got.join(", "),
                expected.join(", ")
            );
            if args.scores && !right {
                print_scores(&report);
            }
        }
        if let Some(dump) = dump.as_mut() {
            writeln!(dump, "{}", dumped(case, &calls, right, &report)).expect("write the dump");
        }
    }
    println!("\nrestraint and multi-part, split {}", args.split.name());
    println!(
        "| language | no call (no tool serves) | right tool (one serves) | whole call | wrong call with the whole message | multi-part: every tool | multi-part: every call whole |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    let mut all = Tally::default();
    for (lang, tally) in &tallies {
        print_row(lang, tally);
        add(&mut all, tally);
    }
    print_row("all", &all);
}

/// The calls a report makes, first the message's, then its further parts'.
fn calls_of(report: &RouteReport) -> Vec<(&str, &Map<String, Value>)> {
    std::iter::once(&report.route)
        .chain(&report.further)
        .filter_map(|route| match route {
            Route::None => None,
            Route::Call { tool, params } => Some((tool.as_str(), params)),
        })
        .collect()
}

/// Counts `case` into `tally`; whether it was wholly right.
fn judge(
    tally: &mut Tally,
    case: &Case,
    calls: &[(&str, &Map<String, Value>)],
    tools: &[ToolManifest],
    is_multipart: bool,
) -> bool {
    let whole_message = calls.iter().any(|(tool, params)| {
        let expected = case.calls.iter().any(|call| call.tool == *tool);
        !expected
            && params
                .values()
                .any(|value| is_whole_message(value, &case.message))
    });
    tally.whole_message_values += usize::from(whole_message);
    if is_multipart {
        tally.multipart += 1;
        let every_tool = case
            .calls
            .iter()
            .all(|want| calls.iter().any(|(tool, _)| *tool == want.tool));
        let every_call = case.calls.iter().all(|want| {
            calls
                .iter()
                .any(|(tool, params)| *tool == want.tool && params_match(want, params, tools))
        });
        tally.every_tool += usize::from(every_tool);
        tally.every_call += usize::from(every_call);
        return every_call && calls.len() == case.calls.len();
    }
    let Some(want) = case.calls.first() else {
        tally.unserved += 1;
        tally.no_call += usize::from(calls.is_empty());
        return calls.is_empty();
    };
    tally.served += 1;
    let first = calls.first();
    let right_tool = first.is_some_and(|(tool, _)| *tool == want.tool);
    let whole = right_tool && first.is_some_and(|(_, params)| params_match(want, params, tools));
    tally.right_tool += usize::from(right_tool);
    tally.whole_call += usize::from(whole);
    whole
}

fn is_whole_message(value: &Value, message: &str) -> bool {
    let text = match value {
        Value::String(text) => text.as_str(),
        _ => return false,
    };
    let trim = |text: &str| {
        text.trim_matches(|c: char| c.is_whitespace() || c.is_ascii_punctuation() || c == '？')
            .to_lowercase()
    };
    trim(text) == trim(message)
}

/// Whether `got` holds every expected value and nothing else.
fn params_match(want: &Expected, got: &Map<String, Value>, tools: &[ToolManifest]) -> bool {
    let manifest = tools.iter().find(|tool| tool.name == want.tool);
    let extra = got.keys().any(|key| !want.params.contains_key(key));
    !extra
        && want.params.iter().all(|(key, expected)| {
            got.get(key)
                .is_some_and(|value| accepted(manifest, key, expected, value))
        })
}

/// An expected array lists acceptable values, unless the parameter is a
/// list; `"*"` accepts anything.
fn accepted(manifest: Option<&ToolManifest>, key: &str, expected: &Value, got: &Value) -> bool {
    let list = manifest
        .and_then(|manifest| manifest.parameter_types.get(key))
        .and_then(|declared| declared.conversion())
        .is_some_and(|kind| kind == Kind::List);
    match expected {
        Value::String(any) if any == "*" => true,
        Value::Array(values) if !list && !got.is_array() => {
            values.iter().any(|value| same(value, got))
        }
        value => same(value, got),
    }
}

/// Numbers as numbers, strings without case, lists in any order.
fn same(want: &Value, got: &Value) -> bool {
    match (want, got) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::Number(a), Value::String(b)) | (Value::String(b), Value::Number(a)) => {
            b.trim().parse::<f64>().ok() == a.as_f64()
        }
        (Value::String(a), Value::String(b)) => a.trim().eq_ignore_ascii_case(b.trim()),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().all(|item| b.iter().any(|other| same(item, other)))
        }
        _ => want == got,
    }
}

/// Projects by name: a list of `{"project"|"name": …, "tools": [...]}`, or
/// an object of name to manifests (or to `{"tools": [...]}`).
fn load_projects(path: &Path) -> BTreeMap<String, Vec<ToolManifest>> {
    let raw: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let raw = raw.get("projects").cloned().unwrap_or(raw);
    let entries: Vec<(String, Value)> = match raw {
        Value::Object(map) => map.into_iter().collect(),
        Value::Array(list) => list
            .into_iter()
            .map(|project| {
                let name = project
                    .get("project")
                    .or_else(|| project.get("name"))
                    .or_else(|| project.get("id"))
                    .and_then(Value::as_str)
                    .expect("a project has a name")
                    .to_owned();
                (name, project)
            })
            .collect(),
        _ => panic!("the tools file holds projects"),
    };
    entries
        .into_iter()
        .map(|(name, tools)| {
            let tools = tools.get("tools").cloned().unwrap_or(tools);
            (name, serde_json::from_value(tools).expect("manifests"))
        })
        .collect()
}

fn load_cases(path: &Path, split: Split) -> Vec<Case> {
    let raw: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let raw = raw.get("cases").cloned().unwrap_or(raw);
    let Value::Array(raw) = raw else {
        panic!("the cases file holds a list")
    };
    raw.into_iter()
        .filter(|case| case["split"] == split.name())
        .map(|case| {
            let calls = match case.get("calls") {
                Some(Value::Array(calls)) => calls.iter().filter_map(expected).collect(),
                _ => expected(&case).into_iter().collect(),
            };
            Case {
                project: case["project"].as_str().unwrap().to_owned(),
                lang: case["lang"].as_str().unwrap_or("en").to_owned(),
                message: case["message"].as_str().unwrap().to_owned(),
                calls,
            }
        })
        .collect()
}

fn expected(call: &Value) -> Option<Expected> {
    let tool = call["tool"].as_str().filter(|tool| *tool != "none")?;
    let params = call
        .get("params")
        .or_else(|| call.get("arguments"))
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    Some(Expected {
        tool: tool.to_owned(),
        params,
    })
}

/// One case as the dump holds it: the message, what was expected and got,
/// and every candidate's scores and verdicts.
fn dumped(
    case: &Case,
    calls: &[(&str, &Map<String, Value>)],
    right: bool,
    report: &RouteReport,
) -> Value {
    let scores: Vec<Value> = report
        .scores
        .iter()
        .map(|score| {
            serde_json::json!({
                "name": score.name,
                "combined": score.combined,
                "model": score.model,
                "similarity": score.similarity,
                "fit": score.fit,
                "serves": score.serves,
                "covered": score.covered,
                "unasked_change": score.unasked_change,
                "incomplete": score.incomplete,
                "reaches": score.reaches,
            })
        })
        .collect();
    serde_json::json!({
        "lang": case.lang,
        "message": case.message,
        "expected": case.calls.iter().map(|call| call.tool.as_str()).collect::<Vec<_>>(),
        "got": calls.iter().map(|(tool, _)| *tool).collect::<Vec<_>>(),
        "right": right,
        "form": format!("{:?}", report.form),
        "short_of": report.short_of.as_ref().map(|short| format!("{}.{}", short.tool, short.missing)),
        "scores": scores,
    })
}

/// The candidates' scores of `report`, best first, and `none`'s last: what
/// the choice weighed.
fn print_scores(report: &RouteReport) {
    let Some((none, tools)) = report.scores.split_last() else {
        return;
    };
    let mut scores: Vec<_> = tools.iter().collect();
    scores.sort_by(|a, b| b.combined.total_cmp(&a.combined));
    scores.truncate(4);
    scores.push(none);
    for score in scores {
        println!(
            "       {:<20} combined {:6.2} model {:6.2} similarity {:.2}{}{}{}{}{}{} ({:?})",
            score.name,
            score.combined,
            score.model,
            score.similarity,
            if score.serves { "" } else { " not-serving" },
            if score.covered { "" } else { " not-covered" },
            if score.unasked_change {
                " unasked-change"
            } else {
                ""
            },
            if score.shape { " shape" } else { "" },
            if score.incomplete { " incomplete" } else { "" },
            if score.reaches { "" } else { " out-of-reach" },
            report.form,
        );
    }
}

fn add(all: &mut Tally, tally: &Tally) {
    all.unserved += tally.unserved;
    all.no_call += tally.no_call;
    all.served += tally.served;
    all.right_tool += tally.right_tool;
    all.whole_call += tally.whole_call;
    all.whole_message_values += tally.whole_message_values;
    all.multipart += tally.multipart;
    all.every_tool += tally.every_tool;
    all.every_call += tally.every_call;
}

fn print_row(lang: &str, tally: &Tally) {
    println!(
        "| {lang} | {} | {} | {} | {} | {} | {} |",
        percent(tally.no_call, tally.unserved),
        percent(tally.right_tool, tally.served),
        percent(tally.whole_call, tally.served),
        tally.whole_message_values,
        percent(tally.every_tool, tally.multipart),
        percent(tally.every_call, tally.multipart),
    );
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
