//! `riverse chat`'s background tasks: the calls of its turns that became
//! tasks (`tools.<name>.background`), waited for while the person types,
//! and what is printed above the prompt when one ends.

use std::io::{self, Write};
use std::sync::mpsc::Sender;
use std::time::Duration;

use futures_util::future::BoxFuture;
use futures_util::stream::{FuturesUnordered, StreamExt};
use riverse_agent::{BackgroundTask, TaskEnd};
use riverse_server::TaskRows;

/// How long a front end that leaves waits for its tasks' ends to be
/// written.
pub const ROWS_WRITTEN_WITHIN: Duration = Duration::from_secs(5);

/// The tasks still running, each waited for.
#[derive(Default)]
pub struct ChatTasks {
    ending: FuturesUnordered<BoxFuture<'static, (BackgroundTask, TaskEnd)>>,
    running: Vec<BackgroundTask>,
    /// Where each task's row is kept, for a project that keeps them.
    rows: Option<TaskRows>,
}

impl ChatTasks {
    /// Tasks whose rows `rows` keeps.
    pub fn kept_in(rows: Option<TaskRows>) -> ChatTasks {
        ChatTasks {
            rows,
            ..ChatTasks::default()
        }
    }

    /// Waits for `task` along with the others.
    pub fn add(&mut self, task: BackgroundTask) {
        if let Some(rows) = &self.rows {
            rows.keep(&task);
        }
        let waited = task.clone();
        self.ending.push(Box::pin(async move {
            let end = waited.ended().await;
            (waited, end)
        }));
        self.running.push(task);
    }

    pub fn is_empty(&self) -> bool {
        self.running.is_empty()
    }

    /// The next task to end, with how it ended; never returns while none
    /// runs (so that it can wait beside the line editor).
    pub async fn next_end(&mut self) -> (BackgroundTask, TaskEnd) {
        match self.ending.next().await {
            Some((task, end)) => {
                self.running.retain(|running| *running != task);
                (task, end)
            }
            None => std::future::pending().await,
        }
    }

    /// Cancels every task still running and waits until each has stopped
    /// (its worker's process group killed); the tasks cancelled.
    pub async fn cancel_all(&mut self) -> Vec<BackgroundTask> {
        let cancelled = std::mem::take(&mut self.running);
        for task in &cancelled {
            task.cancel();
        }
        for task in &cancelled {
            task.ended().await;
        }
        self.ending.clear();
        cancelled
    }

    /// Waits until the end of every task is written on its row.
    pub async fn written(&mut self) {
        if let Some(rows) = &self.rows {
            rows.written(ROWS_WRITTEN_WITHIN).await;
        }
    }
}

/// Text written to `chat`'s line editor, which prints it above its prompt:
/// what is written is sent a whole line at a time, and the rest at a flush
/// that ends a line.
pub struct AbovePrompt {
    lines: Sender<String>,
    pending: String,
}

impl AbovePrompt {
    pub fn new(lines: Sender<String>) -> Self {
        AbovePrompt {
            lines,
            pending: String::new(),
        }
    }
}

impl Write for AbovePrompt {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.pending.push_str(&String::from_utf8_lossy(bytes));
        Ok(bytes.len())
    }

    /// Sends the lines written so far whole; a line not ended yet waits.
    fn flush(&mut self) -> io::Result<()> {
        let Some(end) = self.pending.rfind('\n') else {
            return Ok(());
        };
        let lines: String = self.pending.drain(..=end).collect();
        self.lines
            .send(lines)
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the line editor has gone"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn text_goes_above_the_prompt_a_whole_line_at_a_time() {
        let (sender, received) = std::sync::mpsc::channel();
        let mut above = AbovePrompt::new(sender);
        above.write_all(b"The report ").unwrap();
        above.flush().unwrap();
        above.write_all(b"is ready.\nIt has ").unwrap();
        above.flush().unwrap();
        above.write_all(b"42 pages.\n").unwrap();
        above.flush().unwrap();
        let sent: Vec<String> = received.try_iter().collect();
        assert_eq!(sent, ["The report is ready.\n", "It has 42 pages.\n"]);
    }
}
