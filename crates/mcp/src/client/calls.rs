//! The calls running on one server session, and which of them what the
//! server sends belongs to.
//!
//! Progress names its call by the progress token Riverse sent with it. A
//! question or sample names its call only over streamable HTTP, by the
//! stream it arrives on; a log line never does. What names no call goes to
//! the one call running, when only one is; with several, it belongs to none.

use std::sync::Arc;

use parking_lot::Mutex;
use riverse_tool::CallContext;
use rmcp::model::{ProgressToken, RequestId};

/// One call in flight.
struct Running {
    /// Tells this entry from another with the same request id (a restarted
    /// server numbers its requests again).
    key: u64,
    request: RequestId,
    progress_token: ProgressToken,
    context: CallContext,
}

#[derive(Default)]
struct Table {
    next_key: u64,
    running: Vec<Running>,
}

/// Shared by a session's calls and its handler.
#[derive(Clone, Default)]
pub(crate) struct CallsInFlight(Arc<Mutex<Table>>);

impl CallsInFlight {
    /// Records a call until the returned guard drops.
    pub(crate) fn enter(
        &self,
        request: RequestId,
        progress_token: ProgressToken,
        context: CallContext,
    ) -> Leaving {
        let mut table = self.0.lock();
        let key = table.next_key;
        table.next_key += 1;
        table.running.push(Running {
            key,
            request,
            progress_token,
            context,
        });
        Leaving {
            calls: self.clone(),
            key,
        }
    }

    /// The call `token` was sent with.
    pub(crate) fn by_progress(&self, token: &ProgressToken) -> Option<CallContext> {
        let table = self.0.lock();
        let running = table.running.iter().find(|r| &r.progress_token == token);
        running.map(|running| running.context.clone())
    }

    /// The call a server's request belongs to: the one whose stream it came
    /// on, when the transport knows, else the only call running.
    pub(crate) fn asking(&self, origin: Option<&RequestId>) -> Option<CallContext> {
        let table = self.0.lock();
        if let Some(origin) = origin {
            return table
                .running
                .iter()
                .find(|running| &running.request == origin)
                .map(|running| running.context.clone());
        }
        only(&table.running)
    }

    /// The only call running, if only one is.
    pub(crate) fn only(&self) -> Option<CallContext> {
        only(&self.0.lock().running)
    }
}

fn only(running: &[Running]) -> Option<CallContext> {
    match running {
        [one] => Some(one.context.clone()),
        _ => None,
    }
}

/// Removes its call from the table when dropped.
pub(crate) struct Leaving {
    calls: CallsInFlight,
    key: u64,
}

impl Drop for Leaving {
    fn drop(&mut self) {
        self.calls.0.lock().running.retain(|r| r.key != self.key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::NumberOrString;

    fn token(n: i64) -> ProgressToken {
        ProgressToken(NumberOrString::Number(n))
    }

    #[test]
    fn what_names_no_call_goes_to_the_only_one_running() {
        let calls = CallsInFlight::default();
        let first = CallContext::none();
        let one = calls.enter(RequestId::Number(1), token(10), first.clone());
        assert!(calls.only().is_some());
        assert!(calls.asking(None).is_some());
        let two = calls.enter(RequestId::Number(2), token(11), CallContext::none());
        assert!(
            calls.only().is_none(),
            "two calls run: a line names neither"
        );
        assert!(calls.asking(None).is_none());
        assert!(calls.asking(Some(&RequestId::Number(2))).is_some());
        assert!(calls.by_progress(&token(10)).is_some());
        assert!(calls.by_progress(&token(12)).is_none());
        drop(one);
        assert!(calls.by_progress(&token(10)).is_none(), "a call that ended");
        assert!(calls.only().is_some());
        drop(two);
        assert!(calls.only().is_none());
    }
}
