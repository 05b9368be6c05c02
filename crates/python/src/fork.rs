//! A generation's fork server: one interpreter that imports the tool files
//! once, and forks each worker from there.
//!
//! The fork server is a worker spawned with a socket it inherits
//! ([`ForkServerLink`]): its `initialize` imports every file (announcing each,
//! so the import deadline and crash attribution hold as for any worker) and
//! instantiates nothing. For each worker, the host makes the worker's stdin,
//! stdout and stderr pipes, sends their far ends over that socket
//! (`SCM_RIGHTS`) and asks `riverse/fork`; the fork server forks a child that
//! takes a process group of its own and serves on them as a fresh worker
//! would; once a discovery has found the tools, it is told each tool's class
//! and instantiates a tool at its first call (see `WorkerInit::tools`). The child is the
//! fork server's, not the host's: the fork server reaps it and reports how it
//! ended (`notifications/riverse/exited`), and the host supervises it as an
//! [`Adopted`] process. A worker outlives a fork server that dies (the host,
//! a subreaper, inherits it), though its exit is then known only from its
//! stream's end.

use std::collections::HashMap;
use std::io::IoSlice;
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::Arc;

use parking_lot::Mutex;
use riverse_process::{Adopted, Exit, ExitReport};
use riverse_protocol::{ExitedNotification, FORK_REFUSED, ForkResult, methods};
use rustix::net::{
    AddressFamily, SendAncillaryBuffer, SendAncillaryMessage, SendFlags, SocketFlags, SocketType,
};
use rustix::pipe::PipeFlags;
use serde_json::json;
use tokio::net::unix::pipe;
use tokio::sync::mpsc;

use crate::Error;
use crate::connection::RequestError;
use crate::fork_link::ForkServerLink;
use crate::worker::{Process, SpawnOptions, Streams, Worker, describe, label_key, relay};

/// Why a worker could not be forked.
pub(crate) enum ForkError {
    /// The fork server will not fork (a tool file started a thread at
    /// import, or this Python cannot pass descriptors); it says why. This
    /// generation's workers must be fresh interpreters.
    Refused(String),
    /// The fork server is gone or could not fork; a fresh one may.
    ServerFailed(String),
    /// The forked worker failed its handshake, as a spawned one could.
    Worker(Error),
}

/// A running fork server.
pub(crate) struct ForkServer {
    server: Worker,
    /// The host's end of the socket descriptors travel on.
    socket: OwnedFd,
    /// Who to tell when a forked worker ends.
    exits: Arc<Mutex<Exits>>,
    /// One fork at a time: the descriptors sent and the request pair up.
    forking: tokio::sync::Mutex<()>,
}

/// Forked workers whose exit has not been reported yet.
#[derive(Default)]
struct Exits {
    watching: HashMap<u32, ExitReport>,
    /// Exits reported before the fork's reply was read (a worker that ended
    /// at once).
    early: HashMap<u32, Exit>,
}

impl ForkServer {
    /// Starts a fork server and waits until it has imported the tool files.
    pub(crate) async fn start(options: SpawnOptions<'_>) -> Result<ForkServer, Error> {
        let spawn_failed = |err: std::io::Error| Error::SpawnFailed {
            interpreter: options.interpreter.executable.clone(),
            cause: format!("can't make the fork server's socket: {err}"),
        };
        let (host, server) = rustix::net::socketpair(
            AddressFamily::UNIX,
            SocketType::STREAM,
            SocketFlags::CLOEXEC,
            None,
        )
        .map_err(|err| spawn_failed(err.into()))?;
        let (exited_tx, exited_rx) = mpsc::unbounded_channel();
        let exits = Arc::new(Mutex::new(Exits::default()));
        tokio::spawn(route_exits(exited_rx, exits.clone()));
        let link = ForkServerLink {
            socket: server,
            exited: exited_tx,
        };
        let server = Worker::spawn_with(options, Some(link)).await?;
        Ok(ForkServer {
            server,
            socket: host,
            exits,
            forking: tokio::sync::Mutex::new(()),
        })
    }

    /// Kills the fork server (its forked workers live on).
    pub(crate) fn kill(&self) {
        self.server.kill();
    }

