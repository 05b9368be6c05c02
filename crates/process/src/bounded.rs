//! A protocol stream whose over-long lines are replaced as they stream by,
//! and whose other lines may be vetted.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};

use riverse_protocol::KEPT_OF_TOO_LONG;
use tokio::io::{AsyncRead, ReadBuf};

/// How much is read from the inner stream at a time.
const CHUNK: usize = 8192;

/// What an over-long line becomes: given its first and its last
/// [`KEPT_OF_TOO_LONG`] bytes and its length, the line to pass on instead
/// (without its newline), or `None` to drop it.
pub type Replace = Box<dyn Fn(&[u8], &[u8], usize) -> Option<Vec<u8>> + Send + Sync>;

/// What a line within the limit becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Passed on as it is.
    Pass,
    /// Passed on as this line instead (without its newline).
    Replace(Vec<u8>),
    /// Dropped, and the stream ends before it: the reader sees what came
    /// before, then the end.
    End,
}

/// Judges each line within the limit (without its newline).
pub type Vet = Box<dyn Fn(&[u8]) -> Verdict + Send + Sync>;

/// Passes a newline-delimited stream through, line by line, and replaces each
/// line longer than `limit` (which is never held whole) by what `replace`
/// makes of its ends. Lines within the limit pass, unless a [`Vet`] given
/// with [`BoundedLines::vetting`] says otherwise.
pub struct BoundedLines<R> {
    inner: R,
    limit: usize,
    replace: Replace,
    vet: Option<Vet>,
    /// Whole lines ready to be read.
    ready: VecDeque<u8>,
    /// The line being read (its start, once it is over the limit).
    line: Vec<u8>,
    /// The last bytes of the line being read, once it is over the limit: at
    /// least [`KEPT_OF_TOO_LONG`] of them, when the line has them.
    tail: Vec<u8>,
    /// The length of the line being read, once it is over the limit.
    discarding: Option<usize>,
    /// The inner stream ended, or the vet ended the stream.
    ended: bool,
    /// What is read from the inner stream, kept: made (and zeroed) once,
    /// not at every read.
    chunk: Box<[u8]>,
}

impl<R> BoundedLines<R> {
    pub fn new(inner: R, limit: usize, replace: Replace) -> Self {
        BoundedLines {
            inner,
            limit,
            replace,
            vet: None,
            ready: VecDeque::new(),
            line: Vec::new(),
            tail: Vec::new(),
            discarding: None,
            ended: false,
            chunk: vec![0; CHUNK].into_boxed_slice(),
        }
    }

    /// Has each line within the limit judged by `vet`.
    pub fn vetting(mut self, vet: Vet) -> Self {
        self.vet = Some(vet);
        self
    }

    fn take_bytes(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() && !self.ended {
            let newline = memchr::memchr(b'\n', bytes);
            let (part, rest) = match newline {
                Some(at) => (&bytes[..at], Some(&bytes[at + 1..])),
                None => (bytes, None),
            };
            match self.discarding.as_mut() {
                Some(total) => {
                    *total += part.len();
                    self.keep_tail(part);
                }
                None if self.line.len() + part.len() > self.limit => {
                    let total = self.line.len() + part.len();
                    self.tail.clear();
                    let from_line = KEPT_OF_TOO_LONG.saturating_sub(part.len());
                    let line_end = self.line.len().saturating_sub(from_line);
                    self.tail.extend_from_slice(&self.line[line_end..]);
                    self.keep_tail(part);
                    let room = KEPT_OF_TOO_LONG.saturating_sub(self.line.len());
                    self.line.truncate(KEPT_OF_TOO_LONG);
                    self.line.extend_from_slice(&part[..room.min(part.len())]);
                    self.discarding = Some(total);
                }
                None => self.line.extend_from_slice(part),
            }
            let Some(rest) = rest else {
                return;
            };
            self.end_line();
            bytes = rest;
        }
    }

    /// Adds `bytes` to the tail, which keeps its last [`KEPT_OF_TOO_LONG`]
    /// bytes (and at most twice that, between trims).
    fn keep_tail(&mut self, bytes: &[u8]) {
        let bytes = &bytes[bytes.len().saturating_sub(KEPT_OF_TOO_LONG)..];
        self.tail.extend_from_slice(bytes);
        if self.tail.len() > 2 * KEPT_OF_TOO_LONG {
            self.tail.drain(..self.tail.len() - KEPT_OF_TOO_LONG);
        }
    }

    fn end_line(&mut self) {
        if self.discarding.is_none() {
            // A line within the limit is copied and its buffer kept for the
            // next one.
            let verdict = match &self.vet {
                Some(vet) => vet(&self.line),
                None => Verdict::Pass,
            };
            match verdict {
                Verdict::Pass => self.ready.extend(&self.line),
                Verdict::Replace(instead) => self.ready.extend(instead),
                Verdict::End => self.ended = true,
            }
            self.line.clear();
            if !self.ended {
                self.ready.push_back(b'\n');
            }
            return;
        }
        if let Some(whole) = self.judge_line() {
            self.ready.extend(whole);
            self.ready.push_back(b'\n');
        }
    }

