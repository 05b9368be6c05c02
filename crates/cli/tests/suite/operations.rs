//! What an operator sees of a running `riverse serve`: `/healthz`,
//! `/readyz` as the storage goes and comes back, and `/metrics` after
//! scripted turns, each replica of two over one PostgreSQL for itself.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use pretty_assertions::assert_eq;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call};
use riverse_test_support::postgres::{OwnPostgres, fresh_postgres_url};
use serde_json::{Value, json};

use super::ask::project_for;
use super::serve::{Server, http};

/// `GET path`, with `token` as the bearer when given; the status and the body.
fn get(url: &str, path: &str, token: Option<&str>) -> (u16, String) {
    let address = url.trim_start_matches("http://");
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let authorization = token
        .map(|token| format!("Authorization: Bearer {token}\r\n"))
        .unwrap_or_default();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\n{authorization}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    let status = reply[9..12].parse().unwrap();
    let body = reply
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default();
    (status, body)
}

/// The samples of a Prometheus text page, by name with labels as written:
/// `riverse_turns_total{api="chat_completions",outcome="answered"}`.
fn samples(page: &str) -> BTreeMap<String, f64> {
    page.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .filter_map(|line| {
            let (name, value) = line.rsplit_once(' ')?;
            Some((name.to_owned(), value.parse().ok()?))
        })
        .collect()
}

fn sample(samples: &BTreeMap<String, f64>, name: &str) -> f64 {
    *samples
        .get(name)
        .unwrap_or_else(|| panic!("no {name} in {samples:#?}"))
}

fn ask(url: &str, question: &str) {
    let body = json!({"model": "riverse", "messages": [{"role": "user", "content": question}]});
    let (status, reply) = http(url, "POST", "/v1/chat/completions", Some(&body));
    assert_eq!(status, 200, "{reply}");
}

#[test]
fn health_needs_no_token_and_the_metrics_count_the_turns() {
    let llm = OpenAiServer::start([
        ev_tool_call("c1", "weather", json!({"city": "Tokyo"})),
        ev_text("Tokyo is sunny."),
        ev_text("Hello."),
    ]);
    let project = project_for(&llm, "");
    let token = "a-token-of-sixteen-or-more";
    let server = Server::start(&project, &[("RIVERSE_TOKEN", token)]);
    assert_eq!(
        get(&server.url, "/healthz", None),
        (200, json!({"status": "ok"}).to_string())
    );
    let (status, ready) = get(&server.url, "/readyz", None);
    assert_eq!(status, 200, "{ready}");
    let ready: Value = serde_json::from_str(&ready).unwrap();
    assert_eq!(
        ready,
        json!({"status": "ready", "storage": "ok", "tools": {"available": 1, "unavailable": 0},
               "llm": {"state": "unknown"}})
    );
    assert_eq!(get(&server.url, "/metrics", None).0, 401);

    for question in ["Weather in Tokyo?", "Hi"] {
        let body = json!({"messages": [{"role": "user", "content": question}]});
        let address = server.url.trim_start_matches("http://");
        let mut stream = TcpStream::connect(address).unwrap();
        let body = body.to_string();
        write!(
            stream,
            "POST /v1/chat/completions HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut reply = String::new();
        stream.read_to_string(&mut reply).unwrap();
        assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    }
    let (status, page) = get(&server.url, "/metrics", Some(token));
    assert_eq!(status, 200, "{page}");
    let seen = samples(&page);
    assert_eq!(
        sample(
            &seen,
            r#"riverse_turns_total{api="chat_completions",outcome="answered"}"#
        ),
        2.0
    );
    assert_eq!(
        sample(
            &seen,
            r#"riverse_turn_duration_seconds_count{api="chat_completions"}"#
        ),
        2.0
    );
    assert_eq!(
        sample(
            &seen,
            r#"riverse_tool_calls_total{tool="weather",outcome="success"}"#
        ),
        1.0
    );
    assert_eq!(
        sample(
            &seen,
            r#"riverse_tool_call_duration_seconds_count{tool="weather"}"#
        ),
        1.0
    );
    assert_eq!(
        sample(&seen, r#"riverse_llm_requests_total{outcome="ok"}"#),
        3.0
    );
    // The scripted LLM counts 10 prompt tokens a request.
    assert_eq!(
        sample(&seen, r#"riverse_llm_tokens_total{kind="prompt"}"#),
        30.0
    );
    assert_eq!(sample(&seen, "riverse_turns_running"), 0.0);
    assert_eq!(sample(&seen, "riverse_turn_slots"), 8.0);
    assert!(
        sample(&seen, "riverse_python_workers_alive") >= 1.0,
        "{page}"
    );
    assert!(page.contains("# HELP riverse_tool_calls_total"), "{page}");
    let (_, ready) = get(&server.url, "/readyz", None);
    let ready: Value = serde_json::from_str(&ready).unwrap();
    assert_eq!(ready["llm"]["state"], "ok", "{ready}");
    server.stop(nix::sys::signal::Signal::SIGTERM);
}

#[test]
fn ready_goes_with_postgresql_and_comes_back_with_it() {
    let Some(database) = OwnPostgres::start() else {
        return;
    };
    let llm = OpenAiServer::start([]);
    let settings = format!(
        "serve: {{storage: postgres, database_url: \"{}\"}}",
        database.url()
    );
    let project = project_for(&llm, &settings);
    let server = Server::start(&project, &[]);
    let ready = |server: &Server| {
        let (status, body) = get(&server.url, "/readyz", None);
        let body: Value = serde_json::from_str(&body).unwrap();
        (status, body["status"].clone(), body["storage"].clone())
    };
    assert_eq!(ready(&server), (200, json!("ready"), json!("ok")));
    database.stop();
    assert_eq!(
        ready(&server),
        (503, json!("unready"), json!("unreachable"))
    );
    assert_eq!(get(&server.url, "/healthz", None).0, 200);
    database.resume();
    assert_eq!(ready(&server), (200, json!("ready"), json!("ok")));
    // The conversations work again too.
    let (status, created) = http(&server.url, "POST", "/v1/conversations", None);
    assert_eq!(status, 200, "{created}");
    server.stop(nix::sys::signal::Signal::SIGTERM);
}

#[tokio::test]
async fn two_replicas_over_one_postgresql_each_report_their_own_turns() {
    let Some(url) = fresh_postgres_url().await else {
        return;
    };
    let llm = OpenAiServer::start([]).fallback(ev_text("Hello."));
    let settings = format!("serve: {{storage: postgres, database_url: \"{url}\"}}");
    let project = project_for(&llm, &settings);
    let first = Server::start(&project, &[]);
    let second = Server::start(&project, &[]);
    ask(&first.url, "hi");
    for _ in 0..2 {
        ask(&second.url, "hi");
    }
    let turns = |server: &Server| {
        let (_, page) = get(&server.url, "/metrics", None);
        sample(
            &samples(&page),
            r#"riverse_turns_total{api="chat_completions",outcome="answered"}"#,
        )
    };
    assert_eq!((turns(&first), turns(&second)), (1.0, 2.0));
    // What one keeps, the other reads.
    let (_, created) = http(&first.url, "POST", "/v1/conversations", None);
    let id = serde_json::from_str::<Value>(&created).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, _) = http(&second.url, "GET", &format!("/v1/conversations/{id}"), None);
    assert_eq!(status, 200);
    first.stop(nix::sys::signal::Signal::SIGTERM);
    second.stop(nix::sys::signal::Signal::SIGTERM);
}
