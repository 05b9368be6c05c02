//! The `riverse` command line.

mod cli;
mod commands;
mod live;
mod output;
mod telemetry;

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
    // The settings are read before logging starts: they say how logs are
    // written and where traces go.
    let settings = match commands::read_settings(&cli) {
        Ok(settings) => settings,
        Err(err) => {
            eprintln!("riverse: {err:#}");
            return ExitCode::from(1);
        }
    };
    let telemetry = telemetry::start(telemetry::Options {
        verbose: cli.global.verbose,
        log_format: cli.global.log_format.map(Into::into),
        settings: settings.as_ref(),
    });
    for warning in settings.iter().flat_map(|settings| &settings.warnings) {
        tracing::warn!("{warning}");
    }
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
        let command = tokio::spawn(commands::run(cli, settings));
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
    // The last spans are sent, then the last log lines written.
    telemetry.finish();
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
