//! What goes wrong: the LLM down or hanging, a hanging tool, a client that
//! leaves mid-stream, a huge body, more requests than turns allowed.

use std::net::TcpListener;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::Request;
use futures_util::StreamExt;
use pretty_assertions::assert_eq;
use riverse_test_support::openai::{OpenAiServer, ev_hang, ev_text, ev_tool_call};
use serde_json::json;
use tower::ServiceExt;

use super::support::{ask, create, get, post, send, served, served_at};

/// A loopback port nothing listens on.
fn closed_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[tokio::test]
async fn an_unreachable_llm_is_a_502_with_the_cause_and_the_turn_is_stored_as_failed() {
    let served = served_at(&format!("http://127.0.0.1:{}", closed_port()), &[], "").await;
    for stream in [false, true] {
        let reply = post(served.app(), "/v1/chat/completions", ask("hi", stream)).await;
        assert_eq!(reply.status, 502, "stream {stream}: {}", reply.body);
        let error = &reply.json()["error"];
        assert_eq!(error["type"], "llm_error");
        let message = error["message"].as_str().unwrap();
        // The endpoint's address is in the server's log, not in the reply.
        assert!(
            message.starts_with("can't reach the LLM at (the LLM endpoint)"),
            "{message}"
        );
        assert!(!message.contains("127.0.0.1") && !message.contains("sk-test"));
    }
    let id = create(&served).await;
    let reply = post(
        served.app(),
        &format!("/v1/conversations/{id}/messages"),
        json!({"content": "hi"}),
    )
    .await;
    assert_eq!(reply.status, 502, "{}", reply.body);
    let conversation = get(served.app(), &format!("/v1/conversations/{id}"))
        .await
        .json();
    let answer = &conversation["messages"][1];
    assert_eq!(answer["status"], "failed");
    assert!(
        answer["error"]
            .as_str()
            .unwrap()
            .starts_with("can't reach the LLM")
    );
}

#[tokio::test]
async fn a_turn_past_its_deadline_is_a_504() {
    let llm = OpenAiServer::start([ev_hang()]);
    let served = served(&llm, &[], "serve: {turn_timeout: 0.5}").await;
    let reply = post(served.app(), "/v1/chat/completions", ask("hi", false)).await;
    assert_eq!(reply.status, 504, "{}", reply.body);
    assert_eq!(reply.json()["error"]["code"], "turn_timeout");
    assert!(
        served.state.turns_finished(Duration::from_secs(5)).await,
        "the slot was not freed"
    );
}

#[tokio::test]
async fn a_hanging_tool_fails_at_its_deadline_and_the_turn_still_answers() {
    let llm = OpenAiServer::start([
        ev_tool_call("c1", "hangs", json!({})),
        ev_text("The tool timed out."),
        ev_text("next"),
    ]);
    let served = served(&llm, &["hangs.py"], "tools: {hangs: {timeout: 1}}").await;
    let reply = post(served.app(), "/v1/chat/completions", ask("run it", false)).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let body = reply.json();
    assert_eq!(
        body["choices"][0]["message"]["content"],
        "The tool timed out."
    );
    let call = &body["riverse"]["tool_calls"][0];
    assert_eq!(call["success"], false);
    assert!(call["error"].as_str().unwrap().contains("1"), "{call}");
    let next = post(served.app(), "/v1/chat/completions", ask("again", false)).await;
    assert_eq!(next.status, 200, "{}", next.body);
}

/// Sends `body` to `uri`, reads the first piece of the streamed answer, and
/// drops the response, as a client that goes away does.
pub(super) async fn leave_after_first_chunk(
    app: axum::Router,
    uri: &str,
    body: serde_json::Value,
) -> String {
    let request = Request::post(uri)
        .header("host", "127.0.0.1:8420")
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    let response = app.oneshot(request).await.unwrap();
    assert_eq!(response.status(), 200);
    let mut data = response.into_body().into_data_stream();
    let first = data.next().await.unwrap().unwrap();
    String::from_utf8_lossy(&first).into_owned()
}

#[tokio::test]
async fn a_client_leaving_a_completion_mid_stream_stops_its_turn() {
    let llm = OpenAiServer::start([
        ev_tool_call("c1", "weather", json!({"city": "Rome"})),
        ev_text("too late").delay(Duration::from_secs(30)),
    ]);
    let served = served(&llm, &[], "serve: {max_concurrent_turns: 1}").await;
    let first =
        leave_after_first_chunk(served.app(), "/v1/chat/completions", ask("Rome?", true)).await;
    assert!(first.contains("tool_call.started"), "{first}");
    // The turn was waiting 30 s on the model; its slot comes back at once.
    assert!(
        served.state.turns_finished(Duration::from_secs(5)).await,
        "the turn kept running"
    );
    // Whether the model was asked again before the turn stopped is a race.
    llm.take_unused();
}

#[tokio::test]
async fn a_10_mb_body_is_a_413() {
    let llm = OpenAiServer::start([]);
    let served = served(&llm, &[], "").await;
    let huge = ask(&"x".repeat(10 * 1024 * 1024), false).to_string();
    let reply = send(
        served.app(),
        "POST",
        "/v1/chat/completions",
        Some(huge),
        None,
    )
    .await;
    assert_eq!(reply.status, 413);
    assert_eq!(reply.json()["error"]["code"], "body_too_large");
    assert_eq!(
        reply.json()["error"]["message"],
        "the body is larger than serve.max_body_bytes (1048576 bytes)"
    );
    assert!(llm.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_requests_at_once_run_at_most_eight_turns_and_the_rest_are_told_to_retry() {
    let llm = OpenAiServer::start([]).fallback(ev_text("ok").delay(Duration::from_millis(300)));
    let served = served(&llm, &[], "serve: {max_concurrent_turns: 8}").await;
    let started = Instant::now();
    let requests: Vec<_> = (0..200)
        .map(|_| {
            let app = served.app();
            tokio::spawn(async move { post(app, "/v1/chat/completions", ask("hi", false)).await })
        })
        .collect();
    let mut answered = 0;
    let mut refused = 0;
    for request in requests {
        let reply = request.await.unwrap();
        match reply.status.as_u16() {
            200 => {
                assert_eq!(reply.json()["choices"][0]["message"]["content"], "ok");
                answered += 1;
            }
            429 => {
                assert_eq!(reply.headers["retry-after"], "1");
                assert_eq!(reply.json()["error"]["code"], "too_many_turns");
                refused += 1;
            }
            other => panic!("unexpected status {other}: {}", reply.body),
        }
    }
    assert_eq!(answered + refused, 200);
    assert!(answered >= 8, "only {answered} answered");
    assert!(refused > 0, "none refused in {:?}", started.elapsed());
    assert_eq!(llm.requests().len(), answered);
    assert!(
        max_overlap(&llm) <= 8,
        "{} model calls overlapped",
        max_overlap(&llm)
    );
}

/// The most model requests that were being handled at one moment.
fn max_overlap(llm: &OpenAiServer) -> usize {
    let mut edges: Vec<(Instant, i32)> = Vec::new();
    for request in llm.requests() {
        edges.push((request.received, 1));
        edges.push((request.received + request.handled, -1));
    }
    edges.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
    let (mut now, mut most) = (0, 0);
    for (_, change) in edges {
        now += change;
        most = most.max(now);
    }
    usize::try_from(most).unwrap()
}
