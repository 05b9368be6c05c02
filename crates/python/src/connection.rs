//! The host's end of a worker's protocol stream, apart from the process.
//!
//! [`Connection`] sends requests; [`read_messages`] routes each response to the
//! request waiting for it by id. When the stream ends or turns invalid, the
//! cause goes into every pending request's reply channel at once ([`Pending::close`]),
//! and every later request fails with it. Both take any `AsyncRead`/`AsyncWrite`,
//! so they are tested over `tokio::io::duplex` without an interpreter.

use parking_lot::{Mutex, MutexGuard};
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};

use riverse_process::{Exit, Line, read_line};
use riverse_protocol::{
    ErrorObject, ExitedNotification, ImportingNotification, Incoming, Message, OutgoingRequest,
    RequestId, methods,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};

use crate::in_flight::InFlight;

/// How much of an invalid line a message quotes.
const QUOTED_BYTES: usize = 200;

/// What a request ends with besides a result.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RequestError {
    /// The worker answered with a JSON-RPC error: it is alive and serving.
    Rpc(ErrorObject),
    /// The reply was longer than the host reads; the worker is still usable.
    TooLarge { total: usize, limit: usize },
    /// The connection is gone; the worker is not usable.
    Closed(Closed),
    /// The connection was already gone when the request was to be written:
    /// the worker never saw it, so it may be sent to another.
    NotSent(Closed),
    /// The reply arrived but is not what the request expects; the worker is
    /// still usable.
    Unreadable(String),
}

/// Why a worker's connection is gone.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Closed {
    /// The worker process ended.
    Died(Exit),
    /// The stream carried something that is not the protocol (a tool wrote to
    /// it): nothing after it can be trusted, so the worker is retired.
    Corrupted(String),
    /// The worker closed its end of the stream but did not exit.
    StreamEnded,
}

impl fmt::Display for Closed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Closed::Died(exit) => write!(f, "the worker {exit}"),
            Closed::Corrupted(what) => {
                write!(f, "the worker's protocol stream carried {what}")
            }
            Closed::StreamEnded => write!(f, "the worker closed its protocol stream"),
        }
    }
}

/// A reply's payload, unparsed: `None` for a success without `result`.
type Reply = Result<Option<Box<RawValue>>, RequestError>;

/// Requests awaiting their reply, and why the connection closed, once it has.
#[derive(Default)]
pub(crate) struct Pending {
    state: Mutex<PendingState>,
}

#[derive(Default)]
struct PendingState {
    waiting: HashMap<i64, oneshot::Sender<Reply>>,
    closed: Option<Closed>,
}

impl Pending {
    fn state(&self) -> MutexGuard<'_, PendingState> {
        self.state.lock()
    }

    /// Registers a request, unless the connection is already closed.
    fn register(&self, id: i64) -> Result<oneshot::Receiver<Reply>, Closed> {
        let mut state = self.state();
        if let Some(closed) = &state.closed {
            return Err(closed.clone());
        }
        let (tx, rx) = oneshot::channel();
        state.waiting.insert(id, tx);
        Ok(rx)
    }

    /// Hands a reply to the request with `id`; false when none waits for it.
    fn route(&self, id: i64, reply: Reply) -> bool {
        let sender = self.state().waiting.remove(&id);
        match sender {
            Some(sender) => {
                let _ = sender.send(reply);
                true
            }
            None => false,
        }
    }

    /// Closes the connection: every waiting request gets `why` now, every
    /// later one at once. The first cause recorded stays.
    pub(crate) fn close(&self, why: Closed) {
        let mut state = self.state();
        let why = state.closed.get_or_insert(why).clone();
        for (_, sender) in state.waiting.drain() {
            let _ = sender.send(Err(RequestError::Closed(why.clone())));
        }
    }

    pub(crate) fn closed(&self) -> Option<Closed> {
        self.state().closed.clone()
    }

    fn forget(&self, id: i64) {
        self.state().waiting.remove(&id);
    }
}