    /// Whether the fork server is gone.
    pub(crate) fn is_closed(&self) -> bool {
        self.server.closed().is_some()
    }

    /// Forks a worker and waits until it has answered `initialize`.
    pub(crate) async fn fork(&self, options: SpawnOptions<'_>) -> Result<Worker, ForkError> {
        let key = label_key();
        let (process, streams) = self.fork_process(&key).await?;
        Worker::start(process, streams, options, key, None)
            .await
            .map_err(ForkError::Worker)
    }

    async fn fork_process(&self, key: &str) -> Result<(Process, Streams), ForkError> {
        let failed =
            |what: &str, err: std::io::Error| ForkError::ServerFailed(format!("{what}: {err}"));
        let pipe = || rustix::pipe::pipe_with(PipeFlags::CLOEXEC).map_err(std::io::Error::from);
        let (stdin_read, stdin_write) = pipe().map_err(|err| failed("can't make a pipe", err))?;
        let (stdout_read, stdout_write) = pipe().map_err(|err| failed("can't make a pipe", err))?;
        let (stderr_read, stderr_write) = pipe().map_err(|err| failed("can't make a pipe", err))?;
        let forking = self.forking.lock().await;
        let far_ends = [
            stdin_read.as_fd(),
            stdout_write.as_fd(),
            stderr_write.as_fd(),
        ];
        let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(3))];
        let mut control = SendAncillaryBuffer::new(&mut space);
        control.push(SendAncillaryMessage::ScmRights(&far_ends));
        rustix::net::sendmsg(
            &self.socket,
            &[IoSlice::new(b"f")],
            &mut control,
            SendFlags::NOSIGNAL,
        )
        .map_err(|err| failed("can't pass a worker's descriptors", err.into()))?;
        drop((stdin_read, stdout_write, stderr_write));
        let no_params = json!({});
        let reply = self
            .server
            .request::<_, ForkResult>(methods::FORK, &no_params)
            .await;
        drop(forking);
        let ForkResult { pid } = match reply {
            Ok(forked) => forked,
            Err(RequestError::Rpc(error)) if error.code == FORK_REFUSED => {
                return Err(ForkError::Refused(format!(
                    "{}, which a fork would not carry over",
                    error.message
                )));
            }
            Err(RequestError::Rpc(error)) => {
                return Err(ForkError::Refused(format!(
                    "the python fork server can't fork: {}",
                    error.message
                )));
            }
            Err(other) => return Err(ForkError::ServerFailed(describe(&other))),
        };
        let adopted = Adopted::adopt(pid, std::fs::File::from(stderr_read), relay(key))
            .map_err(|err| failed("can't supervise the forked worker", err))?;
        {
            let mut exits = self.exits.lock();
            let report = adopted.exit_report();
            match exits.early.remove(&pid) {
                Some(exit) => report.report(exit),
                None => {
                    exits.watching.insert(pid, report);
                }
            }
        }
        let stdin = pipe::Sender::from_owned_fd(stdin_write)
            .map_err(|err| failed("can't watch a pipe", err))?;
        let stdout = pipe::Receiver::from_owned_fd(stdout_read)
            .map_err(|err| failed("can't watch a pipe", err))?;
        let streams = Streams {
            stdin: Box::new(stdin),
            stdout: Box::new(stdout),
        };
        Ok((Process::Forked(adopted), streams))
    }
}

/// Hands each exit the fork server reports to its worker's handle.
async fn route_exits(
    mut exited: mpsc::UnboundedReceiver<ExitedNotification>,
    exits: Arc<Mutex<Exits>>,
) {
    while let Some(note) = exited.recv().await {
        let exit = match (note.signal, note.status) {
            (Some(signal), _) => Exit::Signal(signal),
            (None, Some(status)) => Exit::Status(status),
            (None, None) => Exit::Unknown("the fork server did not say".into()),
        };
        let mut exits = exits.lock();
        match exits.watching.remove(&note.pid) {
            Some(report) => report.report(exit),
            None => {
                exits.early.insert(note.pid, exit);
            }
        }
    }
}
