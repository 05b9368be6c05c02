//! `Authorization: Bearer <token>` on every `/v1` route when a token is set.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use crate::AppState;
use crate::error::AppError;

pub async fn require_token(
    State(state): State<Arc<AppState>>,
    request: Request,
    next: Next,
) -> Response {
    let Some(token) = state.options.token.as_deref() else {
        return next.run(request).await;
    };
    let offered = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::trim);
    match offered {
        Some(offered) if bool::from(offered.as_bytes().ct_eq(token.as_bytes())) => {
            next.run(request).await
        }
        _ => AppError::unauthorized().into_response(),
    }
}
