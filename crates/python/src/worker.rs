//! One worker interpreter: spawn, handshake, requests, death.
//!
//! A reader task owns the worker's protocol stream and routes each response to
//! the request waiting for it. When the stream ends, the reader reaps the
//! process, records why it ended, and every pending and later request fails with
//! that cause.

use std::collections::HashMap;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use riverse_protocol::{
    ErrorObject, ImportingNotification, InitializeParams, InitializeResult, MCP_PROTOCOL_VERSION,
    Message, RequestId, WORKER_PROTOCOL_VERSION, WorkerInit, methods,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{mpsc, oneshot};
use tokio::time::{Instant, sleep_until};

use crate::script::{BOOTSTRAP, cached_script_dir};
use crate::{Error, HostLink, Interpreter, WORKER_SOURCE, seconds};

/// How long a worker that closed its protocol stream may take to exit before it
/// is killed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// How long a dropped worker waits for its output to reach the log. The
/// process is dead by then, so only a tool's child that escaped the process
/// group and kept the pipe open can make it wait this long.
const OUTPUT_DRAIN_GRACE: Duration = Duration::from_millis(500);

/// The output thread only reads lines and logs them.
const OUTPUT_THREAD_STACK: usize = 128 * 1024;

/// Label of stderr lines printed before the worker names who runs.
const IDLE_LABEL: &str = "python";

/// Starts a line the worker writes to stderr to say whose output follows: a
/// file being imported, or a tool being called. Only the worker writes to both
/// ends of that stream in order, so output is attributed to the right tool even
/// when the reply to its call is read first.
const LABEL_MARKER: &[u8] = b"\0riverse-label:";

type Reply = Result<Value, ErrorObject>;

/// What a request can end with besides a result.
#[derive(Debug)]
pub(crate) enum RequestError {
    /// The worker answered with a JSON-RPC error.
    Rpc(ErrorObject),
    /// The worker is gone; the text says how it ended.
    Died(String),
}

/// State shared by a worker's handle and its reader task.
struct Shared {
    /// Requests awaiting their response, by id.
    pending: Mutex<HashMap<i64, oneshot::Sender<Reply>>>,
    /// Why the worker is gone, once it is.
    death: Mutex<Option<String>>,
    /// Set once the process has been reaped, so its group id is no longer ours.
    reaped: AtomicBool,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    fn death(&self) -> Option<String> {
        lock(&self.death).clone()
    }
}

/// What a spawn needs to know.
pub(crate) struct SpawnOptions<'a> {
    pub interpreter: &'a Interpreter,
    pub project_dir: &'a Path,
    pub init: WorkerInit,
    /// Deadline for the interpreter to start, and for each file's import.
    pub import_timeout: Duration,
    /// Answers the worker's own requests (`ToolRegistry` in a tool).
    pub host: HostLink,
}

pub(crate) struct Worker {
    pid: u32,
    /// Shared with the reader, which answers the worker's own requests.
    stdin: Arc<tokio::sync::Mutex<ChildStdin>>,
    shared: Arc<Shared>,
    next_id: AtomicI64,
    /// Closed by the output thread once the worker's stderr has ended. (The
    /// mutex only makes it `Sync`; `drop` reaches it without locking.)
    output_done: Mutex<std::sync::mpsc::Receiver<()>>,
}