/// The sending half of a worker's protocol stream.
pub(crate) struct Connection<W> {
    writer: tokio::sync::Mutex<W>,
    pending: std::sync::Arc<Pending>,
    next_id: AtomicI64,
}

impl<W: AsyncWrite + Unpin> Connection<W> {
    pub(crate) fn new(writer: W, pending: std::sync::Arc<Pending>) -> Self {
        Connection {
            writer: tokio::sync::Mutex::new(writer),
            pending,
            next_id: AtomicI64::new(1),
        }
    }

    /// Sends one request and waits for its reply, or for the connection to
    /// close; the reply's `result` is read straight into `R`.
    pub(crate) async fn request<P, R>(&self, method: &str, params: &P) -> Result<R, RequestError>
    where
        P: Serialize + ?Sized,
        R: DeserializeOwned,
    {
        let payload = self.request_raw(method, params).await?;
        let text = payload.as_deref().map_or("null", RawValue::get);
        serde_json::from_str(text).map_err(|err| {
            RequestError::Unreadable(format!("an unreadable reply to {method}: {err}"))
        })
    }

    async fn request_raw<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<Option<Box<RawValue>>, RequestError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let line = OutgoingRequest::new(id, method, params)
            .to_line()
            .map_err(|err| RequestError::Unreadable(format!("an unwritable request: {err}")))?;
        let reply = self.pending.register(id).map_err(RequestError::Closed)?;
        if self.write(&line).await.is_err() {
            // The reader sees the stream end and closes the connection with
            // the cause; the reply channel then carries it.
            return Err(match reply.await {
                Ok(Err(RequestError::Closed(closed))) => RequestError::NotSent(closed),
                _ => RequestError::NotSent(self.pending.closed().unwrap_or(Closed::StreamEnded)),
            });
        }
        match reply.await {
            Ok(reply) => reply,
            Err(_) => {
                self.pending.forget(id);
                Err(RequestError::Closed(
                    self.pending.closed().unwrap_or(Closed::StreamEnded),
                ))
            }
        }
    }

    /// Answers a request the worker made.
    pub(crate) async fn respond(&self, id: RequestId, outcome: Result<Value, ErrorObject>) {
        // A worker that cannot take the answer is found gone by the next request.
        let _ = self
            .write_line(Message::response(id, outcome).to_line())
            .await;
    }

    pub(crate) async fn notify(&self, method: &str, params: Value) {
        let line = Message::notification(method, params).to_line();
        // A worker that cannot take a notification is found gone by the next request.
        let _ = self.write_line(line).await;
    }

    async fn write_line(&self, mut line: String) -> std::io::Result<()> {
        line.push('\n');
        self.write(line.as_bytes()).await
    }

    async fn write(&self, line: &[u8]) -> std::io::Result<()> {
        let mut writer = self.writer.lock().await;
        writer.write_all(line).await?;
        writer.flush().await
    }
}

/// What the worker sends besides replies: the files it announces as it loads
/// them, and its own requests of the host.
pub(crate) struct Inbound {
    pub importing: mpsc::UnboundedSender<String>,
    pub requests: mpsc::UnboundedSender<WorkerRequest>,
    /// A fork server's reports of the workers it forked that have ended.
    pub exited: Option<mpsc::UnboundedSender<ExitedNotification>>,
    /// The call in flight, which hears its tool's log lines and progress.
    pub in_flight: InFlight,
}

/// A request from the worker (`ToolRegistry` in a tool asks the host).
#[derive(Debug)]
pub(crate) struct WorkerRequest {
    pub id: RequestId,
    pub method: String,
    pub params: Option<Value>,
}

/// How reading a worker's stream ended.
#[derive(Debug, PartialEq)]
pub(crate) enum Ending {
    /// The stream ended (possibly in the middle of a line: a death mid-reply).
    Eof,
    /// Something that is not the protocol arrived; it says what.
    Corrupted(String),
}

