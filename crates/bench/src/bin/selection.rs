//! Tool selection for large tool sets (`agent.max_tools_shown`): how often the
//! expected tool is among those shown, and what choosing costs per turn.
//!
//! The tool set is the embedded router's evaluation tools (the three template
//! tools of `riverse init` and seven more: web search, calculator, timer,
//! email, translate, read file, stock price) plus generated ones: every pairing
//! of an action with an account object ("archive_invoice", "share_playlist",
//! ...), each with a description and two examples, so the distractors read
//! like real tools. The messages are every routing case that expects a tool
//! (crates/embedded/eval/routing-cases.json, both splits, every language);
//! recall is given for the template tools' cases and for all.
//!
//! ```sh
//! cargo run --release -p riverse-bench --bin selection -- --generated 200
//! ```

use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Parser;
use riverse_agent::ToolSelector;
use riverse_tool::ToolManifest;
use serde_json::{Value, json};

const TEMPLATE_TOOLS: &str = include_str!("../../../embedded/eval/template-tools.json");
const ROUTING_TOOLS: &str = include_str!("../../../embedded/eval/routing-tools.json");
const ROUTING_CASES: &str = include_str!("../../../embedded/eval/routing-cases.json");

const ACTIONS: &[&str] = &[
    "create",
    "list",
    "delete",
    "update",
    "search",
    "export",
    "summarize",
    "archive",
    "share",
    "count",
];
const OBJECTS: &[&str] = &[
    "invoice",
    "calendar event",
    "github issue",
    "email draft",
    "playlist",
    "expense report",
    "contact",
    "support ticket",
    "shopping list",
    "photo album",
    "bookmark",
    "database backup",
    "meeting note",
    "recipe",
    "workout log",
    "flight booking",
    "code review",
    "customer order",
    "slack message",
    "pdf document",
    "train ticket",
    "git branch",
    "blog post",
    "tax form",
];

#[derive(Parser)]
struct Args {
    /// Generated tools beside the template tools.
    #[arg(long, default_value_t = 200)]
    generated: usize,
    /// Selections timed per size.
    #[arg(long, default_value_t = 2000)]
    repeats: usize,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let templates: Vec<String> = serde_json::from_str::<Vec<ToolManifest>>(TEMPLATE_TOOLS)
        .context("template-tools.json")?
        .into_iter()
        .map(|tool| tool.name)
        .collect();
    let mut tools: Vec<ToolManifest> =
        serde_json::from_str(ROUTING_TOOLS).context("routing-tools.json")?;
    let real = tools.len();
    tools.extend(generated_tools(args.generated));
    let cases: Vec<(String, String)> = serde_json::from_str::<Vec<Value>>(ROUTING_CASES)
        .context("routing-cases.json")?
        .into_iter()
        .filter_map(|case| {
            let tool = case["tool"].as_str()?.to_owned();
            Some((case["message"].as_str()?.to_owned(), tool))
        })
        .filter(|(_, tool)| tool != "none")
        .collect();
    let template_cases = cases
        .iter()
        .filter(|(_, tool)| templates.contains(tool))
        .count();
    println!(
        "{} tools ({real} real, {} generated); {} messages expecting a tool, {template_cases} of them a template tool",
        tools.len(),
        tools.len() - real,
        cases.len(),
    );
    println!("shown  template recall   all recall        median µs  p99 µs   build ms");
    for shown in [8, 16, 24, 32, 48] {
        let started = Instant::now();
        let selector = ToolSelector::new(tools.clone(), shown).context("more tools than shown")?;
        let build = started.elapsed();
        let hit: Vec<(bool, bool)> = cases
            .iter()
            .map(|(message, tool)| {
                let shown = selector
                    .select(&[], message)
                    .iter()
                    .any(|manifest| &manifest.name == tool);
                (templates.contains(tool), shown)
            })
            .collect();
        let template_hits = hit
            .iter()
            .filter(|(template, shown)| *template && *shown)
            .count();
        let hits = hit.iter().filter(|(_, shown)| *shown).count();
        let mut times: Vec<Duration> = (0..args.repeats)
            .map(|repeat| {
                let (message, _) = &cases[repeat % cases.len()];
                let started = Instant::now();
                std::hint::black_box(selector.select(&[], message));
                started.elapsed()
            })
            .collect();
        times.sort();
        println!(
            "{shown:>5}  {template_hits:>3}/{template_cases:<3} {:>6.1} %  {hits:>3}/{:<3} {:>6.1} %  {:>9.1}  {:>6.1}  {:>8.1}",
            template_hits as f64 * 100.0 / template_cases.max(1) as f64,
            cases.len(),
            hits as f64 * 100.0 / cases.len() as f64,
            micros(times[times.len() / 2]),
            micros(times[times.len() * 99 / 100]),
            build.as_secs_f64() * 1000.0
        );
    }
    Ok(())
}

fn generated_tools(count: usize) -> Vec<ToolManifest> {
    ACTIONS
        .iter()
        .flat_map(|action| OBJECTS.iter().map(move |object| (*action, *object)))
        .take(count)
        .filter_map(|(action, object)| {
            serde_json::from_value(json!({
                "name": format!("{action}_{}", object.replace(' ', "_")),
                "description": format!("{} a {object} in the user's account", capitalized(action)),
                "parameters": {"id": format!("Which {object}"), "note": "Optional note"},
                "examples": [
                    format!("{} my {object} from yesterday", capitalized(action)),
                    format!("Can you {action} the {object} named 'Q3'?"),
                ],
            }))
            .ok()
        })
        .collect()
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}
