//! The JSON-RPC 2.0 envelope.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

/// A request id. Riverse sends numbers; peers may send strings.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    Number(i64),
    String(String),
}

/// The `error` member of a failed response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    pub code: i64,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// Standard JSON-RPC error codes.
pub mod error_codes {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
}

/// One line on the wire: a request, a notification or a response.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Request {
        id: RequestId,
        method: String,
        params: Option<Value>,
    },
    Notification {
        method: String,
        params: Option<Value>,
    },
    Response {
        id: RequestId,
        outcome: Result<Value, ErrorObject>,
    },
}

/// One line as read, its payloads left unparsed: the reader routes a message
/// by its envelope, and whoever receives the payload reads it into its own type.
#[derive(Debug)]
pub enum Incoming<'a> {
    Request {
        id: RequestId,
        method: Cow<'a, str>,
        params: Option<&'a RawValue>,
    },
    Notification {
        method: Cow<'a, str>,
        params: Option<&'a RawValue>,
    },
    Response {
        id: RequestId,
        /// `None` for a success without `result`.
        outcome: Result<Option<&'a RawValue>, ErrorObject>,
    },
}

/// The superset of members any message may carry; classified in [`Incoming::parse`].
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    jsonrpc: Option<Cow<'a, str>>,
    id: Option<RequestId>,
    #[serde(borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow)]
    params: Option<&'a RawValue>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    error: Option<ErrorObject>,
}

impl<'a> Incoming<'a> {
    /// Parses one line's envelope. The error says what is wrong with it.
    pub fn parse(line: &'a str) -> Result<Self, String> {
        let raw: Envelope<'a> = serde_json::from_str(line).map_err(|err| err.to_string())?;
        if raw.jsonrpc.as_deref() != Some("2.0") {
            return Err("not a JSON-RPC 2.0 message (\"jsonrpc\": \"2.0\" missing)".into());
        }
        match (raw.id, raw.method) {
            (Some(id), Some(method)) => Ok(Incoming::Request {
                id,
                method,
                params: raw.params,
            }),
            (None, Some(method)) => Ok(Incoming::Notification {
                method,
                params: raw.params,
            }),
            (Some(id), None) => Ok(Incoming::Response {
                id,
                outcome: match raw.error {
                    Some(error) => Err(error),
                    None => Ok(raw.result),
                },
            }),
            (None, None) => Err("message has neither \"id\" nor \"method\"".into()),
        }
    }
}

/// A request as written: serialized straight from borrowed parts.
#[derive(Serialize)]
pub struct OutgoingRequest<'a, P: ?Sized> {
    jsonrpc: &'static str,
    id: i64,
    method: &'a str,
    params: &'a P,
}

impl<'a, P: Serialize + ?Sized> OutgoingRequest<'a, P> {
    pub fn new(id: i64, method: &'a str, params: &'a P) -> Self {
        OutgoingRequest {
            jsonrpc: "2.0",
            id,
            method,
            params,
        }
    }

    /// The request as one line, with its trailing newline.
    pub fn to_line(&self) -> Result<Vec<u8>, serde_json::Error> {
        let mut line = serde_json::to_vec(self)?;
        line.push(b'\n');
        Ok(line)
    }
}

impl Message {
    pub fn request(id: i64, method: &str, params: Value) -> Self {
        Message::Request {
            id: RequestId::Number(id),
            method: method.to_owned(),
            params: Some(params),
        }
    }

    pub fn notification(method: &str, params: Value) -> Self {
        Message::Notification {
            method: method.to_owned(),
            params: Some(params),
        }
    }

    pub fn response(id: RequestId, outcome: Result<Value, ErrorObject>) -> Self {
        Message::Response { id, outcome }
    }

    /// Parses one line. The error says what is wrong with it.
    pub fn parse(line: &str) -> Result<Self, String> {
        let value = |raw: Option<&RawValue>| -> Result<Option<Value>, String> {
            raw.map(|raw| serde_json::from_str(raw.get()).map_err(|err| err.to_string()))
                .transpose()
        };
        Ok(match Incoming::parse(line)? {
            Incoming::Request { id, method, params } => Message::Request {
                id,
                method: method.into_owned(),
                params: value(params)?,
            },
            Incoming::Notification { method, params } => Message::Notification {
                method: method.into_owned(),
                params: value(params)?,
            },
            Incoming::Response { id, outcome } => Message::Response {
                id,
                outcome: match outcome {
                    Ok(result) => Ok(value(result)?.unwrap_or(Value::Null)),
                    Err(error) => Err(error),
                },
            },
        })
    }

