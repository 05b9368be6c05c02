//! `riverse mcp`'s transport: newline-delimited JSON-RPC on a byte stream,
//! under rmcp's service.
//!
//! rmcp's own stdio transport parses every line into its message enum, whose
//! untagged and flattened variants make serde buffer the message and build an
//! error for each variant that does not match: measured, that parse was a
//! third of the server's work for a `tools/call` (docs/performance.md). Here
//! a `tools/call` with only a name and arguments, nearly every line a client
//! sends, is read by its envelope straight into its typed params; every other
//! line is parsed by rmcp's types as before, and answered as rmcp's transport
//! answers it: text that is not JSON is ignored, and JSON that is not a
//! message gets `Invalid request`, unless it is a JSON-RPC notification,
//! which JSON-RPC never answers.

use std::sync::Arc;

use riverse_protocol::{Incoming, RequestId};
use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, ClientRequest, ErrorData, JsonObject, JsonRpcMessage, JsonRpcRequest,
    NumberOrString, Request,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::Mutex;

/// Reads requests from `read` one line at a time (the caller bounds their
/// length) and writes replies to `write`.
pub(crate) struct LineTransport<R, W> {
    read: R,
    /// The line being read: kept across calls, since rmcp's service polls
    /// `receive` in a `select!` that may drop it halfway through a line.
    line: Vec<u8>,
    write: Arc<Mutex<Option<W>>>,
}

impl<R, W> LineTransport<R, W> {
    pub(crate) fn new(read: R, write: W) -> Self {
        LineTransport {
            read,
            line: Vec::new(),
            write: Arc::new(Mutex::new(Some(write))),
        }
    }
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncBufRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        message: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = self.write.clone();
        async move {
            let mut line = serde_json::to_vec(&message)?;
            line.push(b'\n');
            let mut write = write.lock().await;
            let Some(write) = write.as_mut() else {
                return Err(std::io::ErrorKind::NotConnected.into());
            };
            write.write_all(&line).await?;
            write.flush().await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.read.read_until(b'\n', &mut self.line).await {
                Ok(0) => return None,
                Ok(_) if !self.line.ends_with(b"\n") => return None, // a last line cut off
                Ok(_) => {}
                Err(err) => {
                    tracing::error!("can't read a request: {err}");
                    return None;
                }
            }
            let parsed = parse(trimmed(&self.line));
            self.line.clear();
            match parsed {
                Parsed::Message(message) => return Some(*message),
                Parsed::Ignored => {}
                Parsed::Invalid => {
                    let error = ErrorData::invalid_request("Invalid request", None);
                    let reply = TxJsonRpcMessage::<RoleServer>::error(error, None);
                    if self.send(reply).await.is_err() {
                        return None;
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        drop(self.write.lock().await.take());
        Ok(())
    }
}

/// A line without its newline, carriage return and byte order mark.
fn trimmed(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
}

enum Parsed {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Not a message, and nothing to answer: blank, not JSON, or a
    /// notification of another protocol.
    Ignored,
    /// JSON that is not a message: answered with `Invalid request`.
    Invalid,
}

fn parse(line: &[u8]) -> Parsed {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Parsed::Ignored;
    }
    let envelope = std::str::from_utf8(line)
        .map_err(|err| err.to_string())
        .and_then(Incoming::parse);
    if let Ok(Incoming::Request {
        id,
        method,
        params: Some(params),
    }) = &envelope
        && method == "tools/call"
        && let Some(call) = tools_call(id, params)
    {
        return Parsed::Message(Box::new(call));
    }
    match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line) {
        Ok(message) => Parsed::Message(Box::new(message)),
        Err(err) if err.is_syntax() || err.is_eof() => {
            tracing::debug!("ignoring a line that is not JSON: {err}");
            Parsed::Ignored
        }
        // JSON-RPC answers no notification, not even one it cannot read.
        Err(err) if matches!(envelope, Ok(Incoming::Notification { .. })) => {
            tracing::debug!("ignoring a notification it can't read: {err}");
            Parsed::Ignored
        }
        Err(err) => {
            tracing::debug!("not a JSON-RPC message: {err}");
            Parsed::Invalid
        }
    }
}

/// A `tools/call`'s params with nothing but a name and arguments: anything
/// more (`_meta`, a progress token) takes rmcp's own parse.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CallParams {
    name: String,
    #[serde(default)]
    arguments: Option<JsonObject>,
}

/// A `tools/call` request with `params`, when they are plain.
fn tools_call(id: &RequestId, params: &RawValue) -> Option<RxJsonRpcMessage<RoleServer>> {
    let CallParams { name, arguments } = serde_json::from_str(params.get()).ok()?;
    let mut params = CallToolRequestParams::new(name);
    params.arguments = arguments;
    let request = ClientRequest::CallToolRequest(Request::new(params));
    let id = match id {
        RequestId::Number(number) => NumberOrString::Number(*number),
        RequestId::String(text) => NumberOrString::String(text.as_str().into()),
    };
    Some(JsonRpcMessage::Request(JsonRpcRequest::new(id, request)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(line: &str) -> Parsed {
        parse(line.as_bytes())
    }

    /// What the fast path makes of `line`, if it takes it.
    fn fast_path(line: &str) -> Option<RxJsonRpcMessage<RoleServer>> {
        let Ok(Incoming::Request {
            id,
            params: Some(params),
            ..
        }) = Incoming::parse(line)
        else {
            return None;
        };
        tools_call(&id, params)
    }

    #[test]
    fn a_plain_tools_call_is_read_as_rmcp_reads_it() {
        let line = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#;
        let fast = fast_path(line).expect("a plain tools/call");
        let rmcp: RxJsonRpcMessage<RoleServer> = serde_json::from_str(line).unwrap();
        assert_eq!(
            serde_json::to_value(&fast).unwrap(),
            serde_json::to_value(&rmcp).unwrap()
        );
    }

    #[test]
    fn a_call_with_more_than_a_name_and_arguments_takes_rmcps_parse() {
        let with_meta = r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","_meta":{"progressToken":1}}}"#;
        assert!(fast_path(with_meta).is_none());
        let Parsed::Message(message) = parsed(with_meta) else {
            panic!("not a message");
        };
        let rmcp: RxJsonRpcMessage<RoleServer> = serde_json::from_str(with_meta).unwrap();
        assert_eq!(
            serde_json::to_value(&*message).unwrap(),
            serde_json::to_value(&rmcp).unwrap()
        );
    }

    #[test]
    fn lines_that_are_not_messages_are_ignored_or_invalid_as_rmcp_has_them() {
        assert!(matches!(parsed("   "), Parsed::Ignored));
        assert!(matches!(parsed("not json"), Parsed::Ignored));
        // A notification whose params rmcp cannot read: never answered.
        assert!(matches!(
            parsed(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":"oops"}"#),
            Parsed::Ignored
        ));
        assert!(matches!(parsed(r#"{"hello":"world"}"#), Parsed::Invalid));
        assert!(matches!(
            parsed(r#"{"method":"textDocument/didOpen","params":{}}"#),
            Parsed::Invalid
        ));
        assert!(matches!(
            parsed(r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"x"}}"#),
            Parsed::Invalid
        ));
    }
}
