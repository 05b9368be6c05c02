//! `riverse eval`: routes each case with the configured model and reports how
//! often it picked the right tool and parameters, and chooses each skill
//! case's skills as a turn would and reports how often it chose right.

use std::io::IsTerminal;
use std::path::PathBuf;

use indicatif::{ProgressBar, ProgressStyle};
use riverse_agent::eval::skills as eval_skills;
use riverse_agent::eval::{self, Outcome, Report};
use riverse_agent::options::skills_options;
use riverse_agent::{Agent, LlmProvider, Settings, build_agent};
use riverse_skills::SkillSet;
use riverse_skills::eval::{NO_SKILL, SkillCase, SkillOutcome, SkillReport};
use riverse_tool::Registry;
use serde_json::{Value, json};

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
    let cases = tool_cases(settings, registry, &args)?;
    // One tool's cases are that tool's alone; skills are scored otherwise.
    let options = skills_options(settings);
    let skills = riverse_skills::load(&options);
    let skill_cases = match args.tool {
        Some(_) => Vec::new(),
        None => eval_skills::skill_cases(&skills, &options.dir)?,
    };
    if cases.is_empty() && skill_cases.is_empty() {
        return Err(usage(
            "no cases: give tools or skills examples, or write agent/tools/<tool>.eval.yaml \
             or agent/skills/<name>.eval.yaml",
        ));
    }
    let report = match cases.is_empty() {
        true => None,
        false => Some(route_tools(settings, &agent, cases, args.jobs).await?),
    };
    let skill_report = match skill_cases.is_empty() {
        true => None,
        false => Some(choose_skills(&agent, &skills, skill_cases).await?),
    };
    if args.json {
        print_json(&json_report(report.as_ref(), skill_report.as_ref()))?;
    } else {
        let tools = report.as_ref().map(table).unwrap_or_default();
        let skills = skill_report.as_ref().map(skill_table).unwrap_or_default();
        let gap = if tools.is_empty() || skills.is_empty() {
            ""
        } else {
            "\n"
        };
        print(&format!("{tools}{gap}{skills}"))?;
    }
    let accuracies = [
        ("accuracy", report.map(|report| report.accuracy)),
        ("skill accuracy", skill_report.map(|report| report.accuracy)),
    ];
    let mut exit = Exit::Success;
    for (what, accuracy) in accuracies {
        if let (Some(min), Some(accuracy)) = (args.min_accuracy, accuracy)
            && accuracy < min
        {
            eprintln!(
                "riverse: {what} {:.1} % is under --min-accuracy {:.1} %",
                accuracy * 100.0,
                min * 100.0
            );
            exit = Exit::Failure;
        }
    }
    Ok(exit)
}

/// The tool cases: examples, files beside the tools, files named.
fn tool_cases(
    settings: &Settings,
    registry: &Registry,
    args: &EvalArgs,
) -> anyhow::Result<Vec<eval::Case>> {
    let mut cases = eval::example_cases(registry);
    let files = eval::case_files_beside_tools(&settings.tools_dir())
        .into_iter()
        .chain(args.cases.iter().cloned());
    for file in files {
        cases.extend(eval::load_case_file(&file)?);
    }
    if let Some(tool) = &args.tool {
        cases.retain(|case| &case.tool == tool);
    }
    Ok(cases)
}

async fn route_tools(
    settings: &Settings,
    agent: &Agent,
    cases: Vec<eval::Case>,
    jobs: Option<usize>,
) -> anyhow::Result<Report> {
    let jobs = jobs.unwrap_or(match settings.llm_provider {
        LlmProvider::Embedded => 1,
        _ => REMOTE_JOBS,
    });
    let progress = progress_bar(cases.len(), "routing");
    let mut on_done = |_: &Outcome| progress.inc(1);
    let outcomes = eval::run(agent, cases, jobs, &mut on_done).await;
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
    Ok(Report::of(outcomes, &agent.registry()))
}

async fn choose_skills(
    agent: &Agent,
    skills: &SkillSet,
    cases: Vec<SkillCase>,
) -> anyhow::Result<SkillReport> {
    let progress = progress_bar(cases.len(), "choosing skills");
    let mut on_done = |_: &SkillOutcome| progress.inc(1);
    let choices = eval_skills::choose_skills(agent, skills, cases, &mut on_done).await;
    progress.finish_and_clear();
    if let Some(error) = choices.errors.first() {
        // A case the model was to choose for could not be asked.
        anyhow::bail!("{error}");
    }
    let names: Vec<String> = skills.skills().map(|skill| skill.name.clone()).collect();
    Ok(SkillReport::of(choices.outcomes, &names))
}

/// The tool report's JSON, with the skill report under `skills` when there
/// were skill cases.
fn json_report(report: Option<&Report>, skills: Option<&SkillReport>) -> Value {
    let mut value = report.map_or_else(|| json!({}), |report| json!(report));
    if let Some(skills) = skills {
        value["skills"] = json!(skills);
    }
    value
}

/// A bar on stderr when a person watches it; nothing otherwise.
fn progress_bar(cases: usize, doing: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(cases as u64);
    if let Ok(style) =
        ProgressStyle::with_template(&format!("{doing} {{bar:30}} {{pos}}/{{len}} cases {{eta}}"))
    {
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

/// Per skill: cases, how often it was chosen, precision and recall; then
/// each case that went wrong, the confusions, and the skill accuracy.
fn skill_table(report: &SkillReport) -> String {
    let width = report
        .skills
        .iter()
        .map(|row| row.skill.chars().count())
        .max()
        .unwrap_or(0)
        .max(5);
    let mut out = format!("{:width$}  CASES  CHOSEN  PRECISION  RECALL\n", "SKILL");
    for row in &report.skills {
        out.push_str(&format!(
            "{:width$}  {:>5}  {:>6}  {:>9}  {:>6}\n",
            row.skill,
            row.cases,
            row.chosen,
            share(row.precision),
            share(row.recall),
        ));
    }
    let missed: Vec<String> = report
        .outcomes
        .iter()
        .filter(|outcome| !outcome.right)
        .map(|outcome| {
            let got = match outcome.chosen.is_empty() {
                true => NO_SKILL.to_owned(),
                false => outcome.chosen.join(", "),
            };
            let case = &outcome.case;
            format!(
                "miss: {:?} expected {}, got {got}",
                case.message, case.skill
            )
        })
        .collect();
    if !missed.is_empty() {
        out.push('\n');
        out.push_str(&missed.join("\n"));
        out.push('\n');
    }
    out.push_str(&format!(
        "\nskill right {}/{} ({:.1} %)\n",
        report.right,
        report.cases,
        report.accuracy * 100.0
    ));
    for confusion in &report.confusions {
        out.push_str(&format!(
            "confused: {} of {}'s cases chose {}\n",
            confusion.count, confusion.expected, confusion.chosen
        ));
    }
    if !report.without_cases.is_empty() {
        out.push_str(&format!(
            "skills without cases (add examples): {}\n",
            report.without_cases.join(", ")
        ));
    }
    out
}

/// `75 %`, or `-` when there is nothing to count.
fn share(ratio: Option<f64>) -> String {
    ratio.map_or_else(|| "-".to_owned(), |ratio| format!("{:.0} %", ratio * 100.0))
}
