//! HTTP agents: one request per call, the reply (or a part of it) as the result.
//!
//! A value goes into the URL percent-encoded and may not turn its path
//! segment into `.` or `..`; into a string body it goes escaped for the
//! body's type. Redirects are followed here rather than by the client, so
//! that `http.redirect` decides which hops are taken and the template's
//! headers never travel to another host. The reply is read as a stream up to
//! a cap.

use std::sync::Once;
use std::time::Duration;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue, LOCATION};
use reqwest::{Method, StatusCode, Url};
use riverse_tool::{AfterTimeout, CallFailure, HttpFailure, Params, Subject, ToolResult};
use serde_json::Value;

use crate::excerpt;
use crate::spec::{BodyTemplate, HttpSpec, Redirect};
use crate::template::{Piece, fill, fill_json, pieces, value_text, verbatim};

/// What stays unencoded in a value put into a URL: RFC 3986's unreserved
/// characters. Everything else, `/`, `?` and `#` included, is encoded, so a
/// value is always one path segment or one query value.
const URL_VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// What a value in an `application/x-www-form-urlencoded` body keeps.
const FORM_VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'*');

/// Marks where a value starts and ends in a filled URL, for the path check.
const VALUE_MARK: char = '\u{1}';

/// How many redirects one call follows.
const MAX_REDIRECTS: usize = 10;

/// How much of an error reply is read for its message.
const ERROR_BODY_BYTES: usize = 16 * 1024;

/// One client for every agent of a registry. It follows no redirect itself.
pub(crate) fn client() -> Result<reqwest::Client, reqwest::Error> {
    // reqwest is built without a crypto provider so that the one linked is
    // ring; it must be installed before any client is built.
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // Err means another part of the process installed one first: fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
    reqwest::Client::builder()
        .user_agent(concat!("riverse/", env!("CARGO_PKG_VERSION")))
        .redirect(reqwest::redirect::Policy::none())
        .build()
}

/// Sends the request under the agent's own timeout or the call's deadline,
/// whichever is shorter, redirects and reading the reply included.
pub(crate) async fn call(
    client: &reqwest::Client,
    spec: &HttpSpec,
    params: &Params,
    deadline: Duration,
    max_reply_bytes: usize,
) -> ToolResult {
    let timeout = spec.timeout.min(deadline);
    let request = match Prepared::new(spec, params) {
        Ok(request) => request,
        Err(failure) => return ToolResult::from(failure),
    };
    let what = format!("{} {}", spec.method, request.url);
    let exchange = Exchange {
        client,
        spec,
        what: &what,
        max_reply_bytes,
    };
    match tokio::time::timeout(timeout, exchange.run(request)).await {
        Ok(result) => result,
        Err(_elapsed) => ToolResult::from(CallFailure::TimedOut {
            subject: Subject::Request(what),
            after: timeout,
            then: AfterTimeout::Dropped,
        }),
    }
}

/// The request the template describes, before it is sent.
#[derive(Debug, Clone)]
struct Prepared {
    method: Method,
    url: Url,
    /// The template's headers (and the body's content type).
    headers: HeaderMap,
    body: Option<Vec<u8>>,
}

impl Prepared {
    /// `Err` says why the request can't be made: a value that doesn't fit
    /// its place (bad parameters), or a template that can't be sent as it
    /// is (the agent is unavailable).
    fn new(spec: &HttpSpec, params: &Params) -> Result<Prepared, CallFailure> {
        let bad_value = |why| CallFailure::BadArguments { tool: None, why };
        let url = url(spec, params).map_err(bad_value)?;
        let method = Method::from_bytes(spec.method.as_bytes()).map_err(|err| {
            let why = format!("http.method {:?}: {err}", spec.method);
            CallFailure::Misdeclared { why }
        })?;
        let mut headers = headers(spec).map_err(|why| CallFailure::Misdeclared { why })?;
        let body = match &spec.body {
            None => None,
            Some(BodyTemplate::Json(template)) => {
                if !headers.contains_key(CONTENT_TYPE) {
                    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
                }
                Some(
                    serde_json::to_vec(&fill_json(template, params))
                        .map_err(|err| bad_value(format!("body_template: {err}")))?,
                )
            }
            Some(BodyTemplate::Text(template)) => {
                let content_type = headers
                    .get(CONTENT_TYPE)
                    .and_then(|value| value.to_str().ok())
                    .map(str::to_ascii_lowercase);
                let body = fill_text_body(template, params, content_type.as_deref());
                Some(body.map_err(bad_value)?.into_bytes())
            }
        };
        Ok(Prepared {
            method,
            url,
            headers,
            body,
        })
    }
}

