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
pub(crate) struct Outbox {
    queue: mpsc::Sender<Outgoing>,
    sender: tokio::task::JoinHandle<()>,
}

impl Outbox {
    pub(crate) fn new(peer: Peer<RoleServer>) -> Self {
        let (queue, mut queued) = mpsc::channel(LOG_ROOM + PROGRESS_ROOM);
        let sender = tokio::spawn(async move {
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
        Outbox { queue, sender }
    }

    /// The handle a listener keeps to queue notifications.
    pub(crate) fn queue(&self) -> OutboxQueue {
        OutboxQueue(self.queue.clone())
    }

    /// Waits until everything queued so far has been sent.
    pub(crate) async fn flushed(&self) {
        let (done, sent) = oneshot::channel();
        if self.queue.send(Outgoing::Flushed(done)).await.is_ok() {
            let _ = sent.await;
        }
    }
}

impl Drop for Outbox {
    fn drop(&mut self) {
        self.sender.abort();
    }
}

/// Queues notifications without waiting.
#[derive(Clone)]
pub(crate) struct OutboxQueue(mpsc::Sender<Outgoing>);

impl OutboxQueue {
    /// Queues a log line. The call passes on at most [`LOG_ROOM`] lines, so
    /// there is always room for one.
    pub(crate) fn log(&self, notification: ServerNotification) {
        let queued = self
            .0
            .try_send(Outgoing::Notification(Box::new(notification)));
        if queued.is_err() {
            tracing::debug!(target: "mcp", "a log line was left out: the client reads too slowly");
        }
    }

    /// Queues a progress update, unless the client has fallen so far behind
    /// that only room for log lines is left.
    pub(crate) fn progress(&self, notification: ServerNotification) {
        if self.0.capacity() <= LOG_ROOM {
            return;
        }
        let _ = self
            .0
            .try_send(Outgoing::Notification(Box::new(notification)));
    }
}