    /// Serializes to one line, without the trailing newline.
    pub fn to_line(&self) -> String {
        let mut object = serde_json::Map::new();
        object.insert("jsonrpc".into(), "2.0".into());
        match self {
            Message::Request { id, method, params } => {
                object.insert("id".into(), id_value(id));
                object.insert("method".into(), method.clone().into());
                if let Some(params) = params {
                    object.insert("params".into(), params.clone());
                }
            }
            Message::Notification { method, params } => {
                object.insert("method".into(), method.clone().into());
                if let Some(params) = params {
                    object.insert("params".into(), params.clone());
                }
            }
            Message::Response { id, outcome } => {
                object.insert("id".into(), id_value(id));
                match outcome {
                    Ok(result) => object.insert("result".into(), result.clone()),
                    Err(error) => object.insert(
                        "error".into(),
                        serde_json::to_value(error).unwrap_or(Value::Null),
                    ),
                };
            }
        }
        Value::Object(object).to_string()
    }
}

fn id_value(id: &RequestId) -> Value {
    match id {
        RequestId::Number(n) => (*n).into(),
        RequestId::String(s) => s.clone().into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages_round_trip_through_a_line() {
        let messages = [
            Message::request(7, "tools/call", json!({"name": "clock"})),
            Message::notification("notifications/initialized", json!({})),
            Message::response(RequestId::Number(7), Ok(json!({"ok": true}))),
            Message::response(
                RequestId::String("a".into()),
                Err(ErrorObject {
                    code: error_codes::METHOD_NOT_FOUND,
                    message: "no such method".into(),
                    data: None,
                }),
            ),
        ];
        for message in messages {
            assert_eq!(Message::parse(&message.to_line()), Ok(message));
        }
    }

    #[test]
    fn an_outgoing_request_reads_back_as_the_message_it_is() {
        let params = json!({"name": "echo", "arguments": {"text": "日本"}});
        let line = OutgoingRequest::new(3, "riverse/call", &params)
            .to_line()
            .unwrap();
        assert_eq!(line.last(), Some(&b'\n'));
        let text = std::str::from_utf8(&line).unwrap().trim_end();
        assert_eq!(
            Message::parse(text),
            Ok(Message::request(3, "riverse/call", params))
        );
    }

    #[test]
    fn a_response_keeps_its_result_unparsed_and_a_missing_result_is_none() {
        let line = r#"{"jsonrpc":"2.0","id":4,"result":{"data":"a\"b","n":1e400}}"#;
        let Ok(Incoming::Response { id, outcome }) = Incoming::parse(line) else {
            panic!("not a response: {line}");
        };
        assert_eq!(id, RequestId::Number(4));
        assert_eq!(
            outcome.unwrap().map(RawValue::get),
            Some(r#"{"data":"a\"b","n":1e400}"#)
        );
        let Ok(Incoming::Response { outcome, .. }) = Incoming::parse(r#"{"jsonrpc":"2.0","id":5}"#)
        else {
            panic!("not a response");
        };
        assert!(outcome.unwrap().is_none());
    }

    #[test]
    fn an_escaped_method_name_is_read() {
        let line = r#"{"jsonrpc":"2.0","method":"notifications\/riverse\/importing"}"#;
        let Ok(Incoming::Notification { method, params }) = Incoming::parse(line) else {
            panic!("not a notification: {line}");
        };
        assert_eq!(method, "notifications/riverse/importing");
        assert!(params.is_none());
    }

    #[test]
    fn lines_that_are_not_json_rpc_are_rejected_with_a_reason() {
        assert!(
            Message::parse("{\"id\": 1}")
                .unwrap_err()
                .contains("jsonrpc")
        );
        assert!(Message::parse("hello").is_err());
        assert!(
            Message::parse("{\"jsonrpc\": \"2.0\"}")
                .unwrap_err()
                .contains("neither")
        );
    }
}