/// The URL with its values; a value may not make its path segment a dot
/// segment (`.`, `..`), which the URL parser would resolve away.
fn url(spec: &HttpSpec, params: &Params) -> Result<Url, String> {
    let marked = fill(&spec.url, params, |text| {
        Ok(format!(
            "{VALUE_MARK}{}{VALUE_MARK}",
            utf8_percent_encode(text, URL_VALUE)
        ))
    })?;
    check_path_segments(&marked)?;
    let filled = marked.replace(VALUE_MARK, "");
    let mut url = Url::parse(&filled).map_err(|err| format!("invalid url {filled:?}: {err}"))?;
    if !spec.query.is_empty() {
        let mut pairs = url.query_pairs_mut();
        for (key, template) in &spec.query {
            pairs.append_pair(key, &fill(template, params, verbatim)?);
        }
    }
    Ok(url)
}

/// Refuses a path segment that a value turned into a dot segment or left
/// empty. The URL parser reads `.`, `..` and their `%2e` spellings alike.
fn check_path_segments(marked: &str) -> Result<(), String> {
    let after_scheme = marked.find("://").map_or(0, |at| at + 3);
    let rest = &marked[after_scheme..];
    let path_and_more = rest.find('/').map_or("", |at| &rest[at..]);
    let path = path_and_more
        .split(['?', '#'])
        .next()
        .unwrap_or(path_and_more);
    for segment in path
        .split('/')
        .filter(|segment| segment.contains(VALUE_MARK))
    {
        let plain = segment.replace(VALUE_MARK, "");
        let dots = plain.to_ascii_lowercase().replace("%2e", ".");
        if dots == "." || dots == ".." {
            return Err(format!(
                "a value makes the url path segment {plain:?}, which would move the request to another path"
            ));
        }
        if plain.is_empty() {
            return Err("an empty value makes an empty url path segment".into());
        }
    }
    Ok(())
}

fn headers(spec: &HttpSpec) -> Result<HeaderMap, String> {
    let mut headers = HeaderMap::new();
    for (name, template) in &spec.headers {
        let value = expand_env(template, &|var| match var.strip_prefix("secret:") {
            Some(secret) => riverse_secrets::value_of(secret),
            None => std::env::var(var).ok(),
        })
        .map_err(|var| match var.strip_prefix("secret:") {
            Some(secret) => format!("header {name}: no secret \"{secret}\" under `secrets`"),
            None => format!("header {name}: environment variable {var} is not set"),
        })?;
        let header_name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|err| format!("header {name:?}: {err}"))?;
        let header_value =
            HeaderValue::from_str(&value).map_err(|err| format!("header {name}: {err}"))?;
        headers.insert(header_name, header_value);
    }
    Ok(headers)
}

/// A string body with its values escaped for the body's type: JSON (the
/// content type says so, or none is given and the template is JSON), a form,
/// or XML. Any other body is filled as it is.
fn fill_text_body(
    template: &str,
    params: &Params,
    content_type: Option<&str>,
) -> Result<String, String> {
    let is = |kind: &str| content_type.is_some_and(|content_type| content_type.contains(kind));
    if is("json") || (content_type.is_none() && looks_like_json(template)) {
        return Ok(fill_json_text(template, params));
    }
    if is("x-www-form-urlencoded") {
        return fill(template, params, |text| {
            Ok(utf8_percent_encode(text, FORM_VALUE).to_string())
        });
    }
    if is("xml") {
        return fill(template, params, |text| Ok(xml_escaped(text)));
    }
    fill(template, params, verbatim)
}

/// Whether a template is JSON once its placeholders are values: with each
/// one `null` it parses (`{"n": {a}}`), or it opens an object or a list.
fn looks_like_json(template: &str) -> bool {
    if template.trim_start().starts_with(['{', '[']) {
        return true;
    }
    let with_nulls: String = pieces(template)
        .into_iter()
        .map(|piece| match piece {
            Piece::Literal(text) => text,
            Piece::Placeholder(_) => "null",
        })
        .collect();
    serde_json::from_str::<Value>(&with_nulls).is_ok()
}

/// Fills a JSON text: inside a string a value is escaped as string content;
/// elsewhere a number, `true`, `false` or `null` stays itself and anything
/// else becomes a string. No value can add or close a structure.
fn fill_json_text(template: &str, params: &Params) -> String {
    let mut filled = String::with_capacity(template.len());
    let mut in_string = false;
    let mut escaped = false;
    for piece in pieces(template) {
        match piece {
            Piece::Literal(text) => {
                for c in text.chars() {
                    match (in_string, escaped, c) {
                        (true, true, _) => escaped = false,
                        (true, false, '\\') => escaped = true,
                        (_, false, '"') => in_string = !in_string,
                        _ => {}
                    }
                }
                filled.push_str(text);
            }
            Piece::Placeholder(name) => {
                let Some(value) = params.get(name) else {
                    continue;
                };
                let text = value_text(value);
                let quoted = Value::String(text.clone().into_owned()).to_string();
                if in_string {
                    filled.push_str(&quoted[1..quoted.len() - 1]);
                    escaped = false;
                } else if is_json_scalar(&text) {
                    filled.push_str(text.trim());
                } else {
                    filled.push_str(&quoted);
                }
            }
        }
    }
    filled
}

