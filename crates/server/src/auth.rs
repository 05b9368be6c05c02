//! `Authorization: Bearer <token>` on every `/v1` route and on `/mcp` when a
//! token is set.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use crate::error::AppError;

/// The token requests must carry, if any. Never logged: its `Debug` says
/// only whether one is set.
#[derive(Clone)]
pub struct Token(Option<Arc<str>>);

impl Token {
    pub fn new(token: Option<&str>) -> Self {
        Token(token.map(Arc::from))
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "<set>" } else { "<none>" })
    }
}

pub async fn require_token(State(token): State<Token>, request: Request, next: Next) -> Response {
    if token.admits(request.headers()) {
        next.run(request).await
    } else {
        AppError::unauthorized().into_response()
    }
}

impl Token {
    /// Whether `headers` carry the token, or none is needed. Compared in
    /// constant time.
    pub fn admits(&self, headers: &HeaderMap) -> bool {
        let Some(token) = self.0.as_deref() else {
            return true;
        };
        let offered = headers
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "))
            .map(str::trim);
        offered.is_some_and(|offered| bool::from(offered.as_bytes().ct_eq(token.as_bytes())))
    }
}
