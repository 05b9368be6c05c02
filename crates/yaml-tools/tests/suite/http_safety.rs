//! HTTP agents against replies, values and redirects that try to take them
//! somewhere else (issue 21: H5, M2, M3, M4).

use std::sync::atomic::Ordering;

use pretty_assertions::assert_eq;
use riverse_test_support::web::WebServer;
use riverse_tool::{FailureKind, Registry, ToolResult};
use serde_json::{Value, json};

use super::support::{RawReply, RawServer, call, options, project, registry};

/// One agent named `probe` with parameters `a` and `b` and this `http`
/// mapping (YAML flow style).
fn probe(http: &str) -> (tempfile::TempDir, Registry) {
    let project = project(&format!(
        "agents:\n  - {{name: probe, type: http, parameters: {{a: a, b: b}}, http: {http}}}\n"
    ));
    let registry = registry(&options(project.path(), "en"));
    (project, registry)
}

/// The limit at the default `tools.max_output_bytes` (64 KiB).
const LIMIT: usize = 12 * 64 * 1024 + 64 * 1024;

#[tokio::test]
async fn an_endless_reply_fails_once_the_limit_is_read() {
    let server = RawServer::start(|_| RawReply::Endless("200 OK", 4 << 30));
    for http in [
        format!("{{url: \"{}/big\"}}", server.url()),
        format!("{{url: \"{}/big\", result_path: a.b}}", server.url()),
    ] {
        let (_project, registry) = probe(&http);
        let result = call(&registry, "probe", json!({})).await;
        assert_eq!(
            result,
            ToolResult::failed(
                FailureKind::OutputTooLarge,
                format!(
                    "GET {}/big: the reply is longer than {LIMIT} bytes, the limit for an HTTP agent; it was not read further",
                    server.url()
                )
            )
        );
    }
    // The server could only write what the socket buffers held past the
    // limit before the client went away, far from its 4 GiB.
    let streamed = server.streamed.load(Ordering::Relaxed);
    assert!(streamed < 256 << 20, "{streamed} bytes were streamed");
}

#[tokio::test]
async fn a_reply_announcing_a_length_over_the_limit_is_not_read() {
    let server = RawServer::start(|_| RawReply::Announced(LIMIT as u64 + 1));
    let (_project, registry) = probe(&format!("{{url: \"{}/big\"}}", server.url()));
    let result = call(&registry, "probe", json!({})).await;
    assert!(result.error.contains("longer than"), "{result:?}");
    // The client hung up after the head: the server never wrote the body.
    assert_eq!(server.streamed.load(Ordering::Relaxed), 0);
    // A reply at the limit is read.
    let body = "y".repeat(LIMIT);
    let server = RawServer::start(move |_| RawReply::Full("200 OK", Vec::new(), body.clone()));
    let (_project, registry) = probe(&format!("{{url: \"{}/big\"}}", server.url()));
    let result = call(&registry, "probe", json!({})).await;
    assert!(result.success, "{}", result.error);
}

#[tokio::test]
async fn an_endless_error_reply_fails_with_its_start() {
    let server = RawServer::start(|request| {
        if request.line.contains("/first") {
            RawReply::Full(
                "500 Internal Server Error",
                Vec::new(),
                "boom ".repeat(10_000),
            )
        } else {
            RawReply::Endless("503 Service Unavailable", 4 << 30)
        }
    });
    let (_project, registry) = probe(&format!("{{url: \"{}/first\"}}", server.url()));
    let result = call(&registry, "probe", json!({})).await;
    assert!(
        result.error.starts_with(&format!(
            "GET {}/first answered 500 Internal Server Error: boom boom",
            server.url()
        )),
        "{}",
        result.error
    );
    // An error body without end: its start is read, the rest never is.
    let (_project, registry) = probe(&format!("{{url: \"{}/endless\"}}", server.url()));
    let result = call(&registry, "probe", json!({})).await;
    assert!(
        result.error.starts_with(&format!(
            "GET {}/endless answered 503 Service Unavailable: AAAA",
            server.url()
        )),
        "{}",
        &result.error[..200.min(result.error.len())]
    );
    let streamed = server.streamed.load(Ordering::Relaxed);
    assert!(streamed < 256 << 20, "{streamed} bytes were streamed");
}