fn is_json_scalar(text: &str) -> bool {
    matches!(
        serde_json::from_str::<Value>(text),
        Ok(Value::Number(_) | Value::Bool(_) | Value::Null)
    )
}

fn xml_escaped(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&apos;"),
            other => escaped.push(other),
        }
    }
    escaped
}

/// One call's requests and their replies.
struct Exchange<'a> {
    client: &'a reqwest::Client,
    spec: &'a HttpSpec,
    /// `GET URL` of the first request, for messages.
    what: &'a str,
    max_reply_bytes: usize,
}

impl Exchange<'_> {
    async fn run(&self, first: Prepared) -> ToolResult {
        match self.follow(first).await {
            Ok(reply) => self.read(reply).await,
            Err(failure) => self.failed(failure),
        }
    }

    /// Sends `first` and follows its redirects as the agent allows, to the
    /// reply that is the answer.
    async fn follow(&self, first: Prepared) -> Result<reqwest::Response, HttpFailure> {
        let mut request = first.clone();
        let mut hops = 0;
        loop {
            let reply = self.send(&first, &request).await?;
            let Some(next) = self.redirect_target(&reply)? else {
                return Ok(reply);
            };
            hops += 1;
            if hops > MAX_REDIRECTS {
                return Err(HttpFailure::TooManyRedirects { max: MAX_REDIRECTS });
            }
            self.may_follow(&first.url, &next)?;
            request = redirected(request, reply.status(), next);
        }
    }

    fn failed(&self, failure: HttpFailure) -> ToolResult {
        ToolResult::from(CallFailure::Http {
            request: self.what.to_owned(),
            failure,
        })
    }

    async fn send(
        &self,
        first: &Prepared,
        request: &Prepared,
    ) -> Result<reqwest::Response, HttpFailure> {
        // The template's headers are for the template's host.
        let headers = if same_origin(&first.url, &request.url) {
            request.headers.clone()
        } else {
            request
                .headers
                .iter()
                .filter(|(name, _)| *name == CONTENT_TYPE && request.body.is_some())
                .map(|(name, value)| (name.clone(), value.clone()))
                .collect()
        };
        let mut builder = self
            .client
            .request(request.method.clone(), request.url.clone())
            .headers(headers);
        if let Some(body) = &request.body {
            builder = builder.body(body.clone());
        }
        builder.send().await.map_err(|err| HttpFailure::NotSent {
            cause: error_chain(&err),
        })
    }

    /// Where a redirect reply points, when redirects are followed at all;
    /// `Err` when its Location can't be read.
    fn redirect_target(&self, reply: &reqwest::Response) -> Result<Option<Url>, HttpFailure> {
        if self.spec.redirect == Redirect::None || !is_followed(reply.status()) {
            return Ok(None);
        }
        let Some(location) = reply.headers().get(LOCATION) else {
            return Ok(None);
        };
        let invalid = |why: String| HttpFailure::BadRedirect {
            status: reply.status().to_string(),
            location: format!("{location:?}"),
            why,
        };
        let location = location.to_str().map_err(|err| invalid(err.to_string()))?;
        reply
            .url()
            .join(location)
            .map(Some)
            .map_err(|err| invalid(err.to_string()))
    }

    fn may_follow(&self, first: &Url, next: &Url) -> Result<(), HttpFailure> {
        if self.spec.redirect == Redirect::SameHost && !same_origin(first, next) {
            return Err(HttpFailure::RedirectElsewhere {
                to: next.to_string(),
                origin: origin(first),
            });
        }
        Ok(())
    }

    async fn read(&self, mut reply: reqwest::Response) -> ToolResult {
        let status = reply.status();
        let limit = if status.is_success() {
            self.max_reply_bytes
        } else {
            ERROR_BODY_BYTES
        };
        let too_long = || {
            self.failed(HttpFailure::ReplyPastLimit {
                limit: self.max_reply_bytes,
            })
        };
        if status.is_success()
            && reply
                .content_length()
                .is_some_and(|length| length > limit as u64)
        {
            return too_long();
        }
        let (body, complete) = match read_capped(&mut reply, limit).await {
            Ok(read) => read,
            Err(err) => {
                let cause = error_chain(&err);
                return self.failed(HttpFailure::ReplyBroken { cause });
            }
        };
        let body = String::from_utf8_lossy(&body);
        if !status.is_success() {
            return self.failed(self.error_status(&reply, &body));
        }
        if !complete {
            return too_long();
        }
        match extract(&body, &self.spec.result_path) {
            Ok(data) => ToolResult::ok(data),
            Err(why) => self.failed(HttpFailure::ResultNotFound { why }),
        }
    }
}

