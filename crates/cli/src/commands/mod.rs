//! One module per command.

mod ask;
mod call;
mod chat;
mod eval;
mod hooks;
mod init;
mod mcp;
mod new;
mod new_skill;
mod reload;
mod schedules;
mod serve;
mod skills;
mod sync;
mod tasks;
mod tools;

use anyhow::Context;
use riverse_agent::Settings;

use crate::cli::{Cli, Command, GlobalArgs, SchedulesAction, TasksAction};
use crate::output::Exit;

/// Runs the command with `settings`, read by [`read_settings`].
pub async fn run(cli: Cli, settings: Option<Settings>) -> anyhow::Result<Exit> {
    // Only `init` reads no settings.
    let Some(settings) = settings else {
        let Command::Init {
            target,
            force,
            tools,
        } = cli.command
        else {
            anyhow::bail!("the settings were not read");
        };
        return init::run(
            &target.unwrap_or_else(|| cli.global.dir.clone()),
            force,
            tools,
        );
    };
    let settings = &settings;
    match cli.command {
        Command::Init { .. } => anyhow::bail!("riverse init reads no settings"),
        Command::Tools { json } => tools::run(settings, json).await,
        Command::Skills { json } => skills::run(settings, json).await,
        Command::Hooks { json } => hooks::run(settings, json).await,
        Command::Schedules { json, action } => match action {
            None => schedules::list(settings, json),
            Some(SchedulesAction::Run {
                name,
                json: run_json,
            }) => schedules::run(settings, &name, json || run_json).await,
        },
        Command::Tasks { json, action } => match action {
            None => tasks::list(settings, json).await,
            Some(TasksAction::Cancel { id, url }) => {
                tasks::cancel(settings, &id, url.as_deref(), json).await
            }
        },
        Command::Call {
            name,
            pairs,
            params,
            json,
            yes,
        } => {
            let params = call::parse_params(&pairs, params.as_deref())?;
            call::run(settings, &name, params, json, yes).await
        }
        Command::Mcp { http } => mcp::run(settings, http).await,
        Command::Ask { message, json, yes } => ask::run(settings, &message, json, yes).await,
        Command::Chat => chat::run(settings).await,
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
            eval::run(settings, args).await
        }
        Command::Sync { rebuild } => sync::run(settings, rebuild).await,
        Command::New { name, skill: false } => new::run(settings, &name),
        Command::New { name, skill: true } => new_skill::run(settings, &name),
        Command::Serve { addr } => serve::run(settings, addr).await,
    }
}

/// The settings the command reads, before anything else is set up (they say
/// how logs are written and where traces go); `None` for `riverse init`,
/// which reads none. Their warnings are for the caller to log.
pub fn read_settings(cli: &Cli) -> anyhow::Result<Option<Settings>> {
    if let Command::Init { .. } = cli.command {
        return Ok(None);
    }
    load_settings(&cli.global).map(Some)
}

fn load_settings(global: &GlobalArgs) -> anyhow::Result<Settings> {
    let dir = std::path::absolute(&global.dir)
        .with_context(|| format!("can't resolve --dir {}", global.dir.display()))?;
    if !dir.is_dir() {
        anyhow::bail!("the project directory {} does not exist", dir.display());
    }
    Ok(Settings::load(&dir, global.config.as_deref())?)
}
