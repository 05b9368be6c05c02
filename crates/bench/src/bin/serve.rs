//! `riverse serve` under load.
//!
//! The server (the same `riverse_server::serve` the command runs) on a
//! loopback port, the scripted OpenAI-compatible server answering at once,
//! and a trivial Python tool. Clients post one-tool turns to conversations
//! (`POST /v1/conversations/{id}/messages`, not streamed; four turns to a
//! conversation) at concurrency 1, 8 and 64: requests per second and p50/p99 latency, beside the bare
//! scripted server's own rate for one model request at the same
//! concurrency (a one-tool turn makes two). Afterwards every conversation
//! is read back: every message and tool call must be there.
//!
//! ```sh
//! cargo run --release -p riverse-bench --bin serve [-- --postgres URL]
//! ```

// The host benchmark's statistics; this one uses only part of them.
#[path = "host/stats.rs"]
#[allow(dead_code)]
mod stats;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use clap::Parser;
use riverse_agent::{Settings, build_agent};
use riverse_server::{AppState, ServerOptions};
use riverse_store::{PostgresStore, SqliteStore, Store};
use riverse_test_support::Project;
use riverse_test_support::openai::{OpenAiServer, ev_tool_round};
use serde_json::{Value, json};
use stats::Samples;

const TOOL: &str = r#"
from agent.tools import BaseTool, ToolManifest, ToolResult

class Echo(BaseTool):
    def manifest(self):
        return ToolManifest(name="echo", description="returns its input", parameters={"text": "what to return"})
    def execute(self, params):
        return ToolResult(success=True, data=params.get("text", ""))
"#;

/// The concurrency levels measured.
const LEVELS: [usize; 3] = [1, 8, 64];

#[derive(Parser)]
#[command(about = "Requests per second and latency of one-tool turns through riverse serve")]
struct Args {
    /// Timed turns at each concurrency level.
    #[arg(long, default_value_t = 640)]
    turns: usize,
    /// Also measure with conversations in this PostgreSQL database.
    #[arg(long)]
    postgres: Option<String>,
    /// Python workers running the tool.
    #[arg(long, default_value_t = 4)]
    workers: usize,
}

fn main() -> ExitCode {
    riverse_bench::run_async("serve", run(Args::parse()))
}

/// One level's results.
struct Level {
    concurrency: usize,
    per_second: f64,
    latency: Samples,
}

async fn run(args: Args) -> anyhow::Result<()> {
    let llm = OpenAiServer::start([]).fallback(ev_tool_round(
        "c1",
        "echo",
        json!({"text": "hi"}),
        "done",
    ));
    let project = Project::new();
    project.tool("echo.py", TOOL);
    let yaml = format!(
        "llm_provider: openai\nopenai: {{api_base: \"{}\", api_key: sk-bench, max_retries: 0}}\n\
         agent: {{tool_mode: native}}\npython: {{workers: {}}}\n",
        llm.url(),
        args.workers
    );
    let settings = Settings::from_yaml(project.path(), None, &yaml)?;
    // Building an agent installs the TLS provider reqwest needs.
    let agent = Arc::new(build_agent(&settings).await?);
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(128)
        .build()?;

    println!(
        "One-tool turns through riverse serve, {} turns per level, {} Python workers",
        args.turns, args.workers
    );
    println!(
        "{:<12} {:>6} {:>12} {:>10} {:>10}",
        "", "conc.", "req/s", "p50", "p99"
    );
    for concurrency in LEVELS {
        let bare = bare_level(&client, &llm, concurrency, args.turns).await?;
        print_level("bare LLM", bare);
    }
    let mut backends = vec![(
        "sqlite",
        Store::Sqlite(SqliteStore::open(&project.path().join(".riverse/riverse.db")).await?),
    )];
    if let Some(url) = &args.postgres {
        backends.push((
            "postgres",
            Store::Postgres(PostgresStore::connect(url).await?),
        ));
    }
    for (name, store) in backends {
        let state = AppState::new(
            agent.clone(),
            store,
            ServerOptions {
                max_concurrent_turns: 64,
                turn_timeout: Duration::from_secs(60),
                ..ServerOptions::new(&settings.serve, settings.language, None)
            },
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}", listener.local_addr()?);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(riverse_server::serve(
            listener,
            state,
            async move {
                let _ = stopped.await;
            },
            Duration::from_secs(5),
        ));
        // Warm the workers and connections.
        turn_level(&client, &url, 8, 64).await?;
        for concurrency in LEVELS {
            let level = turn_level(&client, &url, concurrency, args.turns).await?;
            print_level(name, level);
        }
        let _ = stop.send(());
        server.await??;
    }
    Ok(())
}

fn print_level(name: &str, mut level: Level) {
    println!(
        "{name:<12} {:>6} {:>12.0} {:>10} {:>10}",
        level.concurrency,
        level.per_second,
        ms(level.latency.median()),
        ms(level.latency.percentile(99.0)),
    );
}

