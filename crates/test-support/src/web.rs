//! A small web service on a loopback port for YAML agent tests.
//!
//! Routes:
//! - `/weather/{city}`: a JSON reply shaped like wttr.in's `format=j1`, naming
//!   the city as the server decoded it;
//! - `/echo/...`: the request as received (method, raw path and query,
//!   headers, body) as JSON;
//! - `/status/{code}`: that status with a short text body;
//! - `/text`: a plain-text reply;
//! - `/slow`: answers after ten seconds.

use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::Path;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::IntoResponse;
use axum::routing::{any, get};
use serde_json::{Map, Value, json};

use crate::loopback::Loopback;

pub struct WebServer {
    server: Loopback,
}

impl WebServer {
    pub fn start() -> Self {
        let app = Router::new()
            .route("/weather/{city}", get(weather))
            .route("/echo", any(echo))
            .route("/echo/{*rest}", any(echo))
            .route("/status/{code}", any(status))
            .route("/text", get(|| async { "plain text, not JSON" }))
            .route(
                "/slow",
                get(|| async {
                    tokio::time::sleep(Duration::from_secs(10)).await;
                    "too late"
                }),
            );
        WebServer {
            server: Loopback::serve(app),
        }
    }

    /// `http://127.0.0.1:PORT`
    pub fn url(&self) -> String {
        self.server.url()
    }
}

async fn weather(Path(city): Path<String>) -> impl IntoResponse {
    axum::Json(json!({
        "current_condition": [{"temp_C": "21", "weatherDesc": [{"value": "Sunny"}]}],
        "nearest_area": [{"areaName": [{"value": city}]}]
    }))
}

async fn echo(method: Method, uri: Uri, headers: HeaderMap, body: Bytes) -> impl IntoResponse {
    let headers: Map<String, Value> = headers
        .iter()
        .map(|(name, value)| {
            (
                name.as_str().to_owned(),
                json!(String::from_utf8_lossy(value.as_bytes())),
            )
        })
        .collect();
    axum::Json(json!({
        "method": method.as_str(),
        "path": uri.path(),
        "query": uri.query(),
        "headers": headers,
        "body": String::from_utf8_lossy(&body),
    }))
}

async fn status(Path(code): Path<u16>) -> impl IntoResponse {
    let status = StatusCode::from_u16(code).unwrap_or(StatusCode::IM_A_TEAPOT);
    (status, format!("status {code} from the test server"))
}