impl Exchange<'_> {
    /// An error status (`GET URL answered 404 Not Found: the start of the
    /// body`), with where a redirect that was not followed pointed.
    fn error_status(&self, reply: &reqwest::Response, body: &str) -> HttpFailure {
        let status = reply.status();
        let redirect = reply
            .headers()
            .get(LOCATION)
            .and_then(|value| value.to_str().ok())
            .filter(|_| is_followed(status) && self.spec.redirect == Redirect::None);
        HttpFailure::ErrorStatus {
            status: status.to_string(),
            redirect: redirect.map(str::to_owned),
            body: excerpt(body),
        }
    }
}

/// The next request after a redirect: 303, and 301 or 302 after a POST,
/// become a GET without a body, as browsers do; 307 and 308 repeat it.
fn redirected(mut request: Prepared, status: StatusCode, next: Url) -> Prepared {
    let becomes_get = status == StatusCode::SEE_OTHER && request.method != Method::HEAD
        || matches!(status, StatusCode::MOVED_PERMANENTLY | StatusCode::FOUND)
            && request.method == Method::POST;
    if becomes_get {
        request.method = Method::GET;
        request.body = None;
        request.headers.remove(CONTENT_TYPE);
    }
    request.url = next;
    request
}

/// The redirects that are followed: 300 and 304 point nowhere to go.
fn is_followed(status: StatusCode) -> bool {
    matches!(status.as_u16(), 301 | 302 | 303 | 307 | 308)
}

fn same_origin(a: &Url, b: &Url) -> bool {
    a.origin() == b.origin()
}

/// `http://host:port`
fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// The body's first `limit` bytes, and whether that was all of it. Reading
/// stops there: a longer reply never costs more memory than the limit.
async fn read_capped(
    reply: &mut reqwest::Response,
    limit: usize,
) -> Result<(Vec<u8>, bool), reqwest::Error> {
    let mut body = Vec::new();
    while let Some(chunk) = reply.chunk().await? {
        let room = limit - body.len();
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            return Ok((body, false));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((body, true))
}

/// Replaces `${NAME}` with the environment variable's value (`${secret:NAME}`
/// with the secret's); `Err` names the first one that is not set.
fn expand_env(template: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut expanded = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find("${") {
        expanded.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            expanded.push_str(&rest[start..]);
            return Ok(expanded);
        };
        let name = &after[..end];
        expanded.push_str(&env(name).ok_or_else(|| name.to_owned())?);
        rest = &after[end + 1..];
    }
    expanded.push_str(rest);
    Ok(expanded)
}

/// The reply, or the value at `path` in it (object keys, list indexes): a
/// string as it is, anything else as JSON.
fn extract(body: &str, path: &[String]) -> Result<String, String> {
    if path.is_empty() {
        return Ok(body.to_owned());
    }
    let reply: Value = serde_json::from_str(body).map_err(|_| {
        format!(
            "result_path {:?} needs a JSON reply, got: {}",
            path.join("."),
            excerpt(body)
        )
    })?;
    let mut found = &reply;
    for key in path {
        let next = match found {
            Value::Object(map) => map.get(key),
            Value::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        };
        found = next.ok_or_else(|| {
            format!(
                "result_path {:?}: no {key:?} in the reply: {}",
                path.join("."),
                excerpt(body)
            )
        })?;
    }
    Ok(match found {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    })
}

/// An error with its causes: reqwest's own message alone is often just
/// "error sending request".
fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn environment_variables_expand_and_a_missing_one_is_named() {
        let env = |name: &str| (name == "TOKEN").then(|| "s3cret".to_owned());
        assert_eq!(
            expand_env("Bearer ${TOKEN}", &env),
            Ok("Bearer s3cret".into())
        );
        assert_eq!(expand_env("${NOPE}", &env), Err("NOPE".into()));
        assert_eq!(expand_env("no vars ${", &env), Ok("no vars ${".into()));
    }

    #[test]
    fn result_paths_walk_keys_and_indexes() {
        let body = r#"{"a": {"b": [{"c": "deep"}, 2]}}"#;
        let path = |text: &str| text.split('.').map(str::to_owned).collect::<Vec<_>>();
        assert_eq!(extract(body, &path("a.b.0.c")), Ok("deep".into()));
        assert_eq!(
            extract(body, &path("a.b")),
            Ok(r#"[{"c":"deep"},2]"#.into())
        );
        assert!(
            extract(body, &path("a.x"))
                .unwrap_err()
                .contains("no \"x\"")
        );
        assert_eq!(extract("plain", &[]), Ok("plain".into()));
    }
}