/// Turns posted to one conversation before a client starts the next: a
/// conversation's history goes to the model with every turn, so longer ones
/// would measure the history's length rather than the server.
const TURNS_PER_CONVERSATION: usize = 4;

/// `turns` turns from `concurrency` clients, each posting to conversations
/// of its own in turn; then each conversation is checked.
async fn turn_level(
    client: &reqwest::Client,
    url: &str,
    concurrency: usize,
    turns: usize,
) -> anyhow::Result<Level> {
    let per_client = turns.div_ceil(concurrency);
    let started = Instant::now();
    let clients: Vec<_> = (0..concurrency)
        .map(|_| {
            let (client, url) = (client.clone(), url.to_owned());
            tokio::spawn(async move { client_turns(&client, &url, per_client).await })
        })
        .collect();
    let mut latency = Samples::with_capacity(per_client * concurrency);
    let mut conversations = Vec::new();
    for handle in clients {
        let (latencies, ids) = handle.await??;
        for took in latencies {
            latency.push(took);
        }
        conversations.extend(ids);
    }
    let elapsed = started.elapsed();
    let mut checked = 0;
    for (id, turns) in &conversations {
        let conversation: Value = client
            .get(format!("{url}/v1/conversations/{id}"))
            .send()
            .await?
            .error_for_status()?
            .json()
            .await?;
        let messages = conversation["messages"].as_array().context("no messages")?;
        ensure!(
            messages.len() == 2 * turns,
            "conversation {id} has {} messages, expected {}",
            messages.len(),
            2 * turns
        );
        for answer in messages.iter().skip(1).step_by(2) {
            ensure!(
                answer["status"] == "done" && answer["tool_calls"][0]["success"] == true,
                "conversation {id} lost part of a turn: {answer}"
            );
        }
        checked += turns;
    }
    ensure!(
        checked == latency.len(),
        "{checked} turns stored of {}",
        latency.len()
    );
    Ok(Level {
        concurrency,
        per_second: latency.len() as f64 / elapsed.as_secs_f64(),
        latency,
    })
}

/// One client's `turns` turns, timed, in conversations of
/// [`TURNS_PER_CONVERSATION`]; returns the times and each conversation with
/// its number of turns.
async fn client_turns(
    client: &reqwest::Client,
    url: &str,
    turns: usize,
) -> anyhow::Result<(Vec<Duration>, Vec<(String, usize)>)> {
    let mut latencies = Vec::with_capacity(turns);
    let mut conversations: Vec<(String, usize)> = Vec::new();
    for turn in 0..turns {
        if turn % TURNS_PER_CONVERSATION == 0 {
            let created: Value = client
                .post(format!("{url}/v1/conversations"))
                .send()
                .await?
                .error_for_status()?
                .json()
                .await?;
            let id = created["id"].as_str().context("no conversation id")?;
            conversations.push((id.to_owned(), 0));
        }
        let (id, count) = conversations.last_mut().context("no conversation")?;
        let sent = Instant::now();
        let answer: Value = client
            .post(format!("{url}/v1/conversations/{id}/messages"))
            .json(&json!({"content": "echo hi", "stream": false}))
            .send()
            .await?
            .error_for_status()?
            .json()
            .await?;
        latencies.push(sent.elapsed());
        ensure!(answer["content"] == "done", "unexpected answer {answer}");
        *count += 1;
    }
    Ok((latencies, conversations))
}

/// The scripted server alone: one model request (the first of a turn) per
/// call, from `concurrency` clients.
async fn bare_level(
    client: &reqwest::Client,
    llm: &OpenAiServer,
    concurrency: usize,
    requests: usize,
) -> anyhow::Result<Level> {
    let per_client = requests.div_ceil(concurrency);
    let endpoint = format!("{}/chat/completions", llm.base_url());
    let body = json!({"model": "bench", "messages": [{"role": "user", "content": "echo hi"}]});
    let started = Instant::now();
    let clients: Vec<_> = (0..concurrency)
        .map(|_| {
            let (client, endpoint, body) = (client.clone(), endpoint.clone(), body.clone());
            tokio::spawn(async move {
                let mut latencies = Vec::with_capacity(per_client);
                for _ in 0..per_client {
                    let sent = Instant::now();
                    client
                        .post(&endpoint)
                        .json(&body)
                        .send()
                        .await?
                        .error_for_status()?
                        .bytes()
                        .await?;
                    latencies.push(sent.elapsed());
                }
                Ok::<_, anyhow::Error>(latencies)
            })
        })
        .collect();
    let mut latency = Samples::with_capacity(requests);
    for handle in clients {
        for took in handle.await?? {
            latency.push(took);
        }
    }
    let elapsed = started.elapsed();
    llm.take_requests();
    Ok(Level {
        concurrency,
        per_second: latency.len() as f64 / elapsed.as_secs_f64(),
        latency,
    })
}

fn ms(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1e3)
}
