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
    /// Whether `headers` carry the token, or none is needed.
    pub fn admits(&self, headers: &HeaderMap) -> bool {
        let Some(token) = self.0.as_deref() else {
            return true;
        };
        headers
            .get(header::AUTHORIZATION)
            .and_then(|value| bearer(value.as_bytes()))
            .is_some_and(|offered| same_secret(offered, token.as_bytes()))
    }
}

/// The credentials of `Bearer <credentials>`: the scheme in any case (RFC
/// 9110 makes it case-insensitive), then one or more spaces; nothing trimmed
/// from the credentials themselves.
fn bearer(value: &[u8]) -> Option<&[u8]> {
    const SCHEME: &[u8] = b"bearer";
    let scheme = value.get(..SCHEME.len())?;
    if !scheme.eq_ignore_ascii_case(SCHEME) {
        return None;
    }
    let rest = &value[SCHEME.len()..];
    let credentials = rest.trim_ascii_start();
    (credentials.len() < rest.len() && !credentials.is_empty()).then_some(credentials)
}

/// Compares in time that depends on the expected token's length only: every
/// byte of it is compared, whatever was offered, so neither the offered
/// token's content nor its length tells how close it came.
fn same_secret(offered: &[u8], expected: &[u8]) -> bool {
    let mut same = offered.len().ct_eq(&expected.len());
    for (index, byte) in expected.iter().enumerate() {
        let theirs = offered.get(index).copied().unwrap_or(!byte);
        same &= theirs.ct_eq(byte);
    }
    bool::from(same)
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn admits(token: &str, authorization: &'static str) -> bool {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static(authorization),
        );
        Token::new(Some(token)).admits(&headers)
    }

    #[test]
    fn the_scheme_is_case_insensitive_and_the_token_exact() {
        let token = "s3cret-token-0123456789";
        for sent in [
            "Bearer s3cret-token-0123456789",
            "bearer s3cret-token-0123456789",
            "BEARER  s3cret-token-0123456789",
        ] {
            assert!(admits(token, sent), "{sent}");
        }
        for sent in [
            "Bearer s3cret-token-012345678",
            "Bearer s3cret-token-01234567890",
            "Bearer S3CRET-TOKEN-0123456789",
            "Bearers3cret-token-0123456789",
            "Basic s3cret-token-0123456789",
            "Bearer",
            "Bearer ",
            "s3cret-token-0123456789",
            "Bearer s3cret-token-0123456789 extra",
        ] {
            assert!(!admits(token, sent), "{sent}");
        }
    }

    #[test]
    fn the_comparison_reads_every_byte_of_the_expected_token() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"", b"abc"));
        assert!(!same_secret(b"abcd", b"abc"));
        assert!(!same_secret(b"ab", b"abc"));
        assert!(!same_secret(b"abd", b"abc"));
    }
}
