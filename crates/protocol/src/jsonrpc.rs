//! The JSON-RPC 2.0 envelope.

use serde::{Deserialize, Serialize};
use serde_json::Value;

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

/// The superset of members any message may carry; classified in [`Message::parse`].
#[derive(Deserialize)]
struct RawMessage {
    jsonrpc: Option<String>,
    id: Option<RequestId>,
    method: Option<String>,
    params: Option<Value>,
    result: Option<Value>,
    error: Option<ErrorObject>,
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
        let raw: RawMessage = serde_json::from_str(line).map_err(|err| err.to_string())?;
        if raw.jsonrpc.as_deref() != Some("2.0") {
            return Err("not a JSON-RPC 2.0 message (\"jsonrpc\": \"2.0\" missing)".into());
        }
        match (raw.id, raw.method) {
            (Some(id), Some(method)) => Ok(Message::Request {
                id,
                method,
                params: raw.params,
            }),
            (None, Some(method)) => Ok(Message::Notification {
                method,
                params: raw.params,
            }),
            (Some(id), None) => {
                let outcome = match (raw.result, raw.error) {
                    (_, Some(error)) => Err(error),
                    (Some(result), None) => Ok(result),
                    (None, None) => Ok(Value::Null),
                };
                Ok(Message::Response { id, outcome })
            }
            (None, None) => Err("message has neither \"id\" nor \"method\"".into()),
        }
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
