//! Reading one answer from the terminal while a tool waits for it.
//!
//! The line is read in the terminal's own line mode, so the kernel does the
//! editing (Backspace, Ctrl-U, Ctrl-W) and the echo. For the prompt, Esc and
//! Ctrl-C end a line like Enter does (`VEOL`, `VEOL2`, with signals off), so
//! either cancels at once and the terminal's settings are always put back;
//! Ctrl-D on an empty line is the end of input, a cancel too. The line is
//! polled rather than read blocking: when the question is withdrawn (the
//! call ended, the turn was cancelled) the prompt stops, and what was typed
//! for it is discarded, not left for the next prompt to read.

use std::io::{self, Write};
use std::os::fd::{AsFd, BorrowedFd};

use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::termios::{
    FlushArg, LocalFlags, SetArg, SpecialCharacterIndices, Termios, tcflush, tcgetattr, tcsetattr,
};

/// How often a prompt looks whether its question is still asked.
const WITHDRAWN_CHECK_MS: u16 = 100;
const ESC: u8 = 0x1b;
const CTRL_C: u8 = 0x03;

/// How a prompt ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Typed {
    /// A line, without its newline.
    Line(String),
    /// Esc, Ctrl-C, or Ctrl-D on an empty line.
    Cancelled,
    /// The question was withdrawn before the person answered.
    Withdrawn,
}

/// Writes `prompt` on stderr and reads the line typed after it on stdin, a
/// terminal; stops when `is_open` turns false.
pub fn read_line(prompt: &str, is_open: &dyn Fn() -> bool) -> io::Result<Typed> {
    let stdin = io::stdin();
    let terminal = stdin.as_fd();
    let _mode = AnswerMode::set(terminal)?;
    let mut stderr = io::stderr();
    stderr.write_all(prompt.as_bytes())?;
    stderr.flush()?;
    let mut line = Vec::new();
    loop {
        if !is_open() {
            discard_typed(terminal);
            eprintln!();
            return Ok(Typed::Withdrawn);
        }
        let mut ready = [PollFd::new(terminal, PollFlags::POLLIN)];
        match poll(&mut ready, PollTimeout::from(WITHDRAWN_CHECK_MS)) {
            Ok(0) | Err(Errno::EINTR) => continue,
            Ok(_) => {}
            Err(err) => return Err(err.into()),
        }
        let mut chunk = [0_u8; 1024];
        let read = match nix::unistd::read(terminal, &mut chunk) {
            Ok(read) => read,
            Err(Errno::EINTR | Errno::EAGAIN) => continue,
            Err(err) => return Err(err.into()),
        };
        let chunk = &chunk[..read];
        if chunk.is_empty() || chunk.iter().any(|&byte| byte == ESC || byte == CTRL_C) {
            // What follows an Esc may be the rest of a key's sequence.
            discard_typed(terminal);
            eprintln!();
            return Ok(Typed::Cancelled);
        }
        line.extend_from_slice(chunk);
        // Without a newline, Ctrl-D sent the line so far: keep reading.
        if line.last() == Some(&b'\n') {
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(Typed::Line(String::from_utf8_lossy(&line).into_owned()));
        }
    }
}

/// Discards what was typed and not read yet.
pub fn discard_typed(terminal: BorrowedFd<'_>) {
    let _ = tcflush(terminal, FlushArg::TCIFLUSH);
}

/// The terminal set for a prompt; its settings are put back on drop.
struct AnswerMode<'fd> {
    terminal: BorrowedFd<'fd>,
    before: Termios,
}

impl<'fd> AnswerMode<'fd> {
    fn set(terminal: BorrowedFd<'fd>) -> io::Result<Self> {
        let before = tcgetattr(terminal)?;
        let mut prompt = before.clone();
        prompt.local_flags |= LocalFlags::ICANON | LocalFlags::ECHO;
        prompt.local_flags &= !LocalFlags::ISIG;
        prompt.control_chars[SpecialCharacterIndices::VEOL as usize] = ESC;
        prompt.control_chars[SpecialCharacterIndices::VEOL2 as usize] = CTRL_C;
        // Typed before the question was shown: not an answer to it.
        discard_typed(terminal);
        tcsetattr(terminal, SetArg::TCSANOW, &prompt)?;
        Ok(AnswerMode { terminal, before })
    }
}

impl Drop for AnswerMode<'_> {
    fn drop(&mut self) {
        let _ = tcsetattr(self.terminal, SetArg::TCSANOW, &self.before);
    }
}