/// Routes the worker's replies by id and sends the files it announces to
/// `importing`, until the stream ends or carries something else than the
/// protocol. A reply longer than `limit` bytes is not held: its request gets
/// [`RequestError::TooLarge`].
pub(crate) async fn read_messages<R: AsyncRead + Unpin>(
    reader: R,
    pending: &Pending,
    inbound: &Inbound,
    limit: usize,
) -> Ending {
    let mut reader = BufReader::new(reader);
    loop {
        let line = match read_line(&mut reader, limit).await {
            Ok(Some(line)) => line,
            Ok(None) => return Ending::Eof,
            Err(err) => return Ending::Corrupted(format!("an unreadable stream ({err})")),
        };
        let text = match line {
            Line::Complete(text) => text,
            Line::Unterminated(_) => return Ending::Eof,
            Line::TooLong { start, total } => {
                let Some(id) = reply_id(&start) else {
                    return Ending::Corrupted(format!(
                        "a line of {total} bytes that is not a reply"
                    ));
                };
                if !pending.route(id, Err(RequestError::TooLarge { total, limit })) {
                    return Ending::Corrupted(format!(
                        "a reply of {total} bytes to request {id}, which nothing awaits"
                    ));
                }
                continue;
            }
        };
        let message = std::str::from_utf8(&text)
            .map_err(|err| err.to_string())
            .and_then(Incoming::parse);
        match message {
            Ok(Incoming::Response {
                id: RequestId::Number(id),
                outcome,
            }) => {
                let reply = outcome
                    .map(|result| result.map(RawValue::to_owned))
                    .map_err(RequestError::Rpc);
                if !pending.route(id, reply) {
                    return Ending::Corrupted(format!(
                        "a reply to request {id}, which nothing awaits"
                    ));
                }
            }
            Ok(Incoming::Notification { method, params }) if method == methods::IMPORTING => {
                if let Some(note) = read_params::<ImportingNotification>(params) {
                    let _ = inbound.importing.send(note.file);
                }
            }
            Ok(Incoming::Notification { method, params }) if method == methods::EXITED => {
                if let (Some(exited), Some(note)) =
                    (&inbound.exited, read_params::<ExitedNotification>(params))
                {
                    let _ = exited.send(note);
                }
            }
            Ok(Incoming::Request { id, method, params }) => {
                let params = params.and_then(|params| serde_json::from_str(params.get()).ok());
                let _ = inbound.requests.send(WorkerRequest {
                    id,
                    method: method.into_owned(),
                    params,
                });
            }
            Ok(Incoming::Notification { method, params }) => {
                if !inbound.in_flight.heard(&method, params) {
                    tracing::debug!("ignored notification {method} from a python worker");
                }
            }
            Ok(other) => {
                return Ending::Corrupted(format!("a message no worker sends: {other:?}"));
            }
            Err(err) => {
                return Ending::Corrupted(format!("an invalid line ({err}): {}", quote(&text)));
            }
        }
    }
}

/// A notification's params read as `T`; `None` when they don't read.
fn read_params<T: DeserializeOwned>(params: Option<&RawValue>) -> Option<T> {
    serde_json::from_str(params.map_or("{}", RawValue::get)).ok()
}

/// The id of a reply from the start of its line: the host's ids are numbers.
fn reply_id(start: &[u8]) -> Option<i64> {
    riverse_protocol::leading_id(start)?.parse().ok()
}

/// The start of a line, as messages quote it.
fn quote(line: &[u8]) -> String {
    let shown = &line[..line.len().min(QUOTED_BYTES)];
    let text = String::from_utf8_lossy(shown);
    let ellipsis = if line.len() > QUOTED_BYTES { "..." } else { "" };
    format!("{text:?}{ellipsis}")
}

#[cfg(test)]
mod tests;
