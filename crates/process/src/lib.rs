//! One supervised child process.
//!
//! [`Child::spawn`] starts a command in a process group of its own, relays its
//! stderr line by line to the log under a label ([`Relay`]), observes its exit
//! once and publishes it ([`Exit`], through [`Child::exit`] and
//! [`Child::exited`]), and kills the whole group on [`Child::kill`] and,
//! synchronously, when the handle drops. The Python host's workers and the MCP
//! client's stdio servers are both such children.
//!
//! The host side: [`shutdown`] kills every group still alive (a signal handler
//! calls it before exiting) and waits briefly for their last output; on Linux
//! the host becomes a child subreaper, so a tool's descendant that escaped its
//! group with `setsid` is re-parented to Riverse and killed when its worker
//! goes ([`groups`]). [`read_line`] reads a protocol line with a bound on its
//! length, and [`BoundedLines`] passes a protocol stream on with its over-long
//! lines replaced (by an error reply, for the MCP client and server) and its
//! other lines vetted (the MCP client ends a stream that is not MCP).
//!
//! [`Adopted`] supervises a process that another one forked for Riverse (a
//! Python worker forked by its fork server): its own group, its stderr relayed,
//! killed on drop, its exit reported by its parent through an [`ExitReport`].
//!
//! [`sandbox`] confines a child before it runs its program: Landlock file
//! and TCP rules, resource limits, no new privileges.
//!
//! Out of scope: what is spoken over stdin and stdout (the callers' protocols),
//! and restarting a child (the callers decide when a fresh one is needed).

mod adopted;
mod bounded;
mod child;
mod exit;
pub mod groups;
mod lines;
mod relay;
pub mod sandbox;

pub use adopted::{Adopted, ExitReport};
pub use bounded::{BoundedLines, Replace, Verdict, Vet};
pub use child::{Child, Spawned, die_with_riverse};
pub use exit::Exit;
pub use groups::{Registered, shutdown};
pub use lines::{Line, read_line};
pub use relay::{Relay, Target};
