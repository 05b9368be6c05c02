//! The deadlines of a pool's calls, watched by one task rather than by one
//! timer per call.
//!
//! A tokio timer registered for each call made the runtime wake its own I/O
//! driver at every call (an eventfd write and one more turn of the event
//! loop): 4 µs of a 49 µs call through `riverse mcp` (docs/performance.md).
//! Here a call's deadline is an entry in an ordered map. The watcher task
//! sleeps until the earliest deadline it knows of and is woken early only by
//! a deadline earlier than that; with calls of one timeout, one after
//! another, each new deadline is later than the one the watcher sleeps
//! until, so registering costs a map insertion and nothing else. A call that
//! ends removes its entry; the watcher, waking at a deadline whose call has
//! ended, goes back to sleep until the next one.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use parking_lot::Mutex;
use tokio::sync::{Notify, oneshot};
use tokio::time::Instant;

/// The deadlines of the calls in flight; the watcher ends when this drops.
pub(crate) struct Deadlines {
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
    /// Wakes the watcher: an earlier deadline, or the end.
    rearm: Notify,
}

#[derive(Default)]
struct State {
    /// By deadline, then by registration: whom to tell when it passes.
    due: BTreeMap<(Instant, u64), oneshot::Sender<()>>,
    registered: u64,
    /// When the watcher will next look, if it sleeps on a deadline; `None`
    /// while it waits for one, or before it has started.
    armed: Option<Instant>,
    started: bool,
    ended: bool,
    /// How often the watcher has looked at the deadlines.
    #[cfg(test)]
    turns: u64,
}

impl Deadlines {
    pub(crate) fn new() -> Self {
        Deadlines {
            shared: Arc::new(Shared {
                state: Mutex::new(State::default()),
                rearm: Notify::new(),
            }),
        }
    }

    /// Registers a deadline: the returned future completes when it passes,
    /// and dropping it withdraws the deadline. Must be called on a runtime
    /// (the first call starts the watcher there).
    pub(crate) fn watch(&self, at: Instant) -> Expiry {
        let (tell, told) = oneshot::channel();
        let mut state = self.shared.state.lock();
        state.registered += 1;
        let key = (at, state.registered);
        state.due.insert(key, tell);
        if !state.started {
            state.started = true;
            tokio::spawn(watch(self.shared.clone()));
        }
        if state.armed.is_none_or(|armed| at < armed) {
            state.armed = Some(at);
            self.shared.rearm.notify_one();
        }
        Expiry {
            told,
            key,
            shared: self.shared.clone(),
        }
    }
}

impl Drop for Deadlines {
    fn drop(&mut self) {
        self.shared.state.lock().ended = true;
        self.shared.rearm.notify_one();
    }
}

/// Completes when its deadline passes.
pub(crate) struct Expiry {
    told: oneshot::Receiver<()>,
    key: (Instant, u64),
    shared: Arc<Shared>,
}

impl Future for Expiry {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // The sender goes only when the deadline passes or the pool ends;
        // either way the call is over.
        Pin::new(&mut self.told).poll(cx).map(|_| ())
    }
}

impl Drop for Expiry {
    fn drop(&mut self) {
        // Closed first: a sender dropped while the receiver is open wakes the
        // receiver's task, which is the call's own, ending (measured: 4 µs a
        // call on two runtime threads).
        self.told.close();
        self.shared.state.lock().due.remove(&self.key);
    }
}

/// Tells each call whose deadline has passed, then sleeps until the next
/// deadline, or until an earlier one is registered.
async fn watch(shared: Arc<Shared>) {
    loop {
        let next = {
            let mut state = shared.state.lock();
            if state.ended {
                return;
            }
            #[cfg(test)]
            {
                state.turns += 1;
            }
            let now = Instant::now();
            while let Some(entry) = state.due.first_entry() {
                if entry.key().0 > now {
                    break;
                }
                let _ = entry.remove().send(());
            }
            // With nothing due, it still sleeps until the deadline last armed
            // if that is to come: calls that end in microseconds are gone
            // before the watcher runs, and the next ones, whose deadlines are
            // later, then need not wake it.
            state.armed = match state.due.keys().next() {
                Some((at, _)) => Some(*at),
                None => state.armed.filter(|armed| *armed > now),
            };
            state.armed
        };
        match next {
            Some(at) => {
                tokio::select! {
                    () = tokio::time::sleep_until(at) => {}
                    () = shared.rearm.notified() => {}
                }
            }
            None => shared.rearm.notified().await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test(start_paused = true)]
    async fn a_deadline_completes_when_it_passes_and_not_before() {
        let deadlines = Deadlines::new();
        let start = Instant::now();
        let mut expiry = deadlines.watch(start + Duration::from_secs(5));
        tokio::select! {
            () = &mut expiry => panic!("expired early"),
            () = tokio::time::sleep(Duration::from_millis(4_900)) => {}
        }
        expiry.await;
        assert!(start.elapsed() >= Duration::from_secs(5));
    }

    #[tokio::test(start_paused = true)]
    async fn an_earlier_deadline_wakes_a_watcher_sleeping_on_a_later_one() {
        let deadlines = Deadlines::new();
        let start = Instant::now();
        let late = deadlines.watch(start + Duration::from_secs(30));
        // Let the watcher go to sleep on the late deadline first.
        tokio::time::sleep(Duration::from_millis(10)).await;
        deadlines.watch(start + Duration::from_secs(1)).await;
        let waited = start.elapsed();
        assert!(
            waited >= Duration::from_secs(1) && waited < Duration::from_secs(2),
            "{waited:?}"
        );
        drop(late);
    }

    #[tokio::test(start_paused = true)]
    async fn a_withdrawn_deadline_is_forgotten_and_later_ones_still_fire() {
        let deadlines = Deadlines::new();
        let start = Instant::now();
        drop(deadlines.watch(start + Duration::from_secs(1)));
        assert!(deadlines.shared.state.lock().due.is_empty());
        deadlines.watch(start + Duration::from_secs(3)).await;
        assert!(start.elapsed() >= Duration::from_secs(3));
    }

    #[tokio::test(start_paused = true)]
    async fn calls_that_end_at_once_wake_the_watcher_only_for_the_first() {
        let deadlines = Deadlines::new();
        for _ in 0..100 {
            drop(deadlines.watch(Instant::now() + Duration::from_secs(30)));
            tokio::task::yield_now().await;
            tokio::time::advance(Duration::from_micros(20)).await;
        }
        let turns = deadlines.shared.state.lock().turns;
        assert!(turns <= 2, "the watcher looked {turns} times");
    }

    #[tokio::test(start_paused = true)]
    async fn the_watcher_ends_with_the_deadlines() {
        let deadlines = Deadlines::new();
        let expiry = deadlines.watch(Instant::now() + Duration::from_secs(60));
        let shared = Arc::downgrade(&deadlines.shared);
        drop(deadlines);
        drop(expiry);
        tokio::time::sleep(Duration::from_millis(10)).await;
        assert!(shared.upgrade().is_none(), "the watcher still runs");
    }
}
