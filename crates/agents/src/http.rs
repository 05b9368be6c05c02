//! HTTP agents: one request per call, the reply (or a part of it) as the result.

use std::sync::Once;
use std::time::Duration;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use riverse_tool::{Params, ToolResult, seconds};
use serde_json::Value;

use crate::excerpt;
use crate::spec::{BodyTemplate, HttpSpec};
use crate::template::{fill, fill_json, verbatim};

/// What stays unencoded in a value put into a URL: RFC 3986's unreserved
/// characters. Everything else, `/`, `?` and `#` included, is encoded, so a
/// value is always one path segment or one query value.
const URL_VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// One client for every agent of a registry.
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
        .build()
}

/// Sends the request under the agent's own timeout or the call's deadline,
/// whichever is shorter.
pub(crate) async fn call(
    client: &reqwest::Client,
    spec: &HttpSpec,
    params: &Params,
    deadline: Duration,
) -> ToolResult {
    let timeout = spec.timeout.min(deadline);
    let request = match build(client, spec, params, timeout) {
        Ok(request) => request,
        Err(error) => return ToolResult::failure(error),
    };
    let what = format!("{} {}", spec.method, request.url());
    let reply = match client.execute(request).await {
        Ok(reply) => reply,
        Err(err) if err.is_timeout() => {
            return ToolResult::failure(format!("{what} timed out after {}", seconds(timeout)));
        }
        Err(err) => return ToolResult::failure(format!("{what} failed: {}", error_chain(&err))),
    };
    let status = reply.status();
    let body = match reply.text().await {
        Ok(body) => body,
        Err(err) if err.is_timeout() => {
            return ToolResult::failure(format!("{what} timed out after {}", seconds(timeout)));
        }
        Err(err) => {
            return ToolResult::failure(format!(
                "{what}: the reply could not be read: {}",
                error_chain(&err)
            ));
        }
    };
    if !status.is_success() {
        return ToolResult::failure(format!("{what} answered {status}: {}", excerpt(&body)));
    }
    match extract(&body, &spec.result_path) {
        Ok(data) => ToolResult::ok(data),
        Err(error) => ToolResult::failure(format!("{what}: {error}")),
    }
}

fn build(
    client: &reqwest::Client,
    spec: &HttpSpec,
    params: &Params,
    timeout: Duration,
) -> Result<reqwest::Request, String> {
    let url = fill(&spec.url, params, |text| {
        Ok(utf8_percent_encode(text, URL_VALUE).to_string())
    })?;
    let mut url = reqwest::Url::parse(&url).map_err(|err| format!("invalid url {url:?}: {err}"))?;
    if !spec.query.is_empty() {
        let mut pairs = url.query_pairs_mut();
        for (key, template) in &spec.query {
            pairs.append_pair(key, &fill(template, params, verbatim)?);
        }
    }
    let method = reqwest::Method::from_bytes(spec.method.as_bytes())
        .map_err(|err| format!("http.method {:?}: {err}", spec.method))?;
    let mut headers = HeaderMap::new();
    for (name, template) in &spec.headers {
        let value = expand_env(template, &|var| std::env::var(var).ok())
            .map_err(|var| format!("header {name}: environment variable {var} is not set"))?;
        let header_name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|err| format!("header {name:?}: {err}"))?;
        let header_value =
            HeaderValue::from_str(&value).map_err(|err| format!("header {name}: {err}"))?;
        headers.insert(header_name, header_value);
    }
    let mut request = client
        .request(method, url)
        .headers(headers.clone())
        .timeout(timeout);
    match &spec.body {
        None => {}
        Some(BodyTemplate::Json(template)) => {
            let body = serde_json::to_vec(&fill_json(template, params))
                .map_err(|err| format!("body_template: {err}"))?;
            if !headers.contains_key(reqwest::header::CONTENT_TYPE) {
                request = request.header(reqwest::header::CONTENT_TYPE, "application/json");
            }
            request = request.body(body);
        }
        Some(BodyTemplate::Text(template)) => {
            request = request.body(fill(template, params, verbatim)?);
        }
    }
    request.build().map_err(|err| error_chain(&err))
}

/// Replaces `${NAME}` with the environment variable's value; `Err` names the
/// first one that is not set.
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
