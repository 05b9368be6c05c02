//! Riverse's Python host.
//!
//! Drop-in tools are Python files. They run out of process in a [`WorkerPool`] of
//! worker interpreters, each running the worker package that ships inside the
//! binary ([`WORKER_FILES`]). A worker imports the tools directory, provides
//! `agent.tools` to it, and serves calls over newline-delimited JSON-RPC shaped as
//! MCP (see `riverse-protocol`).
//!
//! The pool spawns workers on demand (each a `riverse_process::Child`), runs
//! one call at a time per worker and independent calls on different workers,
//! enforces each call's deadline by killing the worker's process group,
//! replaces workers that die or whose protocol stream turns invalid, and skips
//! files whose import never finishes or ends the worker. With
//! [`PythonOptions::fork`], workers are forked from a fork server that has
//! imported the tool files once (see `fork.rs`), falling back to fresh
//! interpreters when a tool file starts a thread at import. [`python_tools`] turns a discovery into
//! [`riverse_tool::Found`] values for the registry.
//!
//! Before the pool starts, [`environment::prepare`] readies the interpreter:
//! the project's tool environment (`.riverse/venv`) with what the tool files
//! declare installed, synced only when a declaration changed, or the
//! configured interpreter itself when nothing is declared.
//!
//! Out of scope here: reading settings (the caller hands over [`PythonOptions`])
//! and deciding which tools may be called (the registry does).

mod connection;
mod deadlines;
mod env;
pub mod environment;
mod error;
mod fork;
mod fork_link;
mod hooks;
mod host_calls;
mod in_flight;
mod int_limit;
mod interpreter;
mod package;
mod pool;
mod reply;
mod tool;
mod worker;
mod worker_metrics;

pub use env::{ALWAYS_KEPT, EnvPolicy};
pub use error::Error;
pub use hooks::{
    FileFate, FileReport, FoundHooks, HookOptions, PythonHooks, WorkerError, hook_files,
    python_hooks,
};
pub use host_calls::HostLink;
pub use interpreter::{Interpreter, resolve_interpreter};
pub use package::{WORKER_FILES, uncached_worker_args, write_worker_package};
pub use pool::{PythonOptions, WorkerPool};
pub use tool::{PythonTool, python_tools};
pub use worker_metrics::{
    WORKERS_ALIVE, WORKERS_LOST, WORKERS_STARTED, describe as describe_worker_metrics,
};

pub(crate) use riverse_tool::seconds;
