//! The `riverse` command line.

mod cli;
mod commands;
mod output;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::Cli;
use crate::output::{Exit, UsageError};

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.global.verbose);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
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
    let outcome = runtime.block_on(async {
        tokio::spawn(commands::run(cli))
            .await
            .unwrap_or_else(|err| std::panic::resume_unwind(err.into_panic()))
    });
    // Workers are killed as their handles drop; don't wait on anything else.
    runtime.shutdown_background();
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

/// Logs go to stderr. `RUST_LOG` wins; otherwise warnings, plus what tools print.
fn init_logging(verbose: u8) {
    use tracing_subscriber::EnvFilter;
    let default = match verbose {
        0 => "warn,tool=info",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        // Colour only for a person: logs piped to a file or a test stay plain.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false)
        .without_time()
        .init();
}
