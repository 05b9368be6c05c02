//! The notifications one served call sends its client (log lines,
//! progress), in the order the tool made them, and all of them before the
//! call's result.
//!
//! A tool's `self.log` returns at once, and the client may be slow to read:
//! the lines wait here, in a queue of bounded length, for one task that sends
//! them one at a time. The call's bounds ([`MAX_LOG_LINES`] a call, progress
//! at most every 50 ms) keep the queue short; when a client reads so slowly
//! that it fills anyway, progress updates are left out (a later one says as
//! much), never log lines.

use std::sync::Arc;

use parking_lot::Mutex;
use riverse_tool::MAX_LOG_LINES;
use rmcp::model::ServerNotification;
use rmcp::{Peer, RoleServer};
use tokio::sync::{mpsc, oneshot};

/// Room kept for log lines: every line a call may pass on, and the line
/// that counts the rest.
const LOG_ROOM: usize = MAX_LOG_LINES + 1;

/// Progress updates that may wait at once, beyond [`LOG_ROOM`].
const PROGRESS_ROOM: usize = 64;

enum Outgoing {
    Notification(Box<ServerNotification>),
    /// Answered once everything queued before it has been sent.
    Flushed(oneshot::Sender<()>),
}

/// The queue of one call's notifications. Dropping it stops its sender.
///
/// Nothing is built until the first notification: most calls send none, and
/// a channel and a task of their own made for each call, and a round trip
/// through that task to learn that nothing was queued, were a measurable
/// part of a call's cost (docs/performance.md, "Where a call's time goes").
pub(crate) struct Outbox(Arc<Lazy>);

struct Lazy {
    peer: Peer<RoleServer>,
    /// The runtime the call runs on, where the sender is started (a
    /// notification may be queued from a thread of the tool's own).
    runtime: tokio::runtime::Handle,
    state: Mutex<State>,
}

enum State {
    /// Nothing queued yet.
    Idle,
    Started {
        queue: mpsc::Sender<Outgoing>,
        sender: tokio::task::JoinHandle<()>,
    },
    /// The call is over: what is queued now is dropped.
    Closed,
}

impl Outbox {
    pub(crate) fn new(peer: Peer<RoleServer>) -> Self {
        Outbox(Arc::new(Lazy {
            peer,
            runtime: tokio::runtime::Handle::current(),
            state: Mutex::new(State::Idle),
        }))
    }

    /// The handle a listener keeps to queue notifications.
    pub(crate) fn queue(&self) -> OutboxQueue {
        OutboxQueue(self.0.clone())
    }

    /// Waits until everything queued so far has been sent.
    pub(crate) async fn flushed(&self) {
        let queue = match &*self.0.state.lock() {
            State::Started { queue, .. } => queue.clone(),
            State::Idle | State::Closed => return,
        };
        let (done, sent) = oneshot::channel();
        if queue.send(Outgoing::Flushed(done)).await.is_ok() {
            let _ = sent.await;
        }
    }
}

impl Drop for Outbox {
    fn drop(&mut self) {
        let state = std::mem::replace(&mut *self.0.state.lock(), State::Closed);
        if let State::Started { sender, .. } = state {
            sender.abort();
        }
    }
}

impl Lazy {
    /// The queue, its sender started at the first use; `None` once the
    /// call is over.
    fn queue(&self) -> Option<mpsc::Sender<Outgoing>> {
        let mut state = self.state.lock();
        match &*state {
            State::Started { queue, .. } => return Some(queue.clone()),
            State::Closed => return None,
            State::Idle => {}
        }
        let (queue, mut queued) = mpsc::channel(LOG_ROOM + PROGRESS_ROOM);
        let peer = self.peer.clone();
        let sender = self.runtime.spawn(async move {
            while let Some(outgoing) = queued.recv().await {
                match outgoing {
                    Outgoing::Notification(notification) => {
                        if let Err(err) = peer.send_notification(*notification).await {
                            tracing::debug!(target: "mcp", "can't send a notification: {err}");
                        }
                    }
                    Outgoing::Flushed(done) => {
                        let _ = done.send(());
                    }
                }
            }
        });
        *state = State::Started {
            queue: queue.clone(),
            sender,
        };
        Some(queue)
    }
}

/// Queues notifications without waiting.
#[derive(Clone)]
pub(crate) struct OutboxQueue(Arc<Lazy>);

impl OutboxQueue {
    /// Queues a log line. The call passes on at most [`LOG_ROOM`] lines, so
    /// there is always room for one.
    pub(crate) fn log(&self, notification: ServerNotification) {
        let Some(queue) = self.0.queue() else {
            return;
        };
        if queue
            .try_send(Outgoing::Notification(Box::new(notification)))
            .is_err()
        {
            tracing::debug!(target: "mcp", "a log line was left out: the client reads too slowly");
        }
    }

    /// Queues a progress update, unless the client has fallen so far behind
    /// that only room for log lines is left.
    pub(crate) fn progress(&self, notification: ServerNotification) {
        let Some(queue) = self.0.queue() else {
            return;
        };
        if queue.capacity() <= LOG_ROOM {
            return;
        }
        let _ = queue.try_send(Outgoing::Notification(Box::new(notification)));
    }
}
