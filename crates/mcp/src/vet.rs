//! What a stdio server writes to stdout, vetted line by line before rmcp reads
//! it. rmcp drops a line it cannot parse, so a server writing something else
//! would leave its caller waiting for a deadline; here such a line ends the
//! connection, or fails the one call it answers, with what it was.

use std::sync::Arc;

use parking_lot::Mutex;
use riverse_process::{Verdict, Vet};
use riverse_tool::shorten;
use rmcp::model::ServerJsonRpcMessage;
use serde_json::{Value, json};

/// How much of a line that is not MCP a message quotes.
const QUOTED_CHARS: usize = 80;

/// What a server wrote that is not MCP, once it has: the line that ended its
/// connection, quoted. Shared by the vet and whoever explains the end.
#[derive(Debug, Clone, Default)]
pub(crate) struct NotMcp(Arc<Mutex<Option<String>>>);

impl NotMcp {
    /// `the server wrote something that is not MCP: "..."`, once it has.
    pub(crate) fn cause(&self) -> Option<String> {
        let quoted = self.0.lock().clone()?;
        Some(format!(
            "the server wrote something that is not MCP: {quoted}"
        ))
    }

    /// The vet for the server's stdout. A line is passed when rmcp can read
    /// it, and when it is a request or notification (rmcp answers or ignores
    /// one it does not know). A reply rmcp cannot read becomes an error reply
    /// to its request, so that call fails at once. Anything else (not JSON, or
    /// JSON that is not JSON-RPC) ends the stream, and so the connection.
    pub(crate) fn vet(&self) -> Vet {
        let noted = self.0.clone();
        Box::new(move |line| {
            let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
            if line.trim_ascii().is_empty()
                || serde_json::from_slice::<ServerJsonRpcMessage>(line).is_ok()
            {
                return Verdict::Pass;
            }
            let quoted = quote(line);
            let Ok(Value::Object(message)) = serde_json::from_slice::<Value>(line) else {
                return end(&noted, quoted);
            };
            if message.contains_key("method") {
                return Verdict::Pass;
            }
            match message.get("id") {
                Some(id @ (Value::Number(_) | Value::String(_))) => {
                    let reply = json!({
                        "jsonrpc": "2.0",
                        "id": id,
                        "error": {
                            "code": -32603,
                            "message": format!("the server's reply is not MCP: {quoted}"),
                        },
                    });
                    Verdict::Replace(reply.to_string().into_bytes())
                }
                _ => end(&noted, quoted),
            }
        })
    }
}

fn end(noted: &Mutex<Option<String>>, quoted: String) -> Verdict {
    tracing::warn!(target: "mcp", "the server wrote something that is not MCP: {quoted}");
    noted.lock().get_or_insert(quoted);
    Verdict::End
}

/// The start of a line as a quoted, escaped string.
fn quote(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    format!("{:?}", shorten(text.trim_end(), QUOTED_CHARS))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn verdict(line: &str) -> (Verdict, Option<String>) {
        let not_mcp = NotMcp::default();
        let verdict = not_mcp.vet()(line.as_bytes());
        (verdict, not_mcp.cause())
    }

    #[test]
    fn mcp_and_unknown_requests_pass() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/whatever"}"#,
            r#"{"jsonrpc":"2.0","id":"x","method":"not/mcp","params":{}}"#,
            "",
            "  ",
        ] {
            assert_eq!(verdict(line), (Verdict::Pass, None), "{line}");
        }
    }

    #[test]
    fn a_reply_rmcp_cannot_read_becomes_an_error_reply_to_its_request() {
        let (verdict, cause) = verdict(r#"{"id":7,"result":{}}"#);
        let expected = r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"the server's reply is not MCP: \"{\\\"id\\\":7,\\\"result\\\":{}}\""}}"#;
        assert_eq!(verdict, Verdict::Replace(expected.as_bytes().to_vec()));
        assert_eq!(cause, None);
    }

    #[test]
    fn text_or_json_that_is_not_json_rpc_ends_the_connection() {
        let (verdict, cause) = verdict("Server listening on port 8080\u{1b}[0m");
        assert_eq!(verdict, Verdict::End);
        assert_eq!(
            cause.unwrap(),
            r#"the server wrote something that is not MCP: "Server listening on port 8080\u{1b}[0m""#
        );
        assert_eq!(verdict_of("[1, 2]"), Verdict::End);
        assert_eq!(verdict_of(r#"{"hello":"world"}"#), Verdict::End);
    }

    fn verdict_of(line: &str) -> Verdict {
        verdict(line).0
    }
}
