//! HTTP agents against a real server on a loopback port.

use pretty_assertions::assert_eq;
use riverse_test_support::web::WebServer;
use riverse_tool::{FailureKind, ToolResult};
use serde_json::{Value, json};

use super::support::{call, options, project, registry};

/// One agent named `probe` whose `http` section is `http` (YAML, indented
/// to sit under `http:`).
fn probe(server: &WebServer, http: &str) -> (tempfile::TempDir, riverse_tool::Registry) {
    let yaml = format!(
        "agents:\n  - name: probe\n    type: http\n    description: probe\n    parameters: {{city: City}}\n    http:\n{}",
        http.replace("{base}", &server.url())
            .lines()
            .map(|line| format!("      {line}\n"))
            .collect::<String>()
    );
    let project = project(&yaml);
    let registry = registry(&options(project.path(), "en"));
    (project, registry)
}

#[tokio::test]
async fn a_reply_is_the_result_and_result_path_picks_a_part_of_it() {
    let server = WebServer::start();
    let (_project, registry) = probe(
        &server,
        "url: \"{base}/weather/{city}\"\nquery_template: {format: j1}\nresult_path: current_condition.0.weatherDesc",
    );
    assert_eq!(
        call(&registry, "probe", json!({"city": "Tokyo"})).await,
        ToolResult::ok(r#"[{"value":"Sunny"}]"#)
    );
    let (_project, registry) = probe(&server, "url: \"{base}/weather/{city}\"");
    let whole = call(&registry, "probe", json!({"city": "Oslo"})).await;
    let reply: Value = serde_json::from_str(&whole.data).unwrap();
    assert_eq!(reply["nearest_area"][0]["areaName"][0]["value"], "Oslo");
}

#[tokio::test]
async fn values_are_url_encoded_and_headers_expand_environment_variables() {
    let server = WebServer::start();
    let (_project, registry) = probe(
        &server,
        "url: \"{base}/echo/{city}\"\nmethod: post\nheaders: {Authorization: \"Bearer ${HOME}\"}\nquery_template: {q: \"{city}\"}\nbody_template: {query: \"{city}\", inputs: {}}",
    );
    let result = call(&registry, "probe", json!({"city": "São Paulo/../x?y=1&z"})).await;
    assert!(result.success, "{result:?}");
    let echoed: Value = serde_json::from_str(&result.data).unwrap();
    assert_eq!(echoed["method"], "POST");
    assert_eq!(
        echoed["path"],
        "/echo/S%C3%A3o%20Paulo%2F..%2Fx%3Fy%3D1%26z"
    );
    assert_eq!(echoed["query"], "q=S%C3%A3o+Paulo%2F..%2Fx%3Fy%3D1%26z");
    let home = std::env::var("HOME").unwrap();
    assert_eq!(echoed["headers"]["authorization"], format!("Bearer {home}"));
    assert_eq!(echoed["headers"]["content-type"], "application/json");
    assert_eq!(
        serde_json::from_str::<Value>(echoed["body"].as_str().unwrap()).unwrap(),
        json!({"query": "São Paulo/../x?y=1&z", "inputs": {}})
    );
}

#[tokio::test]
async fn a_missing_environment_variable_is_named() {
    let server = WebServer::start();
    let (_project, registry) = probe(
        &server,
        "url: \"{base}/echo\"\nheaders: {X-Key: \"${RIVERSE_AGENTS_TEST_UNSET}\"}",
    );
    assert_eq!(
        call(&registry, "probe", json!({})).await,
        ToolResult::failed(
            FailureKind::Unavailable,
            "header X-Key: environment variable RIVERSE_AGENTS_TEST_UNSET is not set"
        )
    );
}

#[tokio::test]
async fn error_statuses_fail_with_the_status_and_the_start_of_the_body() {
    let server = WebServer::start();
    for (code, reason) in [(404, "404 Not Found"), (500, "500 Internal Server Error")] {
        let (_project, registry) = probe(&server, &format!("url: \"{{base}}/status/{code}\""));
        assert_eq!(
            call(&registry, "probe", json!({})).await,
            ToolResult::failed(
                FailureKind::ToolError,
                format!(
                    "GET {}/status/{code} answered {reason}: status {code} from the test server",
                    server.url()
                )
            )
        );
    }
}

#[tokio::test]
async fn a_slow_server_fails_at_the_agents_timeout() {
    let server = WebServer::start();
    let (_project, registry) = probe(&server, "url: \"{base}/slow\"\ntimeout: 0.5");
    assert_eq!(
        call(&registry, "probe", json!({})).await,
        ToolResult::failed(
            FailureKind::Timeout,
            format!("GET {}/slow timed out after 0.5s", server.url())
        )
    );
}

#[tokio::test]
async fn a_reply_that_is_not_json_or_lacks_the_path_fails() {
    let server = WebServer::start();
    let (_project, registry) = probe(&server, "url: \"{base}/text\"\nresult_path: answer");
    assert_eq!(
        call(&registry, "probe", json!({})).await,
        ToolResult::failed(
            FailureKind::ToolError,
            format!(
                "GET {}/text: result_path \"answer\" needs a JSON reply, got: plain text, not JSON",
                server.url()
            )
        )
    );
    let (_project, registry) = probe(
        &server,
        "url: \"{base}/weather/{city}\"\nresult_path: current.temp",
    );
    let result = call(&registry, "probe", json!({"city": "Rome"})).await;
    assert!(!result.success);
    assert!(
        result.error.starts_with(&format!(
            "GET {}/weather/Rome: result_path \"current.temp\": no \"current\" in the reply: {{\"current_condition\"",
            server.url()
        )),
        "{}",
        result.error
    );
    // Without result_path any reply is the result.
    let (_project, registry) = probe(&server, "url: \"{base}/text\"");
    assert_eq!(
        call(&registry, "probe", json!({})).await,
        ToolResult::ok("plain text, not JSON")
    );
}

#[tokio::test]
async fn an_unreachable_server_fails_with_the_cause() {
    // A port that was just free: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let project = project(&format!(
        "agents:\n  - {{name: probe, type: http, http: {{url: \"http://127.0.0.1:{port}/x\"}}}}\n"
    ));
    let registry = registry(&options(project.path(), "en"));
    let result = call(&registry, "probe", json!({})).await;
    assert!(
        result
            .error
            .starts_with(&format!("GET http://127.0.0.1:{port}/x failed: ")),
        "{result:?}"
    );
}