impl Worker {
    /// Starts a worker and waits until it has imported the tools directory.
    pub(crate) async fn spawn(options: SpawnOptions<'_>) -> Result<Worker, Error> {
        let executable = &options.interpreter.executable;
        let mut command = Command::new(executable);
        match cached_script_dir() {
            Some(dir) => command.arg("-c").arg(BOOTSTRAP).arg(dir),
            None => command.arg("-c").arg(WORKER_SOURCE),
        };
        let mut child = command
            .current_dir(options.project_dir)
            .env("PYTHONIOENCODING", "utf-8")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .map_err(|err| Error::SpawnFailed {
                interpreter: executable.clone(),
                cause: err.to_string(),
            })?;
        let pid = child.id().unwrap_or_default();
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(Error::SpawnFailed {
                interpreter: executable.clone(),
                cause: "its standard streams could not be captured".into(),
            });
        };
        let shared = Arc::new(Shared {
            pending: Mutex::new(HashMap::new()),
            death: Mutex::new(None),
            reaped: AtomicBool::new(false),
        });
        let (importing_tx, importing_rx) = mpsc::unbounded_channel();
        let stdin = Arc::new(tokio::sync::Mutex::new(stdin));
        let host = HostRequests {
            link: options.host.clone(),
            stdin: stdin.clone(),
        };
        tokio::spawn(read_protocol(
            stdout,
            child,
            pid,
            shared.clone(),
            importing_tx,
            host,
        ));
        let output_done = spawn_output_thread(stderr).map_err(|err| Error::SpawnFailed {
            interpreter: executable.clone(),
            cause: format!("can't start the thread that logs its output: {err}"),
        })?;
        let worker = Worker {
            pid,
            stdin,
            shared,
            next_id: AtomicI64::new(1),
            output_done: Mutex::new(output_done),
        };
        worker.handshake(options, importing_rx).await?;
        Ok(worker)
    }

    async fn handshake(
        &self,
        options: SpawnOptions<'_>,
        mut importing: mpsc::UnboundedReceiver<String>,
    ) -> Result<(), Error> {
        let interpreter = options.interpreter.executable.clone();
        let failed = |cause: String| Error::HandshakeFailed {
            interpreter: interpreter.clone(),
            cause,
        };
        let params = InitializeParams {
            protocol_version: MCP_PROTOCOL_VERSION.to_owned(),
            capabilities: json!({"experimental": {"riverse": options.init}}),
            client_info: riverse_protocol::ClientInfo {
                name: "riverse".into(),
                version: env!("CARGO_PKG_VERSION").into(),
            },
        };
        let params = serde_json::to_value(params).map_err(|err| failed(err.to_string()))?;
        let reply = self.request(methods::INITIALIZE, params);
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
            Err(RequestError::Rpc(error)) => return Err(failed(error.message)),
            Err(RequestError::Died(cause)) => return Err(failed(cause)),
        };
        let result: InitializeResult =
            serde_json::from_value(result).map_err(|err| failed(err.to_string()))?;
        if result.server_info.version != WORKER_PROTOCOL_VERSION {
            return Err(failed(format!(
                "it speaks {}, expected {WORKER_PROTOCOL_VERSION}",
                result.server_info.version
            )));
        }
        self.notify(methods::INITIALIZED, json!({})).await;
        Ok(())
    }

    /// Sends one request and waits for its response.
    pub(crate) async fn request(&self, method: &str, params: Value) -> Result<Value, RequestError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&self.shared.pending).insert(id, tx);
        // The death check comes after registering, so a reader that dies in
        // between still drops our sender.
        if let Some(cause) = self.shared.death() {
            lock(&self.shared.pending).remove(&id);
            return Err(RequestError::Died(cause));
        }
        let line = Message::request(id, method, params).to_line();
        if self.write_line(line).await.is_err() {
            lock(&self.shared.pending).remove(&id);
        }
        match rx.await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(error)) => Err(RequestError::Rpc(error)),
            Err(_) => Err(RequestError::Died(self.wait_for_death().await)),
        }
    }

    async fn notify(&self, method: &str, params: Value) {
        let line = Message::notification(method, params).to_line();
        // A worker that cannot take a notification is found dead by the next request.
        let _ = self.write_line(line).await;
    }

    async fn write_line(&self, line: String) -> std::io::Result<()> {
        write_line(&self.stdin, line).await
    }

    /// The reader records the cause of death just after the process is reaped;
    /// a request whose sender was dropped may get there first.
    async fn wait_for_death(&self) -> String {
        for _ in 0..400 {
            if let Some(cause) = self.shared.death() {
                return cause;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        "its protocol stream closed".to_owned()
    }

    pub(crate) fn is_alive(&self) -> bool {
        self.shared.death().is_none()
    }

    /// Kills the worker's whole process group: the interpreter and anything a
    /// tool started.
    pub(crate) fn kill(&self) {
        if !self.shared.reaped.load(Ordering::Acquire) {
            let _ = killpg(Pid::from_raw(self.pid as i32), Signal::SIGKILL);
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.kill();
        // What the worker printed before it was killed is already in the pipe:
        // let it reach the log before the host moves on, or exits.
        let done = self
            .output_done
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        let _ = done.recv_timeout(OUTPUT_DRAIN_GRACE);
    }
}

async fn write_line(
    stdin: &tokio::sync::Mutex<ChildStdin>,
    mut line: String,
) -> std::io::Result<()> {
    line.push('\n');
    let mut stdin = stdin.lock().await;
    stdin.write_all(line.as_bytes()).await?;
    stdin.flush().await
}

/// Where the worker's own requests go, and where their answers are written.
struct HostRequests {
    link: HostLink,
    stdin: Arc<tokio::sync::Mutex<ChildStdin>>,
}

impl HostRequests {
    /// Answers on a task of its own: the answer may be a tool call that takes
    /// a while, and the reader must keep routing meanwhile.
    fn answer(&self, id: RequestId, method: String, params: Option<Value>) {
        let link = self.link.clone();
        let stdin = self.stdin.clone();
        tokio::spawn(async move {
            let outcome = link.answer(&method, params).await;
            // A worker that is gone needs no answer.
            let _ = write_line(&stdin, Message::response(id, outcome).to_line()).await;
        });
    }
}

/// Routes the worker's messages until its stream ends, then reaps it.
async fn read_protocol(
    stdout: tokio::process::ChildStdout,
    mut child: Child,
    pid: u32,
    shared: Arc<Shared>,
    importing: mpsc::UnboundedSender<String>,
    host: HostRequests,
) {
    let mut lines = BufReader::new(stdout).lines();
    loop {
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(err) => {
                tracing::warn!(pid, "python worker stream unreadable: {err}");
                break;
            }
        };
        match Message::parse(&line) {
            Ok(Message::Response {
                id: RequestId::Number(id),
                outcome,
            }) => {
                if let Some(tx) = lock(&shared.pending).remove(&id) {
                    let _ = tx.send(outcome);
                }
            }
            Ok(Message::Notification { method, params }) if method == methods::IMPORTING => {
                let params = params.unwrap_or_default();
                if let Ok(note) = serde_json::from_value::<ImportingNotification>(params) {
                    let _ = importing.send(note.file);
                }
            }
            Ok(Message::Request { id, method, params }) => host.answer(id, method, params),
            Ok(other) => tracing::debug!(pid, "ignored message from python worker: {other:?}"),
            Err(err) => {
                tracing::warn!(pid, "python worker sent an unreadable line ({err}): {line}")
            }
        }
    }
    let status = match tokio::time::timeout(EXIT_GRACE, child.wait()).await {
        Ok(status) => status,
        Err(_) => {
            let _ = killpg(Pid::from_raw(pid as i32), Signal::SIGKILL);
            child.wait().await
        }
    };
    shared.reaped.store(true, Ordering::Release);
    let cause = match status {
        Ok(status) => describe_exit(status),
        Err(err) => format!("its exit status is unknown ({err})"),
    };
    tracing::debug!(pid, "python worker ended: {cause}");
    *lock(&shared.death) = Some(cause);
    lock(&shared.pending).clear();
}

/// `exited with status 3`, `was killed by signal SIGSEGV`.
pub(crate) fn describe_exit(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("the worker exited with status {code}");
    }
    match status.signal() {
        Some(number) => match Signal::try_from(number) {
            Ok(signal) => format!("the worker was killed by signal {}", signal.as_str()),
            Err(_) => format!("the worker was killed by signal {number}"),
        },
        None => "the worker ended for an unknown reason".to_owned(),
    }
}

