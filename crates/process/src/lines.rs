//! Reading a protocol line with a bound on its length.

use riverse_protocol::KEPT_OF_TOO_LONG;
use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// One line of a protocol stream, without its newline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    Complete(Vec<u8>),
    /// The line was longer than the limit: its start, and how long it was. The
    /// rest was discarded as it streamed by, never held.
    TooLong {
        start: Vec<u8>,
        total: usize,
    },
    /// The stream ended in the middle of a line: what there was of it (at most
    /// the limit).
    Unterminated(Vec<u8>),
}

/// Reads one line of at most `limit` bytes; `None` at the end of the stream.
pub async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    limit: usize,
) -> std::io::Result<Option<Line>> {
    let mut line = Vec::new();
    let mut total = 0usize;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            if total == 0 {
                return Ok(None);
            }
            return Ok(Some(Line::Unterminated(line)));
        }
        let (chunk, ended) = match memchr::memchr(b'\n', available) {
            Some(newline) => (&available[..newline], true),
            None => (available, false),
        };
        // Once the line is known to be too long, only its start is kept.
        let cap = if total + chunk.len() <= limit {
            limit
        } else {
            KEPT_OF_TOO_LONG.min(limit)
        };
        line.truncate(cap);
        let keep = cap.saturating_sub(line.len()).min(chunk.len());
        line.extend_from_slice(&chunk[..keep]);
        total += chunk.len();
        let consumed = chunk.len() + usize::from(ended);
        reader.consume(consumed);
        if ended {
            break;
        }
    }
    Ok(Some(if total > limit {
        Line::TooLong { start: line, total }
    } else {
        Line::Complete(line)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::BufReader;

    async fn lines(input: &[u8], limit: usize) -> Vec<Line> {
        // A small buffer, so lines span many reads.
        let mut reader = BufReader::with_capacity(7, input);
        let mut lines = Vec::new();
        while let Some(line) = read_line(&mut reader, limit).await.unwrap() {
            lines.push(line);
        }
        lines
    }

    #[tokio::test]
    async fn lines_within_the_limit_are_whole_and_a_longer_one_keeps_only_its_start() {
        let long = vec![b'x'; 10_000];
        let mut input = b"{\"id\":1}\n".to_vec();
        input.extend_from_slice(&long);
        input.extend_from_slice(b"\nlast");
        let read = lines(&input, 100).await;
        assert_eq!(
            read,
            [
                Line::Complete(b"{\"id\":1}".to_vec()),
                Line::TooLong {
                    start: vec![b'x'; 100],
                    total: 10_000
                },
                Line::Unterminated(b"last".to_vec()),
            ]
        );
    }

    #[tokio::test]
    async fn a_line_of_exactly_the_limit_is_complete() {
        assert_eq!(
            lines(b"abcd\n", 4).await,
            [Line::Complete(b"abcd".to_vec())]
        );
    }
}
