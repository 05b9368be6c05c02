//! One worker interpreter: spawn, handshake, requests.
//!
//! The process is a [`riverse_process::Child`]: its own process group, its
//! stderr relayed under the name of whoever the worker says runs, killed when
//! the handle drops. A task reads its protocol stream ([`read_messages`]); when
//! the stream ends or turns invalid, or the process exits, the task closes the
//! connection with the cause, which every pending and later request gets.

use std::collections::BTreeMap;
use std::hash::{BuildHasher, Hasher};
use std::path::Path;
use std::sync::Arc;

use parking_lot::Mutex;
use std::time::Duration;

use riverse_process::sandbox::Confinement;
use riverse_process::{Adopted, Child, Exit, Relay, Spawned, Target};
use riverse_protocol::{
    CallOutcome, CallParams, ExitedNotification, InitializeParams, InitializeResult,
    MCP_PROTOCOL_VERSION, SecretValue, WORKER_PROTOCOL_VERSION, WorkerInit, methods,
};
use riverse_tool::{CallContext, Params};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::json;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::process::Command;
use tokio::sync::{mpsc, watch};
use tokio::time::{Instant, sleep_until};

use crate::connection::{
    Closed, Connection, Ending, Inbound, Pending, RequestError, WorkerRequest, read_messages,
};
use crate::env::EnvPolicy;
use crate::fork_link::ForkServerLink;
use crate::in_flight::InFlight;
use crate::package::worker_args;
use crate::worker_metrics::Alive;
use crate::{Error, HostLink, Interpreter, seconds};

/// How long a worker whose protocol stream ended may take to exit before the
/// stream is reported closed (and the worker is killed as its handle drops).
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// How long the reader keeps reading after the process exited: its last
/// replies may still be in the pipe, and a descendant that escaped its group
/// may hold the pipe open for ever.
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(200);

/// Label of stderr lines printed before the worker names who runs.
const IDLE_LABEL: &str = "python";

/// Starts a line the worker writes to stderr to say whose output follows: a
/// file being imported, or a tool being called. A random key, given to the
/// worker in `initialize`, follows it, so that a tool printing the marker
/// cannot log under another tool's name.
const LABEL_MARKER: &str = "\0riverse-label:";

/// What a spawn needs to know.
pub(crate) struct SpawnOptions<'a> {
    pub interpreter: &'a Interpreter,
    pub project_dir: &'a Path,
    /// The sandbox of the worker's pool when it has one (`tools.notes.sandbox`),
    /// which its command line shows.
    pub pool: Option<&'a str>,
    pub env: &'a EnvPolicy,
    pub init: WorkerInit,
    /// Deadline for the interpreter to start, and for each file's import.
    pub import_timeout: Duration,
    /// The longest reply read; a longer one fails its request.
    pub reply_limit: usize,
    /// Answers the worker's own requests (`ToolRegistry` in a tool).
    pub host: HostLink,
    /// The sandbox the worker enters before it runs (its policy, as the
    /// worker reads it to name the rule a call broke, is `init.sandbox`).
    pub sandbox: Option<&'a Arc<Confinement>>,
}

/// The host's end of a worker's stdin: a pipe to a spawned or a forked worker.
pub(crate) type Writer = Box<dyn AsyncWrite + Send + Unpin>;

/// The worker's process: one Riverse spawned, or one its fork server forked.
pub(crate) enum Process {
    Spawned(Child),
    Forked(Adopted),
}

impl Process {
    fn exit(&self) -> Option<Exit> {
        match self {
            Process::Spawned(child) => child.exit(),
            Process::Forked(adopted) => adopted.exit(),
        }
    }

    fn exited(&self) -> watch::Receiver<Option<Exit>> {
        match self {
            Process::Spawned(child) => child.exited(),
            Process::Forked(adopted) => adopted.exited(),
        }
    }

    fn kill(&self) {
        match self {
            Process::Spawned(child) => child.kill(),
            Process::Forked(adopted) => adopted.kill(),
        }
    }
}

/// A worker's streams, as the host holds them.
pub(crate) struct Streams {
    pub stdin: Writer,
    pub stdout: Box<dyn AsyncRead + Send + Unpin>,
}

pub(crate) struct Worker {
    process: Process,
    /// Shared with the task that answers the worker's own requests.
    connection: Arc<Connection<Writer>>,
    pending: Arc<Pending>,
    /// The tool this worker last ran, for the log when it must be retired.
    last_tool: Mutex<Option<String>>,
    /// The call it runs now, which hears what its tool says and asks.
    in_flight: InFlight,
    _counted: Alive,
}

impl Worker {
    /// Starts a worker and waits until it has imported the tools directory.
    pub(crate) async fn spawn(options: SpawnOptions<'_>) -> Result<Worker, Error> {
        Worker::spawn_with(options, None).await
    }

