//! Waiting for something a test can only poll for: a process to end, a file
//! to appear, a server to reload. [`eventually`] checks a condition until it
//! holds and panics, naming what it waited for, when it never does;
//! [`eventually_async`] does the same from a Tokio test without blocking its
//! runtime, and [`within`] gives up quietly for the callers that report the
//! failure themselves.

use std::fmt::Display;
use std::time::{Duration, Instant};

/// How long between two checks of a condition.
const EVERY: Duration = Duration::from_millis(20);

/// What one check of a polled condition found: whether it holds, and what it
/// holds (`()` for a `bool`, the value of an `Option` or a `Result`). A
/// `Result`'s error says what was found instead, which the panic shows.
pub trait Check {
    type Value;

    /// The value when the condition holds; else what was found instead,
    /// where there is something to say.
    fn check(self) -> Result<Self::Value, Option<String>>;
}

impl Check for bool {
    type Value = ();

    fn check(self) -> Result<(), Option<String>> {
        if self { Ok(()) } else { Err(None) }
    }
}

impl<T> Check for Option<T> {
    type Value = T;

    fn check(self) -> Result<T, Option<String>> {
        self.ok_or(None)
    }
}

impl<T, E: Display> Check for Result<T, E> {
    type Value = T;

    fn check(self) -> Result<T, Option<String>> {
        self.map_err(|found| Some(found.to_string()))
    }
}

/// Checks `condition` every 20 ms until it holds, and returns what it holds;
/// panics after `timeout` with "waited 20s for `what`" and, when the
/// condition is a `Result`, what it found last.
///
/// ```
/// # use std::time::Duration;
/// # use riverse_test_support::eventually;
/// let ready = std::time::Instant::now() + Duration::from_millis(50);
/// eventually(Duration::from_secs(5), "the moment to pass", || {
///     std::time::Instant::now() > ready
/// });
/// ```
pub fn eventually<C: Check>(
    timeout: Duration,
    what: impl Display,
    mut condition: impl FnMut() -> C,
) -> C::Value {
    let deadline = Instant::now() + timeout;
    loop {
        match condition().check() {
            Ok(value) => return value,
            Err(found) if Instant::now() >= deadline => gave_up(timeout, &what, found),
            Err(_) => std::thread::sleep(EVERY),
        }
    }
}

/// [`eventually`] for a Tokio test: it sleeps on the runtime's timer, so the
/// tasks the condition waits for run meanwhile (on a current-thread runtime,
/// too).
pub async fn eventually_async<C: Check>(
    timeout: Duration,
    what: impl Display,
    mut condition: impl FnMut() -> C,
) -> C::Value {
    let deadline = Instant::now() + timeout;
    loop {
        match condition().check() {
            Ok(value) => return value,
            Err(found) if Instant::now() >= deadline => gave_up(timeout, &what, found),
            Err(_) => tokio::time::sleep(EVERY).await,
        }
    }
}

/// Checks `condition` every 20 ms until it holds or `timeout` passes: what
/// it holds, or `None`, for a caller that reports the failure itself.
pub fn within<C: Check>(timeout: Duration, mut condition: impl FnMut() -> C) -> Option<C::Value> {
    let deadline = Instant::now() + timeout;
    loop {
        match condition().check() {
            Ok(value) => return Some(value),
            Err(_) if Instant::now() >= deadline => return None,
            Err(_) => std::thread::sleep(EVERY),
        }
    }
}

fn gave_up(timeout: Duration, what: &dyn Display, found: Option<String>) -> ! {
    match found {
        Some(found) => panic!("waited {timeout:?} for {what}; last found: {found}"),
        None => panic!("waited {timeout:?} for {what}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_condition_that_comes_to_hold_returns_its_value() {
        let mut checks = 0;
        let value = eventually(Duration::from_secs(5), "the third check", || {
            checks += 1;
            (checks == 3).then_some(checks)
        });
        assert_eq!(value, 3);
    }

    #[test]
    #[should_panic(expected = "waited 50ms for the impossible; last found: still 7")]
    fn a_condition_that_never_holds_panics_naming_it_and_what_was_found() {
        eventually(Duration::from_millis(50), "the impossible", || {
            Err::<(), _>("still 7")
        });
    }

    #[test]
    fn within_gives_up_quietly() {
        assert_eq!(within(Duration::from_millis(50), || false), None);
        assert_eq!(within(Duration::from_millis(50), || Some(1)), Some(1));
    }

    #[tokio::test(flavor = "current_thread")]
    async fn the_async_wait_lets_the_runtime_run_what_it_waits_for() {
        let (done_tx, mut done) = tokio::sync::oneshot::channel();
        tokio::spawn(async move {
            let _ = done_tx.send(());
        });
        eventually_async(Duration::from_secs(5), "the spawned task", || {
            done.try_recv().is_ok()
        })
        .await;
    }
}