fn echoed_path(result: &ToolResult) -> String {
    assert!(result.success, "{result:?}");
    let echoed: Value = serde_json::from_str(&result.data).unwrap();
    echoed["path"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_value_can_not_make_a_dot_segment_of_the_path() {
    let server = WebServer::start();
    let (_project, registry) = probe(&format!(
        "{{url: \"{}/echo/users/{{a}}/profile\"}}",
        server.url()
    ));
    for value in [".", "..", ""] {
        let result = call(&registry, "probe", json!({"a": value})).await;
        assert!(!result.success, "{value:?}: {result:?}");
        assert!(result.error.contains("path segment"), "{}", result.error);
    }
    // Two values, or a value and the template's own text, that make `..`
    // together; the template's `%2e` spelling counts.
    let (_project, registry) = probe(&format!(
        "{{url: \"{}/echo/users/{{a}}{{b}}/x/%2e{{a}}/y\"}}",
        server.url()
    ));
    let result = call(&registry, "probe", json!({"a": ".", "b": "."})).await;
    assert!(result.error.contains("path segment"), "{result:?}");
    let result = call(&registry, "probe", json!({"a": ".", "b": "x"})).await;
    assert!(result.error.contains("\"%2e.\""), "{result:?}");
    // Values that only look like dots stay in their segment.
    let (_project, registry) = probe(&format!(
        "{{url: \"{}/echo/users/{{a}}/profile\"}}",
        server.url()
    ));
    for (value, path) in [
        ("...", "/echo/users/.../profile"),
        ("a..b", "/echo/users/a..b/profile"),
        ("%2e%2e", "/echo/users/%252e%252e/profile"),
        (".%2e", "/echo/users/.%252e/profile"),
        ("..\\..", "/echo/users/..%5C../profile"),
        ("../..", "/echo/users/..%2F../profile"),
    ] {
        assert_eq!(
            echoed_path(&call(&registry, "probe", json!({"a": value})).await),
            path,
            "{value:?}"
        );
    }
}

fn echoed_body(result: &ToolResult) -> String {
    assert!(result.success, "{result:?}");
    let echoed: Value = serde_json::from_str(&result.data).unwrap();
    echoed["body"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_value_can_not_change_the_shape_of_a_json_text_body() {
    let server = WebServer::start();
    let url = format!("{}/echo", server.url());
    let attacks = [
        "x\", \"admin\": true, \"z\": \"",
        "x\\\", \"admin\": true, \"z\": \"\\",
        "line\nbreak\t\u{1} and unicode é 😀",
        "}], \"admin\": true, \"q\": [{",
    ];
    // JSON because the template is JSON; because the content type says so.
    for http in [
        format!(
            "{{url: \"{url}\", method: POST, body_template: '{{\"q\": \"{{a}}\", \"admin\": false}}'}}"
        ),
        format!(
            "{{url: \"{url}\", method: POST, headers: {{Content-Type: application/json; charset=utf-8}}, body_template: '{{\"q\": \"{{a}}\", \"admin\": false}}'}}"
        ),
    ] {
        let (_project, registry) = probe(&http);
        for attack in attacks {
            let body = echoed_body(&call(&registry, "probe", json!({"a": attack})).await);
            assert_eq!(
                serde_json::from_str::<Value>(&body).unwrap(),
                json!({"q": attack, "admin": false}),
                "{attack:?}"
            );
        }
    }
    // A placeholder outside a string: a number or boolean stays one, anything
    // else becomes a string.
    let (_project, registry) = probe(&format!(
        "{{url: \"{url}\", method: POST, headers: {{Content-Type: application/json}}, body_template: '{{\"n\": {{a}}, \"admin\": false}}'}}"
    ));
    for (value, expected) in [
        (json!("12.5"), json!(12.5)),
        (json!(7), json!(7)),
        (json!("true"), json!(true)),
        (json!("1, \"admin\": true"), json!("1, \"admin\": true")),
        (json!({"admin": true}), json!("{\"admin\":true}")),
    ] {
        let body = echoed_body(&call(&registry, "probe", json!({"a": value})).await);
        assert_eq!(
            serde_json::from_str::<Value>(&body).unwrap(),
            json!({"n": expected, "admin": false}),
            "{value}"
        );
    }
    // The same template is JSON without the header: the placeholder outside
    // a string makes it so.
    let (_project, registry) = probe(&format!(
        "{{url: \"{url}\", method: POST, body_template: '{{\"n\": {{a}}, \"admin\": false}}'}}"
    ));
    for (value, expected) in [
        (json!("7"), json!(7)),
        (json!("1, \"admin\": true"), json!("1, \"admin\": true")),
    ] {
        let body = echoed_body(&call(&registry, "probe", json!({"a": value})).await);
        assert_eq!(
            serde_json::from_str::<Value>(&body).unwrap(),
            json!({"n": expected, "admin": false}),
            "{value}"
        );
    }
}

#[tokio::test]
async fn a_value_can_not_add_fields_to_a_form_body() {
    let server = WebServer::start();
    let (_project, registry) = probe(&format!(
        "{{url: \"{}/echo\", method: POST, headers: {{Content-Type: application/x-www-form-urlencoded}}, body_template: \"q={{a}}&admin=false\"}}",
        server.url()
    ));
    for attack in ["x&admin=true", "x%26admin%3Dtrue", "a b+c=d;e\n&"] {
        let body = echoed_body(&call(&registry, "probe", json!({"a": attack})).await);
        let pairs: Vec<(String, String)> = body
            .split('&')
            .map(|pair| {
                let (key, value) = pair.split_once('=').unwrap();
                (key.to_owned(), percent_decode(value))
            })
            .collect();
        assert_eq!(
            pairs,
            [
                ("q".to_owned(), attack.to_owned()),
                ("admin".to_owned(), "false".to_owned())
            ]
        );
    }
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut decoded = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            decoded.push(u8::from_str_radix(&text[at + 1..at + 3], 16).unwrap());
            at += 3;
        } else {
            decoded.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8(decoded).unwrap()
}

/// A server whose `/go/N` redirects to `targets[N]` (a whole URL), and
/// whose other paths answer `ok` with the path.
fn redirector(targets: Vec<String>) -> RawServer {
    RawServer::start(move |request| {
        let path = request.line.split(' ').nth(1).unwrap_or("").to_owned();
        match path
            .strip_prefix("/go/")
            .and_then(|n| n.parse::<usize>().ok())
        {
            Some(n) => RawReply::Full(
                "302 Found",
                vec![("Location".into(), targets[n].clone())],
                String::new(),
            ),
            None => RawReply::Full("200 OK", Vec::new(), format!("ok {path}")),
        }
    })
}

const SECRET_HEADERS: &str =
    "headers: {X-Api-Key: sk-very-secret, Authorization: Bearer sk-very-secret}";

#[tokio::test]
async fn redirects_stay_on_the_templates_host_by_default() {
    let elsewhere = redirector(Vec::new());
    // The same host and port, then another port: the second hop is refused.
    let local = redirector(vec![
        "/landed".into(),
        "/go/2".into(),
        format!("http://localhost:{}/stolen", elsewhere.port),
        format!("{}/stolen", elsewhere.url()),
    ]);
    for (start, followed) in [
        ("/go/0", true),
        ("/go/1", false),
        ("/go/2", false),
        ("/go/3", false),
    ] {
        let (_project, registry) = probe(&format!(
            "{{url: \"{}{start}\", {SECRET_HEADERS}}}",
            local.url()
        ));
        let result = call(&registry, "probe", json!({})).await;
        if followed {
            assert_eq!(result, ToolResult::ok("ok /landed"));
        } else {
            assert!(
                result
                    .error
                    .contains("another host; http.redirect: same-host follows only redirects to"),
                "{start}: {result:?}"
            );
        }
    }
    assert!(
        elsewhere.requests().is_empty(),
        "{:?}",
        elsewhere.requests()
    );
    let landed = local
        .requests()
        .into_iter()
        .find(|request| request.line.starts_with("GET /landed"))
        .unwrap();
    assert_eq!(landed.header("x-api-key"), Some("sk-very-secret"));
}

#[tokio::test]
async fn redirect_any_follows_but_the_templates_headers_stay_home() {
    let elsewhere = redirector(Vec::new());
    let local = redirector(vec!["/go/1".into(), format!("{}/stolen", elsewhere.url())]);
    let (_project, registry) = probe(&format!(
        "{{url: \"{}/go/0\", redirect: any, method: POST, body_template: {{q: x}}, {SECRET_HEADERS}}}",
        local.url()
    ));
    assert_eq!(
        call(&registry, "probe", json!({})).await,
        ToolResult::ok("ok /stolen")
    );
    let stolen = &elsewhere.requests()[0];
    // 302 after a POST is a GET without the body.
    assert_eq!(stolen.line, "GET /stolen HTTP/1.1");
    assert_eq!(stolen.header("x-api-key"), None);
    assert_eq!(stolen.header("authorization"), None);
    assert_eq!(stolen.body, "");
}

#[tokio::test]
async fn redirect_none_fails_with_the_redirect() {
    let local = redirector(vec!["/landed".into()]);
    let (_project, registry) = probe(&format!(
        "{{url: \"{}/go/0\", redirect: none}}",
        local.url()
    ));
    assert_eq!(
        call(&registry, "probe", json!({})).await,
        ToolResult::failed(
            FailureKind::ToolError,
            format!(
                "GET {}/go/0 answered 302 Found, a redirect to /landed that http.redirect: none does not follow",
                local.url()
            )
        )
    );
    assert_eq!(local.requests().len(), 1);
    let (_project, registry) = probe(&format!(
        "{{url: \"{}/go/0\", redirect: sometimes}}",
        local.url()
    ));
    let rows = registry.entries();
    assert!(
        rows[0]
            .error()
            .unwrap()
            .ends_with("http.redirect: expected none, same-host or any, found \"sometimes\""),
        "{:?}",
        rows[0].error()
    );
}

#[tokio::test]
async fn a_redirect_loop_stops() {
    let local = redirector(vec!["/go/0".into()]);
    let (_project, registry) = probe(&format!("{{url: \"{}/go/0\"}}", local.url()));
    assert_eq!(
        call(&registry, "probe", json!({})).await,
        ToolResult::failed(
            FailureKind::ToolError,
            format!("GET {}/go/0: more than 10 redirects", local.url())
        )
    );
}

#[tokio::test]
async fn only_redirect_statuses_with_a_readable_location_are_followed() {
    let server = RawServer::start(|request| {
        let location = if request.line.contains("/multiple") {
            "/landed"
        } else {
            "http://[::1"
        };
        match request.line.contains("/landed") {
            true => RawReply::Full("200 OK", Vec::new(), "landed".into()),
            false => RawReply::Full(
                if request.line.contains("/multiple") {
                    "300 Multiple Choices"
                } else {
                    "302 Found"
                },
                vec![("Location".into(), location.into())],
                String::new(),
            ),
        }
    });
    // A 300 is not followed, and the message does not blame http.redirect.
    let (_project, registry) = probe(&format!("{{url: \"{}/multiple\"}}", server.url()));
    assert_eq!(
        call(&registry, "probe", json!({})).await,
        ToolResult::failed(
            FailureKind::ToolError,
            format!(
                "GET {}/multiple answered 300 Multiple Choices",
                server.url()
            )
        )
    );
    assert_eq!(server.requests().len(), 1);
    let (_project, registry) = probe(&format!("{{url: \"{}/broken\"}}", server.url()));
    let result = call(&registry, "probe", json!({})).await;
    assert!(
        result.error.starts_with(&format!(
            "GET {}/broken answered 302 Found, a redirect with an invalid Location \"http://[::1\": ",
            server.url()
        )),
        "{}",
        result.error
    );
    assert!(!result.error.contains("http.redirect"), "{}", result.error);
}
