//! Who may reach the server at all: the checks every route passes before the
//! token, against web pages the user happens to visit.
//!
//! A browser lets any page send requests to `127.0.0.1`. Three rules keep
//! such a page from driving Riverse or reading what it holds:
//! - **Host.** Without a token the server is on loopback, and it answers only
//!   requests addressed to a loopback name or address. A page that points its
//!   own DNS name at 127.0.0.1 (DNS rebinding) sends that name, and gets 403.
//! - **Origin.** A request from a page carries its origin: it is served when
//!   the page is the server's own (its origin names the `Host` the request
//!   went to) or listed in `serve.cors_origins`; any other gets 403. A request
//!   without `Origin` that a browser marks as coming from another site
//!   (`Sec-Fetch-Site`) gets 403 too.
//! - **JSON writes.** A body must be sent as `application/json`. A page can
//!   send `text/plain` or a form anywhere without asking first; to send JSON
//!   across sites it must ask (a CORS preflight), and only listed origins are
//!   answered.
//!
//! Every reply also tells browsers not to frame it or guess its type.

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::AppError;

/// What a request must pass; built once from the server's options.
#[derive(Debug, Clone)]
pub struct Guard {
    /// Without a token: only loopback `Host` values are served.
    loopback_hosts_only: bool,
    /// `serve.cors_origins`, each `scheme://host[:port]`.
    origins: Arc<[String]>,
}

/// Why a request was turned away before it reached a route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    MissingHost,
    ForeignHost(String),
    ForeignOrigin(String),
    CrossSite(String),
    NotJson(String),
}

impl Refusal {
    /// 400 without a `Host`, 415 for a body that is not JSON, else 403.
    pub fn status(&self) -> StatusCode {
        match self {
            Refusal::MissingHost => StatusCode::BAD_REQUEST,
            Refusal::NotJson(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Refusal::ForeignHost(_) | Refusal::ForeignOrigin(_) | Refusal::CrossSite(_) => {
                StatusCode::FORBIDDEN
            }
        }
    }

    /// The error code clients get beside the status.
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::MissingHost => "missing_host",
            Refusal::NotJson(_) => "unsupported_media_type",
            Refusal::ForeignHost(_) | Refusal::ForeignOrigin(_) | Refusal::CrossSite(_) => {
                "forbidden"
            }
        }
    }

    pub fn message(&self) -> String {
        match self {
            Refusal::MissingHost => "the request names no Host".to_owned(),
            Refusal::ForeignHost(host) => format!(
                "forbidden: this server answers only requests to localhost, not to {host:?} \
                 (set serve.token to serve other names)"
            ),
            Refusal::ForeignOrigin(origin) => format!(
                "forbidden: pages of {origin} may not call this server (serve.cors_origins)"
            ),
            Refusal::CrossSite(site) => format!(
                "forbidden: a {site} request from a page of another origin (serve.cors_origins)"
            ),
            Refusal::NotJson(sent) => {
                format!("send the body as Content-Type: application/json (got {sent})")
            }
        }
    }
}

impl Guard {
    pub fn new(has_token: bool, origins: &[String]) -> Self {
        Guard {
            loopback_hosts_only: !has_token,
            origins: origins.into(),
        }
    }

    /// The checks that hold for every route: `Host`, then `Origin`.
    pub fn check_caller(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let host = headers
            .get(header::HOST)
            .map(|host| host.to_str().unwrap_or_default());
        if self.loopback_hosts_only {
            match host {
                None => return Err(Refusal::MissingHost),
                Some(host) if !is_loopback_host(host) => {
                    return Err(Refusal::ForeignHost(host.to_owned()));
                }
                Some(_) => {}
            }
        }
        match headers.get(header::ORIGIN) {
            Some(origin) => {
                let origin = origin.to_str().unwrap_or("an unreadable origin");
                if origin_is_allowed(origin, host, &self.origins) {
                    Ok(())
                } else {
                    Err(Refusal::ForeignOrigin(origin.to_owned()))
                }
            }
            None => match fetch_site(headers) {
                Some(site @ ("cross-site" | "same-site")) => {
                    Err(Refusal::CrossSite(site.to_owned()))
                }
                _ => Ok(()),
            },
        }
    }
}

/// `/` and every `/v1` route: the caller's checks, then JSON bodies on writes;
/// refusals in OpenAI's error shape.
pub async fn check(State(guard): State<Guard>, request: Request, next: Next) -> Response {
    let checked = match guard.check_caller(request.headers()) {
        Err(Refusal::CrossSite(_)) if is_link_to_the_page(&request) => Ok(()),
        checked => checked,
    }
    .and_then(|()| require_json_body(request.method(), request.headers()));
    let mut response = match checked {
        Ok(()) => next.run(request).await,
        Err(refusal) => {
            AppError::refused(refusal.status(), refusal.code(), refusal.message()).into_response()
        }
    };
    mark_unframeable(response.headers_mut());
    response
}