    /// What the line just read becomes, if anything.
    fn judge_line(&mut self) -> Option<Vec<u8>> {
        let line = std::mem::take(&mut self.line);
        if let Some(total) = self.discarding.take() {
            let tail = std::mem::take(&mut self.tail);
            let end = &tail[tail.len().saturating_sub(KEPT_OF_TOO_LONG)..];
            return (self.replace)(&line, end, total);
        }
        let verdict = match &self.vet {
            Some(vet) => vet(&line),
            None => Verdict::Pass,
        };
        match verdict {
            Verdict::Pass => Some(line),
            Verdict::Replace(instead) => Some(instead),
            Verdict::End => {
                self.ended = true;
                None
            }
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for BoundedLines<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        loop {
            if !this.ready.is_empty() {
                let (front, _) = this.ready.as_slices();
                let count = front.len().min(buf.remaining());
                buf.put_slice(&front[..count]);
                this.ready.drain(..count);
                return Poll::Ready(Ok(()));
            }
            if this.ended {
                return Poll::Ready(Ok(()));
            }
            let mut chunk = std::mem::take(&mut this.chunk);
            let mut chunk_buf = ReadBuf::new(&mut chunk);
            let polled = Pin::new(&mut this.inner).poll_read(cx, &mut chunk_buf);
            let read = chunk_buf.filled().len();
            match polled {
                Poll::Pending => {
                    this.chunk = chunk;
                    return Poll::Pending;
                }
                Poll::Ready(Err(err)) => {
                    this.chunk = chunk;
                    return Poll::Ready(Err(err));
                }
                Poll::Ready(Ok(())) => {
                    if read == 0 {
                        // A last line without its newline is judged like the
                        // others, and passed on without one.
                        if this.discarding.is_none()
                            && !this.line.is_empty()
                            && let Some(last) = this.judge_line()
                        {
                            this.ready.extend(last);
                        }
                        this.ended = true;
                    } else {
                        this.take_bytes(&chunk[..read]);
                    }
                    this.chunk = chunk;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use riverse_protocol::id_of_cut_line;
    use tokio::io::AsyncReadExt;

    #[tokio::test]
    async fn an_over_long_line_is_replaced_and_the_others_pass() {
        let mut input =
            b"{\"id\":1}\n{\"jsonrpc\":\"2.0\",\"id\":\"a\\\"b\",\"result\":\"".to_vec();
        input.extend(vec![b'x'; 100_000]);
        input.extend(b"\"}\nlast");
        let replace: Replace = Box::new(|start, end, total| {
            Some(format!("{} {total}", id_of_cut_line(start, end).unwrap()).into_bytes())
        });
        let mut bounded = BoundedLines::new(&input[..], 1000, replace);
        let mut output = String::new();
        bounded.read_to_string(&mut output).await.unwrap();
        assert_eq!(output, "{\"id\":1}\n\"a\\\"b\" 100041\nlast");
    }

    /// Issue 28: an id written last (as TypeScript's SDK writes it) is read
    /// from the line's end, wherever the reads cut it.
    #[tokio::test]
    async fn an_over_long_lines_id_written_last_is_read_from_its_end() {
        for padding in [100_000, 3 * CHUNK - 40, 3 * CHUNK - 5, 3 * CHUNK + 3] {
            let mut input =
                br#"{"method":"tools/call","params":{"arguments":{"id":1,"text":""#.to_vec();
            input.extend(vec![b'x'; padding]);
            input.extend(br#""}},"jsonrpc":"2.0","id":42}"#);
            let total = input.len();
            input.extend(b"\n{\"id\":2}\n");
            let replace: Replace = Box::new(|start, end, total| {
                Some(format!("{:?} {total}", id_of_cut_line(start, end)).into_bytes())
            });
            let mut bounded = BoundedLines::new(&input[..], 1000, replace);
            let mut output = String::new();
            bounded.read_to_string(&mut output).await.unwrap();
            assert_eq!(output, format!("Some(\"42\") {total}\n{{\"id\":2}}\n"));
        }
    }

    #[tokio::test]
    async fn a_vet_replaces_lines_and_ends_the_stream_before_the_line_it_refuses() {
        let input = b"keep\nswap\nkeep\nstop\nnever\n";
        let vet: Vet = Box::new(|line| match line {
            b"swap" => Verdict::Replace(b"swapped".to_vec()),
            b"stop" => Verdict::End,
            _ => Verdict::Pass,
        });
        let mut bounded =
            BoundedLines::new(&input[..], 1000, Box::new(|_, _, _| None)).vetting(vet);
        let mut output = String::new();
        bounded.read_to_string(&mut output).await.unwrap();
        assert_eq!(output, "keep\nswapped\nkeep\n");
    }
}
