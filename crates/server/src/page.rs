//! `GET /`: the chat page, one HTML file with its script and styles inline,
//! shipped inside the binary.

use std::sync::Arc;

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use riverse_agent::Language;

use crate::AppState;

const PAGE: &str = include_str!("page.html");

/// Where the page reads the language of its texts.
const LANGUAGE_MARK: &str = "{{LANGUAGE}}";

pub async fn page(State(state): State<Arc<AppState>>) -> Response {
    let language = match state.options.language {
        Language::En => "en",
        Language::Ja => "ja",
        Language::Zh => "zh",
    };
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
            // Everything the page needs is inline; nothing may load from
            // elsewhere (a tool's images and audio come as data URLs), and no
            // other page may frame it (it acts with the token it keeps).
            // X-Frame-Options says the same to old browsers.
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; media-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
            ),
            (header::REFERRER_POLICY, "no-referrer"),
        ],
        PAGE.replace(LANGUAGE_MARK, language),
    )
        .into_response()
}