/// A link on another site that opens the chat page (a top-level navigation,
/// not a frame): the page runs in its own origin, so the link can't act
/// through it.
fn is_link_to_the_page(request: &Request) -> bool {
    let header = |name: &str| {
        request
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
    };
    request.method() == Method::GET
        && request.uri().path() == "/"
        && header("sec-fetch-mode") == Some("navigate")
        && header("sec-fetch-dest") == Some("document")
}

/// A write that carries a body must say it is JSON. An empty one needs no
/// type: a page can't do anything with it that its `Origin` doesn't show.
fn require_json_body(method: &Method, headers: &HeaderMap) -> Result<(), Refusal> {
    if !matches!(*method, Method::POST | Method::PUT | Method::PATCH) {
        return Ok(());
    }
    match headers.get(header::CONTENT_TYPE) {
        Some(value) => match value.to_str() {
            Ok(text) if is_json_type(text) => Ok(()),
            Ok(text) => Err(Refusal::NotJson(format!("{text:?}"))),
            Err(_) => Err(Refusal::NotJson("an unreadable type".to_owned())),
        },
        None if has_body(headers) => Err(Refusal::NotJson("no Content-Type".to_owned())),
        None => Ok(()),
    }
}

/// `application/json` or `application/<something>+json`, any parameters.
fn is_json_type(content_type: &str) -> bool {
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    essence == "application/json"
        || essence
            .strip_prefix("application/")
            .is_some_and(|subtype| subtype.ends_with("+json") && !subtype.contains('/'))
}

fn has_body(headers: &HeaderMap) -> bool {
    if headers.contains_key(header::TRANSFER_ENCODING) {
        return true;
    }
    headers
        .get(header::CONTENT_LENGTH)
        .is_some_and(|length| length.as_bytes() != b"0")
}

fn fetch_site(headers: &HeaderMap) -> Option<&str> {
    headers
        .get("sec-fetch-site")
        .and_then(|site| site.to_str().ok())
}

/// No other page may show this one in a frame (clickjacking), and no reply
/// is read as another type than it says.
pub fn mark_unframeable(headers: &mut HeaderMap) {
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
}

/// `localhost`, or a loopback address (`127.0.0.1`, `[::1]`), with or without
/// a port. A DNS name that resolves to 127.0.0.1 is not one: that is what a
/// rebinding page sends.
pub fn is_loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(bracketed) => match bracketed.split_once(']') {
            Some((address, rest)) if rest.is_empty() || is_port(rest) => address,
            _ => return false,
        },
        None => match host.rsplit_once(':') {
            Some((name, port)) if is_port(&format!(":{port}")) => name,
            Some(_) => return false,
            None => host,
        },
    };
    name.eq_ignore_ascii_case("localhost")
        || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// `:` and 1 to 5 digits.
fn is_port(text: &str) -> bool {
    text.strip_prefix(':').is_some_and(|digits| {
        (1..=5).contains(&digits.len()) && digits.bytes().all(|byte| byte.is_ascii_digit())
    })
}

