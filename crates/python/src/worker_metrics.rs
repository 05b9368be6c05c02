//! The workers in the process's metrics (through the `metrics` facade:
//! nothing is kept unless a front end installs a recorder, as `riverse
//! serve` does for `/metrics`).

/// Interpreters (workers and fork servers) alive now.
pub const WORKERS_ALIVE: &str = "riverse_python_workers_alive";
/// Interpreters started.
pub const WORKERS_STARTED: &str = "riverse_python_workers_started_total";
/// Workers lost to a crash or a broken stream; a fresh one takes each one's place.
pub const WORKERS_LOST: &str = "riverse_python_workers_lost_total";

/// Gives the workers' metrics their help text in the recorder the front end
/// installed.
pub fn describe() {
    metrics::describe_gauge!(WORKERS_ALIVE, "Python interpreters alive");
    metrics::describe_counter!(WORKERS_STARTED, "Python interpreters started");
    metrics::describe_counter!(
        WORKERS_LOST,
        "Python workers lost to a crash or a broken stream"
    );
}

/// Counts an interpreter as alive while it lives.
pub(crate) struct Alive;

impl Alive {
    pub(crate) fn counted() -> Self {
        metrics::counter!(WORKERS_STARTED).increment(1);
        metrics::gauge!(WORKERS_ALIVE).increment(1.0);
        Alive
    }
}

impl Drop for Alive {
    fn drop(&mut self) {
        metrics::gauge!(WORKERS_ALIVE).decrement(1.0);
    }
}

/// Counts a worker lost.
pub(crate) fn lost() {
    metrics::counter!(WORKERS_LOST).increment(1);
}
