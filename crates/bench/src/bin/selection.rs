//! Tool selection for large tool sets (`agent.max_tools_shown`): how often the
//! expected tool is among those shown, and what choosing costs per turn.
//!
//! The tool set is the template tools (`riverse init`) plus generated ones:
//! every pairing of an action with an account object ("archive_invoice",
//! "share_playlist", ...), each with a description and two examples, so the
//! distractors read like real tools. The messages are the routing cases of the
//! template tools (crates/embedded/eval/routing-cases.json, every language).
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
    let mut tools: Vec<ToolManifest> =
        serde_json::from_str(TEMPLATE_TOOLS).context("template-tools.json")?;
    let templates: Vec<String> = tools.iter().map(|tool| tool.name.clone()).collect();
    tools.extend(generated_tools(args.generated));
    let cases: Vec<(String, String)> = serde_json::from_str::<Vec<Value>>(ROUTING_CASES)
        .context("routing-cases.json")?
        .into_iter()
        .filter_map(|case| {
            let tool = case["tool"].as_str()?.to_owned();
            templates
                .contains(&tool)
                .then(|| Some((case["message"].as_str()?.to_owned(), tool)))?
        })
        .collect();
    println!(
        "{} tools ({} template, {} generated), {} messages for the template tools",
        tools.len(),
        templates.len(),
        tools.len() - templates.len(),
        cases.len()
    );
    println!("shown  recall            median µs  p99 µs   build ms");
    for shown in [8, 16, 24, 32, 48] {
        let started = Instant::now();
        let selector = ToolSelector::new(tools.clone(), shown).context("more tools than shown")?;
        let build = started.elapsed();
        let hits = cases
            .iter()
            .filter(|(message, tool)| {
                selector
                    .select(&[], message)
                    .iter()
                    .any(|manifest| &manifest.name == tool)
            })
            .count();
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
            "{shown:>5}  {hits:>3}/{:<3} {:>6.1} %  {:>9.1}  {:>6.1}  {:>8.1}",
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