/// A page's origin may call when it is listed, or when it is the server's
/// own: `http(s)://` followed by exactly the `Host` the request went to.
pub fn origin_is_allowed(origin: &str, host: Option<&str>, listed: &[String]) -> bool {
    if listed
        .iter()
        .any(|allowed| allowed.eq_ignore_ascii_case(origin))
    {
        return true;
    }
    let Some(host) = host else {
        return false;
    };
    ["http://", "https://"].iter().any(|scheme| {
        origin
            .get(..scheme.len())
            .is_some_and(|start| start.eq_ignore_ascii_case(scheme))
            && origin[scheme.len()..].eq_ignore_ascii_case(host)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.insert(*name, HeaderValue::from_static(value));
        }
        headers
    }

    #[test]
    fn only_loopback_names_and_addresses_are_loopback_hosts() {
        for host in [
            "localhost",
            "LOCALHOST:8420",
            "127.0.0.1",
            "127.0.0.1:8420",
            "127.4.5.6:1",
            "[::1]",
            "[::1]:8420",
        ] {
            assert!(is_loopback_host(host), "{host}");
        }
        for host in [
            "rebind.evil.example:8420",
            "localhost.",
            "localhost.:8420",
            "127.0.0.1.nip.io",
            "127.1",
            "0x7f000001",
            "2130706433",
            "localhost@evil.example",
            "evil.example#127.0.0.1",
            "[::1]x",
            "[::ffff:1.2.3.4]",
            "127.0.0.1:",
            "127.0.0.1:123456",
            "10.0.0.1:8420",
            "",
        ] {
            assert!(!is_loopback_host(host), "{host}");
        }
    }

    #[test]
    fn a_page_of_the_server_itself_or_of_a_listed_origin_is_allowed() {
        let listed = ["https://app.example.com".to_owned()];
        let local = Some("127.0.0.1:8420");
        assert!(origin_is_allowed("http://127.0.0.1:8420", local, &listed));
        assert!(origin_is_allowed("https://APP.example.com", local, &listed));
        assert!(!origin_is_allowed("http://127.0.0.1:9999", local, &listed));
        assert!(!origin_is_allowed("http://evil.example", local, &listed));
        assert!(!origin_is_allowed("null", local, &listed));
        assert!(!origin_is_allowed("http://127.0.0.1:8420", None, &[]));
    }

    #[test]
    fn without_a_token_a_rebound_name_is_refused_even_from_its_own_page() {
        let guard = Guard::new(/*has_token*/ false, &[]);
        let rebound = headers(&[
            ("host", "rebind.evil.example:8420"),
            ("origin", "http://rebind.evil.example:8420"),
        ]);
        assert_eq!(
            guard.check_caller(&rebound),
            Err(Refusal::ForeignHost("rebind.evil.example:8420".into()))
        );
        let with_token = Guard::new(/*has_token*/ true, &[]);
        assert_eq!(with_token.check_caller(&rebound), Ok(()));
    }

    #[test]
    fn a_browser_request_from_another_site_is_refused_with_or_without_origin() {
        let guard = Guard::new(/*has_token*/ false, &["http://127.0.0.1:3000".into()]);
        let cases = [
            (
                vec![
                    ("host", "127.0.0.1:8420"),
                    ("origin", "https://evil.example"),
                ],
                false,
            ),
            (vec![("host", "127.0.0.1:8420"), ("origin", "null")], false),
            (
                vec![("host", "127.0.0.1:8420"), ("sec-fetch-site", "cross-site")],
                false,
            ),
            (
                vec![("host", "localhost:8420"), ("sec-fetch-site", "same-site")],
                false,
            ),
            (
                vec![
                    ("host", "127.0.0.1:8420"),
                    ("origin", "http://127.0.0.1:3000"),
                ],
                true,
            ),
            (
                vec![
                    ("host", "127.0.0.1:8420"),
                    ("origin", "http://127.0.0.1:8420"),
                ],
                true,
            ),
            (
                vec![
                    ("host", "127.0.0.1:8420"),
                    ("sec-fetch-site", "same-origin"),
                ],
                true,
            ),
            (
                vec![("host", "127.0.0.1:8420"), ("sec-fetch-site", "none")],
                true,
            ),
            (vec![("host", "127.0.0.1:8420")], true),
        ];
        for (pairs, served) in cases {
            assert_eq!(
                guard.check_caller(&headers(&pairs)).is_ok(),
                served,
                "{pairs:?}"
            );
        }
    }

    #[test]
    fn writes_with_a_body_must_be_json() {
        let post = Method::POST;
        let json = |pairs: &[(&'static str, &'static str)]| {
            require_json_body(&post, &headers(pairs)).is_ok()
        };
        assert!(json(&[("content-type", "application/json")]));
        assert!(json(&[("content-type", "Application/JSON; charset=utf-8")]));
        assert!(json(&[("content-type", "application/merge-patch+json")]));
        assert!(json(&[("content-length", "0")]));
        assert!(json(&[]));
        assert!(!json(&[("content-type", "text/plain;charset=UTF-8")]));
        assert!(!json(&[(
            "content-type",
            "application/x-www-form-urlencoded"
        )]));
        assert!(!json(&[(
            "content-type",
            "multipart/form-data; boundary=x"
        )]));
        assert!(!json(&[("content-type", "text/json")]));
        assert!(!json(&[("content-type", "application/jsonx")]));
        assert!(!json(&[("content-length", "12")]));
        assert!(!json(&[("transfer-encoding", "chunked")]));
        assert!(
            require_json_body(&Method::GET, &headers(&[("content-type", "text/plain")])).is_ok()
        );
        assert!(
            require_json_body(&Method::PATCH, &headers(&[("content-type", "text/plain")])).is_err()
        );
    }
}
