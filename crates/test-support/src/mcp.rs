//! An MCP server on stdio, spoken to in newline-delimited JSON-RPC as a client
//! would: `riverse mcp`, or the Python worker run alone. [`McpProcess`] owns
//! the process and its pipes; it writes requests (typed, or raw lines for
//! what no client would send) and reads what the server writes, a minute at
//! most for each message. The process is killed when the handle drops.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use serde_json::{Value, json};

/// How long the server may take to write its next message.
const PATIENCE: Duration = Duration::from_secs(60);

/// The protocol version the client asks for.
const PROTOCOL_VERSION: &str = "2025-06-18";

/// An MCP server process on stdio.
pub struct McpProcess {
    child: Child,
    /// Taken by [`McpProcess::close`], which ends the server's input.
    stdin: Option<ChildStdin>,
    /// The lines of its stdout, read by a thread of their own so that a
    /// wait for one can time out.
    lines: Receiver<String>,
    /// The id of the next request [`McpProcess::request`] sends.
    next_id: u64,
}

impl McpProcess {
    /// Starts `command` (a `riverse … mcp`), its stderr dropped, and opens
    /// the session: `initialize`, answered, then `notifications/initialized`.
    pub fn start(command: Command) -> Self {
        McpProcess::start_declaring(command, json!({}))
    }

    /// [`McpProcess::start`], the client declaring `capabilities`
    /// (`{"elicitation": {}}`).
    pub fn start_declaring(command: Command, capabilities: Value) -> Self {
        let mut server = McpProcess::spawn(command, Stdio::null());
        server.initialize(capabilities);
        server
    }

    /// Starts `command` with its stdin and stdout piped and its stderr to
    /// `stderr`; nothing is sent yet.
    pub fn spawn(mut command: Command, stderr: Stdio) -> Self {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|err| panic!("can't start the MCP server {command:?}: {err}"));
        let stdout = child.stdout.take().expect("stdout is piped");
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        McpProcess {
            stdin: child.stdin.take(),
            child,
            lines,
            next_id: 1,
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The handshake: `initialize` with `capabilities`, its reply (returned
    /// whole), then `notifications/initialized`.
    pub fn initialize(&mut self, capabilities: Value) -> Value {
        let reply = self.request(
            "initialize",
            json!({"protocolVersion": PROTOCOL_VERSION, "capabilities": capabilities,
                   "clientInfo": {"name": "test", "version": "1"}}),
        );
        assert!(reply.get("result").is_some(), "initialize failed: {reply}");
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        reply
    }

    /// Writes `message` as one line.
    pub fn send(&mut self, message: &Value) {
        self.send_line(&message.to_string());
    }

    /// Writes `line` as it is, and a newline: for what a `Value` can't
    /// hold (a number past `f64`, nesting past serde_json's depth) or what
    /// is not JSON at all.
    pub fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("the server's input is open");
        // One write: the lines of a pipelined `line` arrive together.
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        stdin.write_all(&bytes).expect("write to the MCP server");
    }

    /// The next message the server writes, whatever it is.
    pub fn next_message(&self) -> Value {
        let line = match self.lines.recv_timeout(PATIENCE) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => {
                panic!("the MCP server wrote nothing for {PATIENCE:?}")
            }
            Err(RecvTimeoutError::Disconnected) => panic!("the MCP server closed its stdout"),
        };
        serde_json::from_str(&line).unwrap_or_else(|err| {
            panic!("the MCP server wrote a line that is not JSON ({err}): {line}")
        })
    }

    /// The next message that has an id (a reply, or a request to the
    /// client), past the notifications before it.
    pub fn next_with_id(&self) -> Value {
        loop {
            let message = self.next_message();
            if message.get("id").is_some() {
                return message;
            }
        }
    }

    /// The reply to request `id`, past the notifications before it; any
    /// other message with an id fails the test.
    pub fn reply_to(&self, id: &Value) -> Value {
        let message = self.next_with_id();
        assert_eq!(
            &message["id"], id,
            "a message other than the reply awaited: {message}"
        );
        message
    }

    /// Sends request `method` with the next id, and returns its reply.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = json!(self.next_id);
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.reply_to(&id)
    }

    /// Calls tool `name` with `arguments`: whether it succeeded, and the
    /// text of the result (its text blocks, a line each; the whole reply
    /// when it has none).
    pub fn call(&mut self, name: &str, arguments: Value) -> (bool, String) {
        let reply = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        let result = &reply["result"];
        let text = match result["content"].as_array() {
            Some(blocks) => blocks
                .iter()
                .filter_map(|block| block["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            None => reply.to_string(),
        };
        (result["isError"] != json!(true), text)
    }

    /// Closes the server's input and waits for it to end: how it ended.
    pub fn close(mut self) -> ExitStatus {
        drop(self.stdin.take());
        self.child.wait().expect("wait for the MCP server")
    }
}

impl Drop for McpProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
