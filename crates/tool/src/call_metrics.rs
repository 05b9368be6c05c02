//! What the registry's calls add to the process's metrics (through the
//! `metrics` facade: nothing is kept unless a front end installs a
//! recorder, as `riverse serve` does for `/metrics`).
//!
//! A call updates handles registered once per tool (and outcome) and kept
//! by the thread that made it: no key is built, no label copied and no
//! registry of the recorder's looked up or locked per call, only a counter
//! and a histogram updated. With no recorder the handles do nothing.
//! Handles are registered again when the recorder changes (one is
//! installed after calls were made).

use std::cell::RefCell;
use std::collections::HashMap;
use std::time::Duration;

use metrics::{Counter, Histogram, Recorder};

use crate::ToolResult;

/// Calls by tool and outcome: `success`, or why the call failed.
pub const CALLS: &str = "riverse_tool_calls_total";
/// How long the calls that ran took, by tool (an approval's wait not included).
pub const CALL_SECONDS: &str = "riverse_tool_call_duration_seconds";

/// One tool's handles.
#[derive(Default)]
struct ToolHandles {
    /// A counter per outcome seen so far (a handful at most).
    outcomes: Vec<(&'static str, Counter)>,
    seconds: Option<Histogram>,
}

/// This thread's handles, and the recorder they were registered with.
#[derive(Default)]
struct Handles {
    /// The recorder's address: a new one means new handles.
    recorder: usize,
    tools: HashMap<String, ToolHandles>,
}

thread_local! {
    static HANDLES: RefCell<Handles> = RefCell::new(Handles::default());
}

/// `work` on `tool`'s handles, registered with the recorder in use now.
fn with_tool<T>(tool: &str, work: impl FnOnce(&mut ToolHandles) -> T) -> T {
    let recorder = metrics::with_recorder(|recorder| {
        std::ptr::from_ref::<dyn Recorder>(recorder).cast::<()>() as usize
    });
    HANDLES.with(|handles| {
        let mut handles = handles.borrow_mut();
        if handles.recorder != recorder {
            handles.tools.clear();
            handles.recorder = recorder;
        }
        if let Some(found) = handles.tools.get_mut(tool) {
            return work(found);
        }
        work(handles.tools.entry(tool.to_owned()).or_default())
    })
}

/// Counts one call of `tool` and how it ended.
pub(crate) fn called(tool: &str, result: &ToolResult) {
    let outcome = match result.failure_kind() {
        None => "success",
        Some(kind) => kind.as_str(),
    };
    with_tool(tool, |handles| {
        if let Some((_, counter)) = handles.outcomes.iter().find(|(seen, _)| *seen == outcome) {
            counter.increment(1);
            return;
        }
        let counter = metrics::counter!(CALLS, "tool" => tool.to_owned(), "outcome" => outcome);
        counter.increment(1);
        handles.outcomes.push((outcome, counter));
    });
}

/// Times one call of `tool` that ran.
pub(crate) fn ran(tool: &str, took: Duration) {
    with_tool(tool, |handles| {
        handles
            .seconds
            .get_or_insert_with(|| metrics::histogram!(CALL_SECONDS, "tool" => tool.to_owned()))
            .record(took.as_secs_f64());
    });
}
