//! Arguments, as DESIGN.md section 3 fixes them.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

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
    },
    /// List every tool, and every file that failed to yield one.
    Tools {
        /// One JSON document on stdout.
        #[arg(long)]
        json: bool,
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
    },
    /// Serve every tool as an MCP server on stdio.
    Mcp,
    /// One agent turn: the LLM picks tools, they run, the answer is printed.
    Ask {
        /// What to ask.
        message: String,
        /// Print one JSON document: the answer and every tool call.
        #[arg(long)]
        json: bool,
    },
    /// A conversation: one message per line, tool calls shown as they run.
    Chat,
    /// An OpenAI-compatible HTTP API with server-side tools, and a chat page.
    Serve {
        /// Address to listen on (default serve.addr, 127.0.0.1:8420).
        #[arg(long, value_name = "HOST:PORT")]
        addr: Option<std::net::SocketAddr>,
    },
}
