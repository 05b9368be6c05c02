//! `riverse` on a terminal: a pseudo-terminal the test types into, and the
//! screen a person would see, rebuilt from what Riverse writes to it.

use std::fs::File;
use std::io::{Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use nix::pty::{Winsize, openpty};
use riverse_test_support::eventually;

const ROWS: u16 = 40;
const COLS: u16 = 120;
/// How long a wait for the screen lasts before the test fails.
const PATIENCE: Duration = Duration::from_secs(60);

/// A child process on a terminal of its own.
pub struct Terminal {
    child: Child,
    keys: File,
    seen: Arc<Seen>,
}

/// The screen so far, and whether the terminal has closed.
struct Seen {
    state: Mutex<(Screen, bool)>,
    changed: Condvar,
}

impl Terminal {
    /// Runs `command` with its stdin, stdout and stderr on a new terminal.
    pub fn spawn(mut command: Command) -> Terminal {
        let size = Winsize {
            ws_row: ROWS,
            ws_col: COLS,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        let pty = openpty(&size, None).unwrap();
        command
            .env("TERM", "xterm-256color")
            .stdin(Stdio::from(pty.slave.try_clone().unwrap()))
            .stdout(Stdio::from(pty.slave.try_clone().unwrap()))
            .stderr(Stdio::from(pty.slave));
        let child = command.spawn().unwrap();
        // The command holds the terminal's other end until it is dropped.
        drop(command);
        let keys = File::from(pty.master);
        let seen = Arc::new(Seen {
            state: Mutex::new((Screen::new(ROWS.into(), COLS.into()), false)),
            changed: Condvar::new(),
        });
        let mut output = keys.try_clone().unwrap();
        let mut replies = keys.try_clone().unwrap();
        let screen = seen.clone();
        std::thread::spawn(move || {
            let mut chunk = [0_u8; 4096];
            loop {
                let read = output.read(&mut chunk).unwrap_or(0);
                let mut state = screen.state.lock().unwrap();
                if read == 0 {
                    state.1 = true;
                    screen.changed.notify_all();
                    return;
                }
                for reply in state.0.feed(&chunk[..read]) {
                    let _ = replies.write_all(&reply);
                }
                screen.changed.notify_all();
            }
        });
        Terminal { child, keys, seen }
    }

    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Types `keys` (`\r` is Enter, `\x1b` Esc, `\x04` Ctrl-D).
    pub fn type_keys(&mut self, keys: &str) {
        self.keys.write_all(keys.as_bytes()).unwrap();
        self.keys.flush().unwrap();
    }

    /// The screen's text now, scrolled-off lines first.
    pub fn screen(&self) -> String {
        self.seen.state.lock().unwrap().0.text()
    }

    /// Waits until the screen shows what `ready` looks for, and returns it;
    /// fails, showing the screen, after a minute without.
    pub fn wait_for(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + PATIENCE;
        let mut state = self.seen.state.lock().unwrap();
        loop {
            let text = state.0.text();
            if ready(&text) {
                return text;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero() && !state.1,
                "the screen never showed {what}:\n{text}"
            );
            state = self.seen.changed.wait_timeout(state, left).unwrap().0;
        }
    }

    /// Waits until the screen holds `needle`.
    pub fn wait_for_text(&self, needle: &str) -> String {
        self.wait_for(&format!("{needle:?}"), |screen| screen.contains(needle))
    }

    /// Waits until the last line is `> `, the chat's prompt.
    pub fn wait_for_prompt(&self) -> String {
        self.wait_for("the chat's prompt", |screen| {
            screen.lines().last().is_some_and(|line| line == ">")
        })
    }

    /// Waits for the child to exit; fails, showing the screen, after a
    /// minute.
    pub fn wait(mut self) -> ExitStatus {
        let seen = &self.seen;
        let child = &mut self.child;
        eventually(PATIENCE, "the program to exit", || {
            child
                .try_wait()
                .unwrap()
                .ok_or_else(|| format!("the screen:\n{}", seen.state.lock().unwrap().0.text()))
        })
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// As much of a terminal's screen as Riverse's output needs: text, line
/// wraps and scrolling, the cursor moves and erases that the progress bars
/// and the line editor use, and the cursor position report. Colours and
/// modes are ignored.
struct Screen {
    rows: usize,
    cols: usize,
    /// Lines scrolled off the top.
    scrolled: Vec<String>,
    cells: Vec<Vec<char>>,
    row: usize,
    col: usize,
    /// The last column was written: the next character starts a new line.
    wrap_pending: bool,
    parser: Parser,
    /// Bytes of a character not complete yet.
    partial: Vec<u8>,
}

enum Parser {
    Text,
    Escape,
    /// A control sequence, with its parameters so far.
    Control(String),
    /// An operating system command (a window title), up to BEL or ST.
    System,
    SystemEscape,
}

impl Screen {
    fn new(rows: usize, cols: usize) -> Self {
        Screen {
            rows,
            cols,
            scrolled: Vec::new(),
            cells: vec![vec![' '; cols]; rows],
            row: 0,
            col: 0,
            wrap_pending: false,
            parser: Parser::Text,
            partial: Vec::new(),
        }
    }

    /// Takes what the program wrote; returns what the terminal answers.
    fn feed(&mut self, bytes: &[u8]) -> Vec<Vec<u8>> {
        let mut replies = Vec::new();
        for &byte in bytes {
            match std::mem::replace(&mut self.parser, Parser::Text) {
                Parser::Text => self.text_byte(byte),
                Parser::Escape => {
                    self.parser = match byte {
                        b'[' => Parser::Control(String::new()),
                        b']' => Parser::System,
                        _ => Parser::Text,
                    }
                }
                Parser::Control(mut params) => {
                    if (0x40..=0x7e).contains(&byte) {
                        replies.extend(self.control(&params, byte));
                    } else {
                        params.push(byte as char);
                        self.parser = Parser::Control(params);
                    }
                }
                Parser::System => {
                    self.parser = match byte {
                        0x07 => Parser::Text,
                        0x1b => Parser::SystemEscape,
                        _ => Parser::System,
                    }
                }
                Parser::SystemEscape => {}
            }
        }
        replies
    }

    fn text_byte(&mut self, byte: u8) {
        match byte {
            0x1b => self.parser = Parser::Escape,
            b'\r' => {
                self.col = 0;
                self.wrap_pending = false;
            }
            b'\n' => {
                self.wrap_pending = false;
                self.line_feed();
            }
            0x08 => {
                self.col = self.col.saturating_sub(1);
                self.wrap_pending = false;
            }
            b'\t' => self.col = ((self.col / 8 + 1) * 8).min(self.cols - 1),
            byte if byte < 0x20 || byte == 0x7f => {}
            byte => {
                self.partial.push(byte);
                match std::str::from_utf8(&self.partial) {
                    Ok(text) => {
                        let chars: Vec<char> = text.chars().collect();
                        self.partial.clear();
                        for c in chars {
                            self.put(c);
                        }
                    }
                    Err(err) if err.error_len().is_some() => self.partial.clear(),
                    Err(_) => {}
                }
            }
        }
    }

    fn put(&mut self, c: char) {
        if self.wrap_pending {
            self.wrap_pending = false;
            self.col = 0;
            self.line_feed();
        }
        self.cells[self.row][self.col] = c;
        if self.col + 1 == self.cols {
            self.wrap_pending = true;
        } else {
            self.col += 1;
        }
    }

    fn line_feed(&mut self) {
        if self.row + 1 < self.rows {
            self.row += 1;
            return;
        }
        let top = self.cells.remove(0);
        self.scrolled.push(line_text(&top));
        self.cells.push(vec![' '; self.cols]);
    }

    /// Runs one control sequence: `ESC [ params final`.
    fn control(&mut self, params: &str, last: u8) -> Option<Vec<u8>> {
        if params.starts_with('?') || params.starts_with('>') {
            return None;
        }
        let numbers: Vec<usize> = params
            .split(';')
            .map(|n| n.trim().parse().unwrap_or(0))
            .collect();
        let n = |index: usize| numbers.get(index).copied().unwrap_or(0);
        let count = n(0).max(1);
        self.wrap_pending = false;
        match last {
            b'A' => self.row = self.row.saturating_sub(count),
            b'B' => self.row = (self.row + count).min(self.rows - 1),
            b'C' => self.col = (self.col + count).min(self.cols - 1),
            b'D' => self.col = self.col.saturating_sub(count),
            b'G' => self.col = (count - 1).min(self.cols - 1),
            b'H' | b'f' => {
                self.row = (n(0).max(1) - 1).min(self.rows - 1);
                self.col = (n(1).max(1) - 1).min(self.cols - 1);
            }
            b'J' => {
                let (row, col) = (self.row, self.col);
                match n(0) {
                    0 => {
                        self.cells[row][col..].fill(' ');
                        for line in &mut self.cells[row + 1..] {
                            line.fill(' ');
                        }
                    }
                    1 => {
                        for line in &mut self.cells[..row] {
                            line.fill(' ');
                        }
                        self.cells[row][..=col].fill(' ');
                    }
                    _ => {
                        for line in &mut self.cells {
                            line.fill(' ');
                        }
                    }
                }
            }
            b'K' => {
                let (row, col) = (self.row, self.col);
                match n(0) {
                    0 => self.cells[row][col..].fill(' '),
                    1 => self.cells[row][..=col].fill(' '),
                    _ => self.cells[row].fill(' '),
                }
            }
            b'n' if n(0) == 6 => {
                return Some(format!("\x1b[{};{}R", self.row + 1, self.col + 1).into_bytes());
            }
            _ => {}
        }
        None
    }

    /// Every line, scrolled-off ones first, without trailing blanks.
    fn text(&self) -> String {
        let mut lines: Vec<String> = self.scrolled.clone();
        lines.extend(self.cells.iter().map(|line| line_text(line)));
        while lines.last().is_some_and(String::is_empty) {
            lines.pop();
        }
        lines.join("\n")
    }
}

fn line_text(cells: &[char]) -> String {
    cells.iter().collect::<String>().trim_end().to_owned()
}

#[test]
fn the_screen_follows_wraps_moves_and_erases() {
    let mut screen = Screen::new(3, 10);
    screen.feed("  → bar ⠋\r\n".as_bytes());
    screen.feed(b"\x1b[1A\r\x1b[2Kdone\r\n");
    screen.feed(b"0123456789abc\x1b[31mred\x1b[0m\n");
    assert_eq!(screen.text(), "done\n0123456789\nabcred");
    assert_eq!(screen.feed(b"\x1b[6n"), [b"\x1b[3;7R".to_vec()]);
}