    /// Starts a fresh interpreter: a worker, or a fork server when `fork` is
    /// given (the socket it receives descriptors on, and where to report the
    /// exits of the workers it forks).
    pub(crate) async fn spawn_with(
        options: SpawnOptions<'_>,
        fork: Option<ForkServerLink>,
    ) -> Result<Worker, Error> {
        let executable = &options.interpreter.executable;
        let mut command = Command::new(executable);
        command.args(worker_args(options.pool, options.project_dir));
        command.current_dir(options.project_dir);
        options.env.apply(command.as_std_mut());
        command.env("PYTHONIOENCODING", "utf-8");
        if let Some(confinement) = options.sandbox {
            confinement.apply_to(&mut command);
        }
        let key = label_key();
        let mut options = options;
        // The link lives until the spawn is done: the child inherits its socket.
        let exited = match &fork {
            Some(link) => {
                options.init.fork_socket = Some(link.pass_socket(&mut command));
                Some(link.exited.clone())
            }
            None => None,
        };
        let Spawned {
            child,
            stdin,
            stdout,
        } = Child::spawn(command, relay(&key)).map_err(|err| Error::SpawnFailed {
            interpreter: executable.clone(),
            cause: err.to_string(),
        })?;
        drop(fork);
        let streams = Streams {
            stdin: Box::new(stdin),
            stdout: Box::new(stdout),
        };
        Worker::start(Process::Spawned(child), streams, options, key, exited).await
    }

    /// Serves a worker its fork server forked: the host holds the other ends
    /// of its streams. `key` is the label key its stderr relay was given.
    pub(crate) async fn start(
        process: Process,
        streams: Streams,
        options: SpawnOptions<'_>,
        key: String,
        exited: Option<mpsc::UnboundedSender<ExitedNotification>>,
    ) -> Result<Worker, Error> {
        let pending = Arc::new(Pending::default());
        let (importing_tx, importing_rx) = mpsc::unbounded_channel();
        let (requests_tx, requests_rx) = mpsc::unbounded_channel();
        let in_flight = InFlight::default();
        tokio::spawn(watch_stream(
            streams.stdout,
            process.exited(),
            pending.clone(),
            Inbound {
                importing: importing_tx,
                requests: requests_tx,
                exited,
                in_flight: in_flight.clone(),
            },
            options.reply_limit,
        ));
        let connection = Arc::new(Connection::new(streams.stdin, pending.clone()));
        tokio::spawn(answer_requests(
            requests_rx,
            Arc::downgrade(&connection),
            options.host.clone(),
            in_flight.clone(),
        ));
        let worker = Worker {
            process,
            connection,
            pending,
            last_tool: Mutex::new(None),
            in_flight,
            _counted: Alive::counted(),
        };
        worker.handshake(options, key, importing_rx).await?;
        Ok(worker)
    }

    async fn handshake(
        &self,
        mut options: SpawnOptions<'_>,
        key: String,
        mut importing: mpsc::UnboundedReceiver<String>,
    ) -> Result<(), Error> {
        let interpreter = options.interpreter.executable.clone();
        let failed = |cause: String| Error::HandshakeFailed {
            interpreter: interpreter.clone(),
            cause,
        };
        options.init.label_key = Some(key);
        let params = InitializeParams {
            protocol_version: MCP_PROTOCOL_VERSION.to_owned(),
            capabilities: json!({"experimental": {"riverse": options.init}}),
            client_info: riverse_protocol::ClientInfo {
                name: "riverse".into(),
                version: env!("CARGO_PKG_VERSION").into(),
            },
        };
        let reply = self.request::<_, InitializeResult>(methods::INITIALIZE, &params);
        tokio::pin!(reply);
        let mut deadline = Instant::now() + options.import_timeout;
        let mut importing_file: Option<String> = None;
        let reply = loop {
            tokio::select! {
                reply = &mut reply => break reply,
                Some(file) = importing.recv() => {
                    importing_file = Some(file);
                    deadline = Instant::now() + options.import_timeout;
                }
                () = sleep_until(deadline) => {
                    self.kill();
                    let after = seconds(options.import_timeout);
                    return Err(match importing_file {
                        Some(file) => Error::ImportTimedOut { file, after },
                        None => failed(format!("it did not start within {after}")),
                    });
                }
            }
        };
        let result = match reply {
            Ok(result) => result,
            Err(RequestError::Closed(closed) | RequestError::NotSent(closed)) => {
                // The file announced last is the one being loaded when the
                // worker went: its announcement may still be queued.
                while let Ok(file) = importing.try_recv() {
                    importing_file = Some(file);
                }
                return Err(match importing_file {
                    Some(file) => Error::ImportCrashed {
                        file,
                        cause: closed.to_string(),
                    },
                    None => failed(closed.to_string()),
                });
            }
            Err(other) => return Err(failed(describe(&other))),
        };
        if result.server_info.version != WORKER_PROTOCOL_VERSION {
            return Err(failed(format!(
                "it speaks {}, expected {WORKER_PROTOCOL_VERSION}",
                result.server_info.version
            )));
        }
        self.connection
            .notify(methods::INITIALIZED, json!({}))
            .await;
        Ok(())
    }

