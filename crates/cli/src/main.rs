//! The `riverse` command line.

mod cli;
mod commands;
mod live;
mod output;

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use tokio::signal::unix::{SignalKind, signal};

use crate::cli::Cli;
use crate::output::{Exit, UsageError};

/// How long Riverse waits, as it exits, for what its killed workers and
/// servers printed to reach the log.
const OUTPUT_DRAIN_GRACE: Duration = Duration::from_millis(500);

/// How the command ended.
enum Ended {
    Ran(anyhow::Result<Exit>),
    /// A signal that ends Riverse arrived (its number).
    Signal(i32),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let (_flush_logs, dropped_logs) = init_logging(cli.global.verbose);
    // `riverse mcp` on stdio runs on this one thread: it relays one client's
    // requests to tools that run in other processes, and on two threads every
    // request woke the other thread, which cost a third of the server's CPU
    // per call (docs/performance.md). The rest use two threads.
    let runtime = match cli.command {
        cli::Command::Mcp { http: None } => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
        _ => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build(),
    };
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("riverse: can't start the async runtime: {err}");
            return ExitCode::from(1);
        }
    };
    // The command runs as a task on the runtime's threads, beside the tasks that
    // read its Python workers' replies. Run by `block_on` on this thread instead,
    // every reply would have to wake this thread from another one, which about
    // doubled the cost of a warm tool call (docs/performance.md).
    // `riverse chat` reads Ctrl-C itself: it cancels the turn under way.
    // `riverse serve` and `riverse mcp --http` read Ctrl-C and SIGTERM
    // themselves: they stop accepting and let the turns and calls in flight
    // finish, then exit 0.
    let ending = match cli.command {
        cli::Command::Chat => vec![SignalKind::terminate(), SignalKind::hangup()],
        cli::Command::Serve { .. } | cli::Command::Mcp { http: Some(_) } => {
            vec![SignalKind::hangup()]
        }
        _ => vec![
            SignalKind::terminate(),
            SignalKind::hangup(),
            SignalKind::interrupt(),
        ],
    };
    let ended = runtime.block_on(async {
        let command = tokio::spawn(commands::run(cli));
        tokio::select! {
            ran = command => Ended::Ran(
                ran.unwrap_or_else(|err| std::panic::resume_unwind(err.into_panic())),
            ),
            number = termination(ending) => Ended::Signal(number),
        }
    });
    // Every worker and server goes with Riverse, whatever the command left
    // running, and what they printed reaches the log. Nothing else is waited on.
    riverse_process::shutdown(OUTPUT_DRAIN_GRACE);
    runtime.shutdown_background();
    let dropped = dropped_logs.dropped_lines();
    if dropped > 0 {
        tracing::warn!("{dropped} log lines were dropped while stderr was not being read");
    }
    let outcome = match ended {
        Ended::Ran(outcome) => outcome,
        // The conventional status: 128 + the signal's number (130 for SIGINT,
        // 143 for SIGTERM).
        Ended::Signal(number) => return ExitCode::from((128 + number) as u8),
    };
    match outcome {
        Ok(Exit::Success) => ExitCode::SUCCESS,
        Ok(Exit::Failure) => ExitCode::from(1),
        Err(err) if output::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("riverse: {err:#}");
            if err.downcast_ref::<UsageError>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

/// Waits for one of the signals of `kinds` and returns its number. Riverse has
/// child process groups of its own that the terminal's signal does not reach:
/// it must kill them itself before it exits.
async fn termination(kinds: Vec<SignalKind>) -> i32 {
    let mut streams = Vec::new();
    for kind in kinds {
        match signal(kind) {
            Ok(stream) => streams.push((kind.as_raw_value(), stream)),
            Err(err) => tracing::warn!("can't handle signal {}: {err}", kind.as_raw_value()),
        }
    }
    if streams.is_empty() {
        return std::future::pending().await;
    }
    let waits = streams.iter_mut().map(|(number, stream)| {
        let number = *number;
        Box::pin(async move {
            stream.recv().await;
            number
        })
    });
    futures_util::future::select_all(waits).await.0
}

/// Logs go to stderr. `RUST_LOG` wins; otherwise warnings, plus what tools print.
/// They are written from a thread of their own through a bounded buffer that
/// drops lines when stderr is full: an MCP host that never reads Riverse's
/// stderr must not stall the server (and what tools print never blocks the
/// protocol). The guard writes what is buffered when it drops.
fn init_logging(
    verbose: u8,
) -> (
    tracing_appender::non_blocking::WorkerGuard,
    tracing_appender::non_blocking::ErrorCounter,
) {
    use tracing_subscriber::EnvFilter;
    let default = match verbose {
        0 => "warn,tool=info,reload=info,environment=info",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .lossy(true)
        .buffered_lines_limit(LOG_BUFFER_LINES)
        .thread_name("riverse-log")
        .finish(AboveBars);
    let dropped = writer.error_counter();
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        // Colour only for a person: logs piped to a file or a test stay plain.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false)
        .without_time()
        .init();
    (guard, dropped)
}

/// Stderr, written above the tool bars a command draws there.
struct AboveBars;

impl std::io::Write for AboveBars {
    fn write(&mut self, text: &[u8]) -> std::io::Result<usize> {
        live::write_above_bars(text)?;
        Ok(text.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

/// Log lines held while stderr is not being read; past this, lines are dropped.
const LOG_BUFFER_LINES: usize = 4096;
