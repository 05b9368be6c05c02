//! A test OTLP receiver on a loopback port: the collector's OTLP/HTTP
//! protocol for traces. `POST /v1/traces` with a protobuf
//! `ExportTraceServiceRequest` is answered 200 with an empty
//! `ExportTraceServiceResponse`, and its spans are kept for the test, their
//! ids in hex and their attributes as JSON values. Anything else is
//! answered with an error and remembered as a problem, which fails the test
//! when it reads the spans.
//!
//! Like the scripted OpenAI server, it runs on its own thread and runtime
//! ([`Loopback`]), so it serves tests that run the `riverse` binary.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use prost::Message;
use serde_json::{Map, Value};

use crate::loopback::Loopback;

/// One span as the receiver got it.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    pub name: String,
    /// 32 hex digits.
    pub trace_id: String,
    /// 16 hex digits.
    pub span_id: String,
    /// Empty for a root span.
    pub parent_span_id: String,
    /// `internal`, `server`, `client`, `producer`, `consumer`.
    pub kind: &'static str,
    pub attributes: Map<String, Value>,
    /// `unset`, `ok` or `error`.
    pub status: &'static str,
    pub status_message: String,
    /// The names of the span's events.
    pub events: Vec<String>,
    /// The attributes of the resource that sent it (`service.name`, ...).
    pub resource: Map<String, Value>,
}

impl Span {
    pub fn attribute(&self, key: &str) -> Option<&Value> {
        self.attributes.get(key)
    }
}

/// One export request, as the receiver got it.
#[derive(Debug, Clone)]
pub struct Export {
    /// Header names in lowercase.
    pub headers: Vec<(String, String)>,
}

impl Export {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.as_str())
    }
}

#[derive(Default)]
struct Received {
    spans: Vec<Span>,
    exports: Vec<Export>,
    /// What no collector would have accepted.
    problems: Vec<String>,
}

/// The running receiver; stops when dropped.
pub struct OtlpReceiver {
    server: Loopback,
    received: Arc<Mutex<Received>>,
}

impl Default for OtlpReceiver {
    fn default() -> Self {
        Self::start()
    }
}

impl OtlpReceiver {
    pub fn start() -> Self {
        let received = Arc::new(Mutex::new(Received::default()));
        let app = Router::new().fallback(handle).with_state(received.clone());
        OtlpReceiver {
            server: Loopback::serve(app),
            received,
        }
    }

    /// `http://127.0.0.1:PORT`: the endpoint as `OTEL_EXPORTER_OTLP_ENDPOINT`
    /// gives it (exporters add `/v1/traces`).
    pub fn url(&self) -> String {
        self.server.url()
    }

    /// Every span received so far, in the order received.
    pub fn spans(&self) -> Vec<Span> {
        let received = self.received.lock().unwrap();
        assert!(
            received.problems.is_empty(),
            "the receiver got requests no collector would accept: {:#?}",
            received.problems
        );
        received.spans.clone()
    }

    /// Waits up to `timeout` for `count` spans or more; those received.
    pub fn wait_for_spans(&self, count: usize, timeout: Duration) -> Vec<Span> {
        crate::within(timeout, || {
            let spans = self.spans();
            (spans.len() >= count).then_some(spans)
        })
        .unwrap_or_else(|| self.spans())
    }

    /// Every export request received so far.
    pub fn exports(&self) -> Vec<Export> {
        self.received.lock().unwrap().exports.clone()
    }
}

async fn handle(
    State(received): State<Arc<Mutex<Received>>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let mut received = received.lock().unwrap();
    if uri.path() != "/v1/traces" {
        received
            .problems
            .push(format!("a request for {}", uri.path()));
        return StatusCode::NOT_FOUND.into_response();
    }
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    if content_type != "application/x-protobuf" {
        received
            .problems
            .push(format!("a body of type {content_type:?}"));
        return StatusCode::UNSUPPORTED_MEDIA_TYPE.into_response();
    }
    let request = match ExportTraceServiceRequest::decode(body) {
        Ok(request) => request,
        Err(err) => {
            received.problems.push(format!(
                "a body that is no ExportTraceServiceRequest: {err}"
            ));
            return StatusCode::BAD_REQUEST.into_response();
        }
    };
    received.exports.push(Export {
        headers: headers
            .iter()
            .map(|(name, value)| {
                (
                    name.as_str().to_owned(),
                    value.to_str().unwrap_or_default().to_owned(),
                )
            })
            .collect(),
    });
    for resource_spans in request.resource_spans {
        let resource = resource_spans
            .resource
            .map(|resource| attributes(&resource.attributes))
            .unwrap_or_default();
        for scope_spans in resource_spans.scope_spans {
            for span in scope_spans.spans {
                let status = span.status.unwrap_or_default();
                received.spans.push(Span {
                    name: span.name,
                    trace_id: hex(&span.trace_id),
                    span_id: hex(&span.span_id),
                    parent_span_id: hex(&span.parent_span_id),
                    kind: match span.kind {
                        1 => "internal",
                        2 => "server",
                        3 => "client",
                        4 => "producer",
                        5 => "consumer",
                        _ => "unspecified",
                    },
                    attributes: attributes(&span.attributes),
                    status: match status.code {
                        1 => "ok",
                        2 => "error",
                        _ => "unset",
                    },
                    status_message: status.message,
                    events: span.events.into_iter().map(|event| event.name).collect(),
                    resource: resource.clone(),
                });
            }
        }
    }
    (
        [(header::CONTENT_TYPE, "application/x-protobuf")],
        ExportTraceServiceResponse::default().encode_to_vec(),
    )
        .into_response()
}

fn attributes(pairs: &[KeyValue]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|pair| (pair.key.clone(), any(pair.value.as_ref())))
        .collect()
}

fn any(value: Option<&AnyValue>) -> Value {
    match value.and_then(|value| value.value.as_ref()) {
        None => Value::Null,
        Some(any_value::Value::StringValue(text)) => Value::String(text.clone()),
        Some(any_value::Value::BoolValue(flag)) => Value::Bool(*flag),
        Some(any_value::Value::IntValue(number)) => Value::from(*number),
        Some(any_value::Value::DoubleValue(number)) => Value::from(*number),
        Some(any_value::Value::ArrayValue(array)) => {
            Value::Array(array.values.iter().map(|value| any(Some(value))).collect())
        }
        Some(any_value::Value::KvlistValue(list)) => Value::Object(attributes(&list.values)),
        Some(any_value::Value::BytesValue(bytes)) => Value::String(hex(bytes)),
        Some(any_value::Value::StringValueStrindex(index)) => Value::from(*index),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}
