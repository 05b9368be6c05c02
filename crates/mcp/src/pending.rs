//! A request to the peer that is withdrawn when its asker stops waiting.
//!
//! rmcp forgets a request whose reply is no longer awaited, but tells the
//! peer nothing, so a client would go on showing a question nobody waits
//! for, and a server would go on running a tool nobody waits for. A
//! [`Pending`] request dropped before its reply sends
//! `notifications/cancelled` for it.

use rmcp::Peer;
use rmcp::model::{CancelledNotification, CancelledNotificationParam, ProgressToken, RequestId};
use rmcp::service::{PeerRequestOptions, RequestHandle, ServiceError, ServiceRole};

/// A request sent and not yet answered.
pub(crate) struct Pending<R: ServiceRole> {
    handle: RequestHandle<R>,
    withdraw: Withdraw<R>,
}

impl<R: ServiceRole> Pending<R> {
    /// Sends `request`; `reason` is what the peer is told if it is withdrawn.
    pub(crate) async fn send(
        peer: &Peer<R>,
        request: R::Req,
        reason: &'static str,
    ) -> Result<Self, ServiceError> {
        let handle = peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await?;
        let withdraw = Withdraw {
            peer: Some(peer.clone()),
            id: handle.id.clone(),
            reason,
        };
        Ok(Pending { handle, withdraw })
    }

    pub(crate) fn id(&self) -> &RequestId {
        &self.handle.id
    }

    /// The progress token rmcp put in the request's `_meta`.
    pub(crate) fn progress_token(&self) -> &ProgressToken {
        &self.handle.progress_token
    }

    /// The reply. Dropping this future before it is ready withdraws the
    /// request.
    pub(crate) async fn reply(self) -> Result<R::PeerResp, ServiceError> {
        let Pending {
            handle,
            mut withdraw,
        } = self;
        let reply = handle.await_response().await;
        withdraw.peer = None;
        reply
    }
}

/// Sends `notifications/cancelled` for a request when dropped, unless its
/// reply came first (`peer` taken).
struct Withdraw<R: ServiceRole> {
    peer: Option<Peer<R>>,
    id: RequestId,
    reason: &'static str,
}

impl<R: ServiceRole> Drop for Withdraw<R> {
    fn drop(&mut self) {
        let Some(peer) = self.peer.take() else {
            return;
        };
        // Dropped by a future being cancelled, so always on a runtime; the
        // check keeps a drop elsewhere from panicking.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let notification = CancelledNotification::new(CancelledNotificationParam::new(
            Some(self.id.clone()),
            Some(self.reason.to_owned()),
        ));
        runtime.spawn(async move {
            if let Err(err) = peer.send_notification(notification.into()).await {
                tracing::debug!(target: "mcp", "can't send notifications/cancelled: {err}");
            }
        });
    }
}