    /// Sends one request and waits for its reply, read as `R`.
    pub(crate) async fn request<P, R>(&self, method: &str, params: &P) -> Result<R, RequestError>
    where
        P: Serialize + ?Sized,
        R: DeserializeOwned,
    {
        self.connection.request(method, params).await
    }

    /// Calls a tool, remembering its name for the log should the worker have
    /// to be retired later; `context` hears what the tool says meanwhile.
    pub(crate) async fn call_tool(
        &self,
        name: &str,
        arguments: &Params,
        secrets: Option<&BTreeMap<String, SecretValue>>,
        context: &CallContext,
    ) -> Result<CallOutcome, RequestError> {
        let _landed = self.in_flight.begin(context);
        {
            let mut last_tool = self.last_tool.lock();
            if last_tool.as_deref() != Some(name) {
                *last_tool = Some(name.to_owned());
            }
        }
        let params = CallParams {
            name,
            arguments,
            secrets,
        };
        self.request(methods::CALL, &params).await
    }

    /// Why the worker is no longer usable, once it is not. A process already
    /// reaped counts at once, before its stream has been drained.
    pub(crate) fn closed(&self) -> Option<Closed> {
        self.pending
            .closed()
            .or_else(|| self.process.exit().map(Closed::Died))
    }

    pub(crate) fn last_tool(&self) -> Option<String> {
        self.last_tool.lock().clone()
    }

    /// Kills the worker's whole process group: the interpreter and anything a
    /// tool started there.
    pub(crate) fn kill(&self) {
        self.process.kill();
    }
}

/// A request's failure in words, for a message.
pub(crate) fn describe(error: &RequestError) -> String {
    match error {
        RequestError::Rpc(error) => error.message.clone(),
        RequestError::TooLarge { total, limit } => {
            format!("its reply of {total} bytes is over the {limit} bytes the host reads")
        }
        RequestError::Closed(closed) | RequestError::NotSent(closed) => closed.to_string(),
        RequestError::Unreadable(what) => what.clone(),
    }
}

/// Reads the worker's stream until it ends, turns invalid or the process
/// exits, then closes the connection with the cause.
async fn watch_stream(
    stdout: Box<dyn AsyncRead + Send + Unpin>,
    exited: watch::Receiver<Option<Exit>>,
    pending: Arc<Pending>,
    inbound: Inbound,
    limit: usize,
) {
    let reading = read_messages(stdout, &pending, &inbound, limit);
    tokio::pin!(reading);
    let ending = tokio::select! {
        ending = &mut reading => Some(ending),
        _ = exited_at_all(exited.clone()) => {
            tokio::time::timeout(DRAIN_AFTER_EXIT, &mut reading).await.ok()
        }
    };
    let closed = match ending {
        Some(Ending::Corrupted(what)) => Closed::Corrupted(what),
        _ => {
            match tokio::time::timeout(EXIT_GRACE, exited_at_all(exited))
                .await
                .ok()
                .flatten()
            {
                Some(exit) => Closed::Died(exit),
                None => Closed::StreamEnded,
            }
        }
    };
    tracing::debug!("python worker gone: {closed}");
    pending.close(closed);
}

/// Answers the worker's own requests, each on a task of its own: an answer
/// may be a tool call that takes a while, and the reader must keep routing
/// meanwhile. Ends with the worker's stream.
async fn answer_requests(
    mut requests: mpsc::UnboundedReceiver<WorkerRequest>,
    connection: std::sync::Weak<Connection<Writer>>,
    host: HostLink,
    in_flight: InFlight,
) {
    while let Some(request) = requests.recv().await {
        let connection = connection.clone();
        let host = host.clone();
        let in_flight = in_flight.clone();
        tokio::spawn(async move {
            let outcome = if let Some(refusal) = host.refusal(&request.method) {
                Err(refusal)
            } else {
                match in_flight.answer(&request.method, &request.params).await {
                    Some(outcome) => outcome,
                    None => host.answer(&request.method, request.params).await,
                }
            };
            // A worker that is gone needs no answer.
            if let Some(connection) = connection.upgrade() {
                connection.respond(request.id, outcome).await;
            }
        });
    }
}

/// How the process ended, once it has; `None` if that can no longer be known.
async fn exited_at_all(mut exited: watch::Receiver<Option<Exit>>) -> Option<Exit> {
    exited
        .wait_for(Option::is_some)
        .await
        .ok()
        .and_then(|exit| exit.clone())
}

/// How a worker's stderr is relayed: under the name of whoever it says runs.
pub(crate) fn relay(key: &str) -> Relay {
    Relay {
        target: Target::Tool,
        label: IDLE_LABEL.into(),
        marker: Some(format!("{LABEL_MARKER}{key}:").into_bytes()),
    }
}

/// A key no tool can guess by accident (the worker holds it, so a tool can
/// still read it on purpose: tools are trusted code).
pub(crate) fn label_key() -> String {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|elapsed| elapsed.as_nanos())
            .unwrap_or_default(),
    );
    format!("{:016x}", hasher.finish())
}
