//! A child's stderr, relayed to the log line by line.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::sync::Arc;

use parking_lot::Mutex;

use tokio::sync::watch;

/// The log target lines are relayed under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// What a Python tool printed.
    Tool,
    /// What an MCP server printed.
    Mcp,
}

/// How a child's stderr is relayed.
#[derive(Debug, Clone)]
pub struct Relay {
    pub target: Target,
    /// Names the lines, until a marker names another.
    pub label: String,
    /// When set, this marker followed by a name ends a line and makes the name
    /// the label of what follows: the Python worker says in the stream itself
    /// whose output comes next. The caller makes it unguessable (a random part)
    /// so that a tool printing a marker by accident cannot take another's name.
    pub marker: Option<Vec<u8>>,
}

/// How many of the last stderr lines are kept to explain a death.
const TAIL_LINES: usize = 5;
/// The most of one line kept in that tail.
const TAIL_LINE_CHARS: usize = 300;
/// The longest line relayed in one piece; a longer one is relayed in pieces
/// this long, so a tool printing without newlines cannot grow the host.
pub(crate) const MAX_LINE_BYTES: usize = 64 * 1024;
/// The relay thread only reads and logs lines.
const RELAY_THREAD_STACK: usize = 128 * 1024;

/// What the relay thread shares with the child's handle.
#[derive(Debug)]
pub(crate) struct Stderr {
    tail: Mutex<VecDeque<String>>,
    /// Becomes true when the stream has ended.
    pub(crate) ended: watch::Receiver<bool>,
}

impl Stderr {
    pub(crate) fn tail(&self) -> Vec<String> {
        self.tail.lock().iter().cloned().collect()
    }

    /// Waits up to `grace` for the stream to end.
    pub(crate) async fn ended_within(&self, grace: std::time::Duration) {
        let mut ended = self.ended.clone();
        let _ = tokio::time::timeout(grace, ended.wait_for(|ended| *ended)).await;
    }

    fn remember(&self, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        let mut tail = self.tail.lock();
        if tail.len() == TAIL_LINES {
            tail.pop_front();
        }
        tail.push_back(line.chars().take(TAIL_LINE_CHARS).collect());
    }
}

/// Starts the thread that relays `stream`. It is a thread, not a task, so it
/// needs no runtime and a host shutting down can still wait for the last lines
/// ([`crate::shutdown`]).
pub(crate) fn start(
    stream: impl Read + Send + 'static,
    relay: Relay,
) -> std::io::Result<Arc<Stderr>> {
    let (ended_tx, ended) = watch::channel(false);
    let stderr = Arc::new(Stderr {
        tail: Mutex::new(VecDeque::new()),
        ended,
    });
    let shared = stderr.clone();
    let running = crate::groups::RelayRunning::start();
    std::thread::Builder::new()
        .name(format!("stderr-{}", relay.label))
        .stack_size(RELAY_THREAD_STACK)
        .spawn(move || {
            let target = relay.target;
            forward(BufReader::new(stream), relay, |label, text| {
                // A tool's stderr is its output too: no secret goes on.
                let text = riverse_secrets::scrub(text);
                log(target, label, &text);
                shared.remember(&text);
            });
            ended_tx.send_replace(true);
            drop(running);
        })?;
    Ok(stderr)
}

/// Hands each line to `relayed` with the label it falls under.
fn forward(mut reader: impl BufRead, relay: Relay, mut relayed: impl FnMut(&str, &str)) {
    let mut label = relay.label;
    let mut line = Vec::new();
    while read_capped_line(&mut reader, &mut line, MAX_LINE_BYTES).is_ok_and(|read| read > 0) {
        let marker = relay.marker.as_deref().and_then(|marker| {
            line.windows(marker.len())
                .position(|window| window == marker)
                .map(|at| (at, at + marker.len()))
        });
        // A marker may follow output that did not end its line.
        let (text, name) = match marker {
            Some((at, name_at)) => (&line[..at], Some(&line[name_at..])),
            None => (&line[..], None),
        };
        let text = escape_controls(String::from_utf8_lossy(text).trim_end());
        if !text.is_empty() || name.is_none() {
            relayed(&label, &text);
        }
        if let Some(name) = name {
            label = escape_controls(String::from_utf8_lossy(name).trim_end());
        }
        line.clear();
    }
}

fn log(target: Target, label: &str, text: &str) {
    match target {
        Target::Tool => tracing::info!(target: "tool", "{label}: {text}"),
        Target::Mcp => tracing::info!(target: "mcp", "{label}: {text}"),
    }
}

/// Reads up to and including a newline, or `max` bytes, whichever comes first.
fn read_capped_line(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<usize> {
    let start = line.len();
    while line.len() - start < max {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            break;
        }
        let room = max - (line.len() - start);
        let take = available.len().min(room);
        match memchr::memchr(b'\n', &available[..take]) {
            Some(newline) => {
                line.extend_from_slice(&available[..=newline]);
                reader.consume(newline + 1);
                break;
            }
            None => {
                line.extend_from_slice(&available[..take]);
                reader.consume(take);
            }
        }
    }
    Ok(line.len() - start)
}

/// Control characters (other than tab) written as escapes, so a relayed line
/// cannot move the terminal's cursor, forge a label marker or end a log line.
pub(crate) fn escape_controls(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        if character.is_control() && character != '\t' {
            escaped.extend(character.escape_default());
        } else {
            escaped.push(character);
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(
            escape_controls("\0riverse-label:other\x1b[2J\tok"),
            "\\u{0}riverse-label:other\\u{1b}[2J\tok"
        );
    }

    #[test]
    fn a_line_longer_than_the_cap_is_read_in_pieces() {
        let mut reader = std::io::Cursor::new(b"abcdefg\nhi".to_vec());
        let mut line = Vec::new();
        let mut pieces = Vec::new();
        while read_capped_line(&mut reader, &mut line, 3).unwrap() > 0 {
            pieces.push(String::from_utf8(std::mem::take(&mut line)).unwrap());
        }
        assert_eq!(pieces, ["abc", "def", "g\n", "hi"]);
    }

    #[test]
    fn a_marker_relabels_what_follows_and_a_forged_one_is_relayed_escaped() {
        let input = b"start\n\0riverse-label:forged\nout\0mk:a.py\nfrom a\n".to_vec();
        let relay = Relay {
            target: Target::Tool,
            label: "python".into(),
            marker: Some(b"\0mk:".to_vec()),
        };
        let mut lines = Vec::new();
        forward(std::io::Cursor::new(input), relay, |label, text| {
            lines.push(format!("{label}: {text}"));
        });
        assert_eq!(
            lines,
            [
                "python: start",
                "python: \\u{0}riverse-label:forged",
                "python: out",
                "a.py: from a"
            ]
        );
    }
}
