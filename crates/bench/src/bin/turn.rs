//! The time Riverse adds to an agent turn.
//!
//! A turn with two trivial Python tool calls, against the scripted
//! OpenAI-compatible server answering at once: one streamed reply asking for
//! both calls, one streamed answer. Riverse's own time is the whole turn less
//! what a bare HTTP client needs for the same two requests to the same server
//! (the server's time, loopback included); the server's handling time alone
//! is shown beside it.
//!
//! ```sh
//! cargo run --release -p riverse-bench --bin turn
//! ```

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Parser;
use riverse_agent::{Settings, TurnEvent, build_agent};
use riverse_test_support::openai::{OpenAiServer, Reply, Request, ev_text, ev_tool_calls};
use serde_json::json;

/// Issue 3's goal for Riverse's own time at the median.
const GOAL: Duration = Duration::from_millis(3);

const TOOL: &str = r#"
from agent.tools import BaseTool, ToolManifest, ToolResult

class Echo(BaseTool):
    def __init__(self, config):
        pass
    def manifest(self):
        return ToolManifest(name=NAME, description="returns its input", parameters={"text": "what to return"})
    def execute(self, params):
        return ToolResult(success=True, data=params.get("text", ""))
"#;

#[derive(Parser)]
#[command(about = "The time Riverse adds to a turn with two trivial tool calls")]
struct Args {
    /// Timed turns.
    #[arg(long, default_value_t = 500)]
    turns: usize,
    /// Untimed turns first, to start workers and warm connections.
    #[arg(long, default_value_t = 30)]
    warmup: usize,
}

fn main() -> ExitCode {
    riverse_bench::run_async("turn", run(Args::parse()))
}

fn replies() -> [Reply; 2] {
    [
        ev_tool_calls(&[
            ("call_a", "alpha", json!({"text": "one"})),
            ("call_b", "beta", json!({"text": "two"})),
        ]),
        ev_text("Both tools answered: one and two."),
    ]
}

async fn run(args: Args) -> anyhow::Result<()> {
    let project = tempfile::tempdir().context("can't make a project directory")?;
    let tools = project.path().join("agent/tools");
    std::fs::create_dir_all(&tools)?;
    for name in ["alpha", "beta"] {
        let source = TOOL.replace("NAME", &format!("{name:?}"));
        std::fs::write(tools.join(format!("{name}.py")), source)?;
    }
    let server = OpenAiServer::start([]);
    let yaml = format!(
        "llm_provider: openai\nopenai: {{api_base: \"{}\", api_key: bench}}\npython: {{workers: 2}}\n",
        server.url()
    );
    let settings = Settings::from_yaml(project.path(), None, &yaml)?;
    let agent = build_agent(&settings).await?;
    let mut turn = Vec::with_capacity(args.turns);
    let mut handled = Vec::with_capacity(args.turns);
    let mut bodies: Vec<Request> = Vec::new();
    for round in 0..args.warmup + args.turns {
        server.push(replies());
        let mut on_event = |_: TurnEvent| {};
        let started = Instant::now();
        let outcome = agent.turn(&[], "Call both tools.", &mut on_event).await?;
        let took = started.elapsed();
        anyhow::ensure!(
            outcome.tool_calls.len() == 2 && outcome.tool_calls.iter().all(|c| c.succeeded()),
            "the tools did not both answer: {:?}",
            outcome.tool_calls
        );
        let requests = server.take_requests();
        if round >= args.warmup {
            turn.push(took);
            handled.push(requests.iter().map(|r| r.handled).sum::<Duration>());
        }
        bodies = requests;
    }

    // The same two requests from a bare client: the server's time as a
    // client sees it, loopback and HTTP included. (Building the agent
    // installed the TLS crypto provider that reqwest needs.)
    let client = reqwest::Client::new();
    let url = format!("{}/chat/completions", server.base_url());
    let mut bare = Vec::with_capacity(args.turns);
    for round in 0..args.warmup + args.turns {
        server.push(replies());
        let started = Instant::now();
        for request in &bodies {
            let response = client.post(&url).json(&request.body).send().await?;
            response.error_for_status()?.bytes().await?;
        }
        let took = started.elapsed();
        server.take_requests();
        if round >= args.warmup {
            bare.push(took);
        }
    }

    let turn_median = median(&mut turn);
    let bare_median = median(&mut bare);
    let own = turn_median.saturating_sub(bare_median);
    let mut own_of_handled: Vec<Duration> = turn
        .iter()
        .zip(&handled)
        .map(|(t, h)| t.saturating_sub(*h))
        .collect();
    println!(
        "A turn with two trivial Python tool calls, {} turns, medians:",
        args.turns
    );
    println!(
        "  whole turn                                  {}",
        ms(turn_median)
    );
    println!(
        "  the same two requests from a bare client    {}",
        ms(bare_median)
    );
    println!(
        "  the server's own handling                   {}",
        ms(median(&mut handled.clone()))
    );
    println!(
        "  Riverse's own time (turn - bare client)     {}   goal <= {}",
        ms(own),
        ms(GOAL)
    );
    println!(
        "  turn - server handling (loopback included)  {}",
        ms(median(&mut own_of_handled))
    );
    println!(
        "  p90 of the whole turn                       {}",
        ms(percentile(&mut turn, 90.0))
    );
    Ok(())
}

fn median(samples: &mut [Duration]) -> Duration {
    percentile(samples, 50.0)
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort_unstable();
    if samples.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * samples.len() as f64).ceil() as usize;
    samples[rank.clamp(1, samples.len()) - 1]
}

fn ms(duration: Duration) -> String {
    format!("{:.3} ms", duration.as_secs_f64() * 1e3)
}
