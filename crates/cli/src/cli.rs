//! Arguments, as DESIGN.md section 3 fixes them.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(
    name = "riverse",
    version,
    about = "An AI agent whose abilities come from drop-in tools"
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Args)]
pub struct GlobalArgs {
    /// Project root: settings.yaml and agent/tools/ live here.
    #[arg(long, global = true, default_value = ".")]
    pub dir: PathBuf,
    /// Settings file to read instead of DIR/settings.yaml (also $RIVERSE_CONFIG).
    #[arg(long, global = true)]
    pub config: Option<PathBuf>,
    /// More log output on stderr (-v, -vv); RUST_LOG overrides.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Log lines on stderr as text, or as JSON objects, one a line, that
    /// name the turn and call they belong to (default log_format in
    /// settings.yaml, else text).
    #[arg(long, global = true, value_name = "FORMAT")]
    pub log_format: Option<LogFormat>,
}

/// `--log-format`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

impl From<LogFormat> for riverse_agent::LogFormat {
    fn from(format: LogFormat) -> Self {
        match format {
            LogFormat::Text => riverse_agent::LogFormat::Text,
            LogFormat::Json => riverse_agent::LogFormat::Json,
        }
    }
}

#[derive(Subcommand)]
pub enum Command {
    /// Create settings.yaml and agent/tools/ with example tools.
    Init {
        /// Where to create the project (default: --dir).
        target: Option<PathBuf>,
        /// Overwrite files that already exist.
        #[arg(long)]
        force: bool,
        /// Also write a tool set: `standard` is file_read, file_list,
        /// file_write, grep and shell_exec (off), confined to the project.
        #[arg(long, value_name = "SET")]
        tools: Option<ToolSet>,
    },
    /// List every tool, and every file that failed to yield one.
    Tools {
        /// One JSON document on stdout.
        #[arg(long)]
        json: bool,
    },
    /// List every skill (agent/skills/), and every file that failed to
    /// yield one.
    Skills {
        /// One JSON document on stdout.
        #[arg(long)]
        json: bool,
    },
    /// List every hook (agent/hooks/), and every file that failed to
    /// yield one.
    Hooks {
        /// One JSON document on stdout.
        #[arg(long)]
        json: bool,
    },
    /// List every schedule (settings' `schedules:` and skills on a
    /// schedule) with its next run, or run one now.
    Schedules {
        /// One JSON document on stdout.
        #[arg(long)]
        json: bool,
        #[command(subcommand)]
        action: Option<SchedulesAction>,
    },
    /// List the background tasks in the project's store (what calls of
    /// tools with `background:` became), or cancel one.
    Tasks {
        /// One JSON document on stdout.
        #[arg(long)]
        json: bool,
        #[command(subcommand)]
        action: Option<TasksAction>,
    },
    /// Run one tool directly.
    Call {
        /// The tool's name.
        name: String,
        /// Parameters as key=value.
        #[arg(value_name = "KEY=VALUE")]
        pairs: Vec<String>,
        /// Parameters as one JSON object; key=value pairs override it.
        #[arg(long, value_name = "JSON")]
        params: Option<String>,
        /// Print the whole result as JSON.
        #[arg(long)]
        json: bool,
        /// Approve the call when its tools.NAME.approval asks, without a
        /// prompt.
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// Serve every tool as an MCP server on stdio, or over streamable HTTP.
    Mcp {
        /// Serve MCP's streamable HTTP transport at http://HOST:PORT/mcp
        /// instead of stdio, with serve.token and serve.cors_origins.
        #[arg(long, value_name = "HOST:PORT")]
        http: Option<std::net::SocketAddr>,
    },
    /// One agent turn: the LLM picks tools, they run, the answer is printed.
    Ask {
        /// What to ask.
        message: String,
        /// Print one JSON document: the answer and every tool call.
        #[arg(long)]
        json: bool,
        /// Approve every call whose tools.NAME.approval asks (without it,
        /// such calls are refused: `ask` has nobody to ask).
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// A conversation: one message per line, tool calls shown as they run.
    Chat,
    /// How well the configured LLM routes each tool's examples and eval cases.
    Eval {
        /// Only the cases that expect this tool.
        #[arg(long, value_name = "NAME")]
        tool: Option<String>,
        /// Case files to add (YAML: a list of {message, tool, params}).
        #[arg(long, value_name = "FILE", num_args = 1..)]
        cases: Vec<PathBuf>,
        /// One JSON document: counts per tool, confusions and every outcome.
        #[arg(long)]
        json: bool,
        /// Exit 1 when the share of whole calls right is under this (0 to 1).
        #[arg(long, value_name = "X")]
        min_accuracy: Option<f64>,
        /// Cases routed at once (default: 4 on a remote LLM, 1 embedded).
        #[arg(long, value_name = "N")]
        jobs: Option<usize>,
    },
    /// Install what the tool files declare into the tool environment
    /// (.riverse/venv), as any command does first when a declaration changed.
    Sync {
        /// Make the environment anew, from nothing.
        #[arg(long)]
        rebuild: bool,
    },
    /// Write agent/tools/NAME.py from a commented template, and its eval
    /// cases; with --skill, agent/skills/NAME/SKILL.md.
    New {
        /// The tool's (or skill's) name: letters, digits, _ and -.
        name: String,
        /// Write a skill, agent/skills/NAME/SKILL.md, instead of a tool.
        #[arg(long)]
        skill: bool,
    },
    /// An OpenAI-compatible HTTP API with server-side tools, and a chat page.
    Serve {
        /// Address to listen on (default serve.addr, 127.0.0.1:8420).
        #[arg(long, value_name = "HOST:PORT")]
        addr: Option<std::net::SocketAddr>,
    },
}

/// `riverse tasks` subcommands.
#[derive(Subcommand)]
pub enum TasksAction {
    /// Cancel a task: asks the running `riverse serve` that runs it, which
    /// ends the call (its worker's process group).
    Cancel {
        /// The task's id (`task_...`).
        id: String,
        /// The server's address (default `http://` and serve.addr).
        #[arg(long, value_name = "URL")]
        url: Option<String>,
    },
}

/// `riverse schedules` subcommands.
#[derive(Subcommand)]
pub enum SchedulesAction {
    /// Run one schedule now, in the terminal, as `riverse ask` runs a
    /// message; calls whose approval asks are answered by the schedule's
    /// `approval` (deny unless auto).
    Run {
        /// The schedule's name.
        name: String,
        /// Print one JSON document: the answer and every tool call.
        #[arg(long)]
        json: bool,
    },
}

/// A tool set `riverse init --tools` writes.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ToolSet {
    Standard,
}