/// Starts the thread that logs the worker's stderr. It is a thread, not a
/// task, so that a dropped worker can wait for its last lines even while the
/// runtime shuts down. The receiver disconnects when the stream has ended.
fn spawn_output_thread(
    stderr: tokio::process::ChildStderr,
) -> std::io::Result<std::sync::mpsc::Receiver<()>> {
    let stderr = std::fs::File::from(stderr.into_owned_fd()?);
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    std::thread::Builder::new()
        .name("python-output".into())
        .stack_size(OUTPUT_THREAD_STACK)
        .spawn(move || {
            forward_output(stderr);
            drop(done_tx);
        })?;
    Ok(done_rx)
}

/// Logs what the worker prints (tools' `print`, warnings, tracebacks) under the
/// name of whoever the worker last said is running.
fn forward_output(stderr: std::fs::File) {
    use std::io::BufRead;
    let mut reader = std::io::BufReader::new(stderr);
    let mut line = Vec::new();
    let mut label = IDLE_LABEL.to_owned();
    while reader
        .read_until(b'\n', &mut line)
        .is_ok_and(|read| read > 0)
    {
        // A marker may follow output that did not end its line.
        let marker = line
            .windows(LABEL_MARKER.len())
            .position(|window| window == LABEL_MARKER);
        let (text, name) = match marker {
            Some(at) => (&line[..at], Some(&line[at + LABEL_MARKER.len()..])),
            None => (&line[..], None),
        };
        let text = String::from_utf8_lossy(text);
        let text = text.trim_end();
        if !text.is_empty() || name.is_none() {
            tracing::info!(target: "tool", "{label}: {text}");
        }
        if let Some(name) = name {
            label = String::from_utf8_lossy(name).trim_end().to_owned();
        }
        line.clear();
    }
}
