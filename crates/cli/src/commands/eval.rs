//! `riverse eval`: routes each case with the configured model and reports how
//! often it picked the right tool and parameters.

use std::io::IsTerminal;
use std::path::PathBuf;

use indicatif::{ProgressBar, ProgressStyle};
use riverse_agent::eval::{self, Outcome, Report};
use riverse_agent::{LlmProvider, Settings, build_agent};
use serde_json::Value;

use crate::output::{Exit, print, print_json, usage};

/// Cases routed at once on a remote model; the embedded model takes one at a time.
const REMOTE_JOBS: usize = 4;

pub struct EvalArgs {
    pub tool: Option<String>,
    pub cases: Vec<PathBuf>,
    pub json: bool,
    pub min_accuracy: Option<f64>,
    pub jobs: Option<usize>,
}

pub async fn run(settings: &Settings, args: EvalArgs) -> anyhow::Result<Exit> {
    if let Some(min) = args.min_accuracy
        && !(0.0..=1.0).contains(&min)
    {
        return Err(usage(format!(
            "--min-accuracy must be from 0 to 1, got {min}"
        )));
    }
    let agent = build_agent(settings).await?;
    let registry = &agent.registry();
    if let Some(tool) = &args.tool
        && registry.get(tool).is_none()
    {
        return Err(usage(format!(
            "no available tool {tool:?} (see riverse tools)"
        )));
    }
    let mut cases = eval::example_cases(registry);
    let files = eval::case_files_beside_tools(&settings.tools_dir())
        .into_iter()
        .chain(args.cases);
    for file in files {
        cases.extend(eval::load_case_file(&file)?);
    }
    if let Some(tool) = &args.tool {
        cases.retain(|case| &case.tool == tool);
    }
    if cases.is_empty() {
        return Err(usage(
            "no cases: give tools examples, or write agent/tools/<tool>.eval.yaml",
        ));
    }
    let jobs = args.jobs.unwrap_or(match settings.llm_provider {
        LlmProvider::Embedded => 1,
        _ => REMOTE_JOBS,
    });
    let progress = progress_bar(cases.len());
    let mut on_done = |_: &Outcome| progress.inc(1);
    let outcomes = eval::run(&agent, cases, jobs, &mut on_done).await;
    progress.finish_and_clear();
    if let Some(error) = outcomes
        .iter()
        .map(|outcome| outcome.error.as_deref())
        .collect::<Option<Vec<_>>>()
        .and_then(|errors| errors.first().copied())
    {
        // Not one case could be routed: the LLM is not there.
        anyhow::bail!("{error}");
    }
    let report = Report::of(outcomes, registry);
    if args.json {
        print_json(&report)?;
    } else {
        print(&table(&report))?;
    }
    match args.min_accuracy {
        Some(min) if report.accuracy < min => {
            eprintln!(
                "riverse: accuracy {:.1} % is under --min-accuracy {:.1} %",
                report.accuracy * 100.0,
                min * 100.0
            );
            Ok(Exit::Failure)
        }
        _ => Ok(Exit::Success),
    }
}

/// A bar on stderr when a person watches it; nothing otherwise.
fn progress_bar(cases: usize) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(cases as u64);
    if let Ok(style) = ProgressStyle::with_template("routing {bar:30} {pos}/{len} cases {eta}") {
        bar.set_style(style);
    }
    bar
}

fn table(report: &Report) -> String {
    let width = report
        .tools
        .iter()
        .map(|row| row.tool.chars().count())
        .max()
        .unwrap_or(0)
        .max(4);
    let mut out = format!("{:width$}  CASES  TOOL    PARAMS  MISSES\n", "TOOL");
    for row in &report.tools {
        let params = match row.params_checked {
            0 => "-".to_owned(),
            checked => format!("{}/{checked}", row.params_right),
        };
        let misses: Vec<String> = row
            .misses
            .iter()
            .map(|(went, count)| format!("{count} → {went}"))
            .collect();
        let line = format!(
            "{:width$}  {:>5}  {:<6}  {:<6}  {}",
            row.tool,
            row.cases,
            format!("{}/{}", row.tool_right, row.cases),
            params,
            misses.join(", ")
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    let missed: Vec<String> = report
        .outcomes
        .iter()
        .filter(|outcome| !outcome.call_right() && outcome.error.is_none())
        .map(miss)
        .collect();
    if !missed.is_empty() {
        out.push('\n');
        out.push_str(&missed.join("\n"));
        out.push('\n');
    }
    out.push_str(&format!(
        "\ntool right {}/{} ({:.1} %), whole call right {}/{} ({:.1} %)\n",
        report.tool_right,
        report.cases,
        percent(report.tool_right, report.cases),
        report.call_right,
        report.cases,
        report.accuracy * 100.0
    ));
    if report.no_call_cases > 0 {
        let tool_cases = report.cases - report.no_call_cases;
        let tool_cases_right = report.tool_right - report.no_call_right;
        out.push_str(&format!(
            "no call where none is expected {}/{} ({:.1} %), the right tool where one is {}/{} ({:.1} %)\n",
            report.no_call_right,
            report.no_call_cases,
            percent(report.no_call_right, report.no_call_cases),
            tool_cases_right,
            tool_cases,
            percent(tool_cases_right, tool_cases),
        ));
    }
    if let Some(recall) = report.selection_recall {
        out.push_str(&format!(
            "the expected tool was among the tools shown (agent.max_tools_shown) in {:.1} % of cases\n",
            recall * 100.0
        ));
    }
    for confusion in &report.confusions {
        let [a, b] = &confusion.tools;
        let [to_b, to_a] = confusion.counts;
        out.push_str(&format!(
            "confusable: {a} and {b} ({to_b} of {a}'s cases went to {b}, {to_a} of {b}'s to {a}): their descriptions overlap\n"
        ));
    }
    if !report.without_cases.is_empty() {
        out.push_str(&format!(
            "no cases (add examples): {}\n",
            report.without_cases.join(", ")
        ));
    }
    let failed: Vec<&str> = report
        .outcomes
        .iter()
        .filter_map(|outcome| outcome.error.as_deref())
        .collect();
    if let Some(first) = failed.first() {
        out.push_str(&format!(
            "{} cases could not be routed: {first}\n",
            failed.len()
        ));
    }
    out
}

/// `miss: "Rain in Oslo?" expected weather {"city":"Oslo"}, got weather {"city":"Osaka"}`
fn miss(outcome: &Outcome) -> String {
    let case = &outcome.case;
    let expected = match &case.params {
        Some(params) => call_text(&case.tool, &Value::Object(params.clone())),
        None => case.tool.clone(),
    };
    let got = match outcome.judged_call() {
        Some(call) => call_text(&call.tool, &call.params),
        None => eval::NO_TOOL.to_owned(),
    };
    format!("miss: {:?} expected {expected}, got {got}", case.message)
}

fn call_text(tool: &str, params: &Value) -> String {
    match params {
        Value::Object(params) if params.is_empty() => tool.to_owned(),
        params => format!("{tool} {params}"),
    }
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}
