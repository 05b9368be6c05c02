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
//! which JSON-RPC never answers. The error carries the request's id whenever
//! its envelope gives one, so a client never waits for a reply that will not
//! come: serde_json reads values at most [`MAX_NESTING`] levels deep, and a
//! request nested deeper (in its params, say) is still valid JSON whose
//! envelope, read without that limit, names its id.

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
use serde::de::IgnoredAny;
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
                Parsed::Invalid { id, reason } => {
                    let error = ErrorData::invalid_request(reason, None);
                    let reply = TxJsonRpcMessage::<RoleServer>::error(error, id);
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
    /// JSON that is not a message: answered with `Invalid request`, carrying
    /// the request's id when it has one.
    Invalid {
        id: Option<NumberOrString>,
        reason: &'static str,
    },
}

/// The deepest nesting serde_json reads (its recursion limit): a value of
/// 128 levels or more fails to parse, however valid.
const MAX_NESTING: usize = 127;

/// What an invalid request is told when it nests deeper than [`MAX_NESTING`].
const TOO_DEEP: &str = "request nested more than 127 levels deep";

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
        // JSON-RPC answers no notification, not even one it cannot read.
        Err(err) if matches!(envelope, Ok(Incoming::Notification { .. })) => {
            tracing::debug!("ignoring a notification it can't read: {err}");
            Parsed::Ignored
        }
        // Asked of the text itself, not of `err`: nesting past serde_json's
        // limit is a syntax error to it, yet the line is JSON and may be a
        // request waiting for its answer.
        Err(err) if !is_json(line) => {
            tracing::debug!("ignoring a line that is not JSON: {err}");
            Parsed::Ignored
        }
        Err(err) => {
            tracing::debug!("not a JSON-RPC message: {err}");
            let reason = if nests_deeper_than(line, MAX_NESTING) {
                TOO_DEEP
            } else {
                "Invalid request"
            };
            Parsed::Invalid {
                id: request_id(&envelope, line),
                reason,
            }
        }
    }
}

/// Whether `line` is one JSON value, however deeply nested: serde_json skips
/// an ignored value with a loop of its own, not by recursion.
fn is_json(line: &[u8]) -> bool {
    serde_json::from_slice::<IgnoredAny>(line).is_ok()
}

/// Only the `id` member of a line whose envelope does not parse (a `method`
/// that is no string, `"jsonrpc"` missing); every other member is skipped
/// without a depth limit.
#[derive(Deserialize)]
struct IdOnly {
    id: Option<RequestId>,
}

/// The id of the request `line` is, if it names one: from its envelope, or,
/// when the envelope does not parse, from its `id` member alone. A response's
/// id is the server's own and is not echoed; an id that is no number or
/// string (a nested array, say) is none.
fn request_id(envelope: &Result<Incoming<'_>, String>, line: &[u8]) -> Option<NumberOrString> {
    let id = match envelope {
        Ok(Incoming::Request { id, .. }) => id.clone(),
        Ok(_) => return None,
        Err(_) => serde_json::from_slice::<IdOnly>(line).ok()?.id?,
    };
    Some(rmcp_id(&id))
}

fn rmcp_id(id: &RequestId) -> NumberOrString {
    match id {
        RequestId::Number(number) => NumberOrString::Number(*number),
        RequestId::String(text) => NumberOrString::String(text.as_str().into()),
    }
}

/// Whether the brackets and braces of `line` (outside strings) nest deeper
/// than `limit`. One pass, no recursion: `line` is already known to be JSON.
fn nests_deeper_than(line: &[u8], limit: usize) -> bool {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &byte in line {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
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
    Some(JsonRpcMessage::Request(JsonRpcRequest::new(
        rmcp_id(id),
        request,
    )))
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
        assert!(matches!(
            parsed(r#"{"hello":"world"}"#),
            Parsed::Invalid { id: None, .. }
        ));
        assert!(matches!(
            parsed(r#"{"method":"textDocument/didOpen","params":{}}"#),
            Parsed::Invalid { id: None, .. }
        ));
        assert!(matches!(
            parsed(r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"x"}}"#),
            Parsed::Invalid {
                id: Some(NumberOrString::Number(1)),
                ..
            }
        ));
    }

    /// `levels` nested arrays (or objects) around `1`.
    fn nested(levels: usize, object: bool) -> String {
        let (open, close) = if object { ("{\"a\":", "}") } else { ("[", "]") };
        format!("{}1{}", open.repeat(levels), close.repeat(levels))
    }

    /// What `line` is answered with: the error's id and message.
    fn invalid(line: &str) -> (Option<NumberOrString>, &'static str) {
        match parsed(line) {
            Parsed::Invalid { id, reason } => (id, reason),
            Parsed::Message(message) => panic!("read as a message: {message:?}"),
            Parsed::Ignored => panic!("ignored: {line:.80}"),
        }
    }

    /// Issue 21, L7: a request nested past serde_json's limit is answered
    /// with its id, wherever the nesting is and however deep.
    #[test]
    fn a_request_nested_too_deeply_is_answered_with_its_id() {
        for levels in [MAX_NESTING + 1, 1000, 100_000] {
            for object in [false, true] {
                let deep = nested(levels, object);
                let in_arguments = format!(
                    r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":{deep}}}}}}}"#
                );
                assert_eq!(
                    invalid(&in_arguments),
                    (Some(NumberOrString::Number(7)), TOO_DEEP),
                    "{levels} levels in the arguments"
                );
                let in_params = format!(
                    r#"{{"id":"s","method":"tools/list","jsonrpc":"2.0","params":{deep}}}"#
                );
                assert_eq!(
                    invalid(&in_params),
                    (Some(NumberOrString::String("s".into())), TOO_DEEP),
                    "{levels} levels in the params, the id first"
                );
                let in_method = format!(r#"{{"jsonrpc":"2.0","method":{deep},"id":8}}"#);
                assert_eq!(
                    invalid(&in_method),
                    (Some(NumberOrString::Number(8)), TOO_DEEP),
                    "{levels} levels as the method"
                );
                let as_id = format!(r#"{{"jsonrpc":"2.0","id":{deep},"method":"tools/list"}}"#);
                assert_eq!(
                    invalid(&as_id),
                    (None, TOO_DEEP),
                    "an id that is no number or string is none"
                );
                assert_eq!(invalid(&deep), (None, TOO_DEEP), "a bare value");
            }
        }
    }

    #[test]
    fn nesting_within_the_limit_is_read_and_deep_notifications_are_not_answered() {
        let deep = nested(MAX_NESTING - 6, false);
        let within = format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":{deep}}}}}}}"#
        );
        assert!(matches!(parsed(&within), Parsed::Message(_)));
        let notification = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}}"#,
            nested(100_000, true)
        );
        assert!(matches!(parsed(&notification), Parsed::Ignored));
        let brackets_in_a_string = format!(r#"{{"id":3,"text":"{}"}}"#, "[".repeat(500));
        assert_eq!(
            invalid(&brackets_in_a_string),
            (Some(NumberOrString::Number(3)), "Invalid request"),
            "brackets inside a string do not nest"
        );
        let cut_short = format!(r#"{{"jsonrpc":"2.0","id":7,"params":{}"#, "[".repeat(500));
        assert!(matches!(parsed(&cut_short), Parsed::Ignored), "not JSON");
    }
}
