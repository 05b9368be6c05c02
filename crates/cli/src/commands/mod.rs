//! One module per command.

mod ask;
mod call;
mod chat;
mod eval;
mod init;
mod mcp;
mod new;
mod reload;
mod serve;
mod sync;
mod tools;

use anyhow::Context;
use riverse_agent::Settings;

use crate::cli::{Cli, Command, GlobalArgs};
use crate::output::Exit;

pub async fn run(cli: Cli) -> anyhow::Result<Exit> {
    match cli.command {
        Command::Init {
            target,
            force,
            tools,
        } => init::run(
            &target.unwrap_or_else(|| cli.global.dir.clone()),
            force,
            tools,
        ),
        Command::Tools { json } => tools::run(&load_settings(&cli.global)?, json).await,
        Command::Call {
            name,
            pairs,
            params,
            json,
            yes,
        } => {
            let settings = load_settings(&cli.global)?;
            let params = call::parse_params(&pairs, params.as_deref())?;
            call::run(&settings, &name, params, json, yes).await
        }
        Command::Mcp { http } => mcp::run(&load_settings(&cli.global)?, http).await,
        Command::Ask { message, json, yes } => {
            ask::run(&load_settings(&cli.global)?, &message, json, yes).await
        }
        Command::Chat => chat::run(&load_settings(&cli.global)?).await,
        Command::Eval {
            tool,
            cases,
            json,
            min_accuracy,
            jobs,
        } => {
            let args = eval::EvalArgs {
                tool,
                cases,
                json,
                min_accuracy,
                jobs,
            };
            eval::run(&load_settings(&cli.global)?, args).await
        }
        Command::Sync { rebuild } => sync::run(&load_settings(&cli.global)?, rebuild).await,
        Command::New { name } => new::run(&load_settings(&cli.global)?, &name),
        Command::Serve { addr } => serve::run(&load_settings(&cli.global)?, addr).await,
    }
}

fn load_settings(global: &GlobalArgs) -> anyhow::Result<Settings> {
    let dir = std::path::absolute(&global.dir)
        .with_context(|| format!("can't resolve --dir {}", global.dir.display()))?;
    if !dir.is_dir() {
        anyhow::bail!("the project directory {} does not exist", dir.display());
    }
    let settings = Settings::load(&dir, global.config.as_deref())?;
    for warning in &settings.warnings {
        tracing::warn!("{warning}");
    }
    Ok(settings)
}
