//! One call's model work as its caller sees it: a way to stop it, and a
//! count of the tokens it has run through the model.
//!
//! The model runs on a blocking thread, which no future can interrupt. So
//! every forward pass (one prompt chunk, one generated token, one batch of
//! scored continuations) first asks the job it runs for whether it is still
//! wanted: a cancelled job stops at its next pass with
//! [`Error::Cancelled`](crate::Error::Cancelled), however long the work would
//! have gone on. The job is found through the thread it runs on, so the
//! routing and answering code between the caller and the passes need not
//! carry it.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::error::{Error, Result};

/// A handle on model work: cheap to clone, shared between the caller, which
/// may [`cancel`](ModelJob::cancel) it from any thread, and the thread that
/// [`run`](ModelJob::run)s it.
#[derive(Debug, Clone, Default)]
pub struct ModelJob {
    shared: Arc<Shared>,
}

#[derive(Debug, Default)]
struct Shared {
    /// Set once the caller no longer wants the work.
    cancelled: AtomicBool,
    /// Tokens run through forward passes so far.
    tokens: AtomicUsize,
}

thread_local! {
    /// The job whose work this thread is doing, if any.
    static CURRENT: RefCell<Option<Arc<Shared>>> = const { RefCell::new(None) };
}

impl ModelJob {
    pub fn new() -> Self {
        ModelJob::default()
    }

    /// Stops the work at its next forward pass.
    pub fn cancel(&self) {
        self.shared.cancelled.store(true, Ordering::Relaxed);
    }

    /// Tokens the work has run through the model: prompts prefilled,
    /// continuations scored and tokens generated, but not what a cached
    /// prefix spared it.
    pub fn tokens(&self) -> usize {
        self.shared.tokens.load(Ordering::Relaxed)
    }

    /// Runs `work` on this thread as this job's: its forward passes are
    /// counted, and fail with [`Error::Cancelled`] once the job is cancelled.
    pub fn run<T>(&self, work: impl FnOnce() -> T) -> T {
        let previous = CURRENT.with(|current| current.replace(Some(self.shared.clone())));
        // Restored even if `work` panics, so the thread's next job is not
        // counted or cancelled as this one.
        let _restore = Restore(previous);
        work()
    }
}

/// Puts back the job a thread was running before [`ModelJob::run`].
struct Restore(Option<Arc<Shared>>);

impl Drop for Restore {
    fn drop(&mut self) {
        let previous = self.0.take();
        CURRENT.with(|current| *current.borrow_mut() = previous);
    }
}

/// Called before every forward pass over `tokens` tokens: fails when the
/// job this thread runs for is cancelled, and counts the tokens otherwise.
/// Work run outside any job is never stopped.
pub(crate) fn step(tokens: usize) -> Result<()> {
    CURRENT.with(|current| match current.borrow().as_ref() {
        Some(job) if job.cancelled.load(Ordering::Relaxed) => Err(Error::Cancelled),
        Some(job) => {
            job.tokens.fetch_add(tokens, Ordering::Relaxed);
            Ok(())
        }
        None => Ok(()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancelled_job_fails_its_next_step_and_other_work_goes_on() {
        let job = ModelJob::new();
        job.run(|| {
            step(3).unwrap();
            job.cancel();
            assert!(matches!(step(1), Err(Error::Cancelled)));
        });
        assert_eq!(job.tokens(), 3);
        assert!(step(1).is_ok(), "outside the job nothing is stopped");
    }

    #[test]
    fn a_nested_job_gives_the_thread_back_to_the_outer_one() {
        let (outer, inner) = (ModelJob::new(), ModelJob::new());
        outer.run(|| {
            inner.run(|| step(5).unwrap());
            step(2).unwrap();
        });
        assert_eq!((outer.tokens(), inner.tokens()), (2, 5));
    }
}
