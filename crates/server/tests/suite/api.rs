//! `/v1/chat/completions`, `/v1/models`, `/v1/tools`, errors and the token.

use pretty_assertions::assert_eq;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call};
use serde_json::json;

use super::support::{ask, create, get, post, send, served, served_at};

#[tokio::test]
async fn a_completion_runs_the_tool_server_side_and_answers() {
    let llm = OpenAiServer::start([
        ev_tool_call("c1", "weather", json!({"city": "Tokyo"})),
        ev_text("Sunny in Tokyo."),
    ]);
    let served = served(&llm, &[], "").await;
    let reply = post(
        served.app(),
        "/v1/chat/completions",
        ask("Weather in Tokyo?", false),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let body = reply.json();
    assert_eq!(body["object"], "chat.completion");
    assert_eq!(body["model"], "riverse");
    assert_eq!(
        body["choices"],
        json!([{"index": 0, "message": {"role": "assistant", "content": "Sunny in Tokyo."}, "finish_reason": "stop"}])
    );
    let call = &body["riverse"]["tool_calls"][0];
    assert_eq!(
        (
            call["tool"].clone(),
            call["params"].clone(),
            call["success"].clone(),
            call["data"].clone()
        ),
        (
            json!("weather"),
            json!({"city": "Tokyo"}),
            json!(true),
            json!("Tokyo: 21°C, sunny")
        )
    );
    let requests = llm.requests();
    assert_eq!(
        requests[1].tool_results(),
        vec![("c1".to_owned(), "Tokyo: 21°C, sunny".to_owned())]
    );
    // The two model calls' usage, summed: 10 in each; one call, then 15
    // characters of answer, out.
    assert_eq!(
        body["usage"],
        json!({"prompt_tokens": 20, "completion_tokens": 16, "total_tokens": 36})
    );
}

#[tokio::test]
async fn a_streamed_completion_sends_standard_chunks_with_tool_activity_beside_them() {
    let llm = OpenAiServer::start([
        ev_tool_call("c1", "weather", json!({"city": "Paris"})),
        ev_text("Paris is sunny today."),
    ]);
    let served = served(&llm, &[], "").await;
    let reply = post(served.app(), "/v1/chat/completions", ask("Paris?", true)).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.headers["content-type"], "text/event-stream");
    let events = reply.events();
    assert_eq!(events.last().map(String::as_str), Some("[DONE]"));
    let chunks = reply.chunks();
    assert!(
        chunks
            .iter()
            .all(|c| c["object"] == "chat.completion.chunk")
    );
    assert_eq!(
        chunks[0]["choices"][0]["delta"],
        json!({"role": "assistant", "content": ""})
    );
    assert_eq!(reply.streamed_text(), "Paris is sunny today.");
    let last = chunks.last().unwrap();
    assert_eq!(last["choices"][0]["finish_reason"], "stop");
    assert_eq!(
        last["usage"],
        json!({"prompt_tokens": 20, "completion_tokens": 22, "total_tokens": 42})
    );
    let kinds: Vec<String> = reply
        .riverse_events()
        .iter()
        .map(|event| event["type"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        kinds,
        vec!["tool_call.started", "tool_call.finished", "done"]
    );
    let finished = &reply.riverse_events()[1];
    assert_eq!(finished["call_id"], "c1");
    assert_eq!(finished["data"], "Paris: 21°C, sunny");
    assert_eq!(reply.riverse_events()[2]["answer"], "Paris is sunny today.");
    // Tool activity rides only on chunks whose delta is empty.
    for chunk in chunks.iter().filter(|c| c.get("riverse").is_some()) {
        assert_eq!(chunk["choices"][0]["delta"], json!({}));
    }
}

#[tokio::test]
async fn the_request_messages_are_the_conversation() {
    let llm = OpenAiServer::start([ev_text("Still sunny.")]);
    let served = served(&llm, &[], "").await;
    let body = json!({"messages": [
        {"role": "system", "content": "Answer briefly."},
        {"role": "user", "content": "Weather in Tokyo?"},
        {"role": "assistant", "content": "Sunny."},
        {"role": "user", "content": "And now?"},
    ]});
    let reply = post(served.app(), "/v1/chat/completions", body).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let sent = llm.single_request().roles_and_contents();
    let tail: Vec<(String, String)> = sent[1..].to_vec();
    assert_eq!(
        tail,
        vec![
            ("system".to_owned(), "Answer briefly.".to_owned()),
            ("user".to_owned(), "Weather in Tokyo?".to_owned()),
            ("assistant".to_owned(), "Sunny.".to_owned()),
            ("user".to_owned(), "And now?".to_owned()),
        ]
    );
}

#[tokio::test]
async fn models_and_tools_are_listed_and_tools_can_be_called() {
    let llm = OpenAiServer::start([]);
    let served = served(&llm, &["unavailable.py"], "").await;
    let models = get(served.app(), "/v1/models").await.json();
    assert_eq!(models["data"][0]["id"], "riverse");
    let tools = get(served.app(), "/v1/tools").await.json();
    assert_eq!(
        tools,
        riverse_agent::tools_json(&served.state.agent.registry())
    );
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["unavailable", "weather"]);

    let called = post(
        served.app(),
        "/v1/tools/weather/call",
        json!({"city": "Oslo"}),
    )
    .await;
    assert_eq!(called.status, 200);
    assert_eq!(
        called.json(),
        json!({"success": true, "data": "Oslo: 21°C, sunny", "error": ""})
    );
    let failed = post(served.app(), "/v1/tools/weather/call", json!({})).await;
    assert_eq!(failed.status, 200);
    assert_eq!(
        failed.json(),
        json!({"success": false, "data": "", "error": "missing city", "failure": "tool_error"})
    );
    let unknown = post(served.app(), "/v1/tools/nope/call", json!({})).await;
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.json()["error"]["message"], "unknown tool \"nope\"");
    let unavailable = post(served.app(), "/v1/tools/unavailable/call", json!({})).await;
    assert_eq!(unavailable.status, 409);
    assert_eq!(unavailable.json()["error"]["code"], "tool_unavailable");
    let not_object = post(served.app(), "/v1/tools/weather/call", json!(["Oslo"])).await;
    assert_eq!(not_object.status, 400);
}

#[tokio::test]
async fn malformed_requests_get_openai_shaped_errors_naming_the_field() {
    let llm = OpenAiServer::start([]);
    let served = served(&llm, &[], "").await;
    let not_json = send(
        served.app(),
        "POST",
        "/v1/chat/completions",
        Some("{oops".into()),
        None,
    )
    .await;
    assert_eq!(not_json.status, 400);
    assert_eq!(not_json.json()["error"]["code"], "invalid_json");
    assert_eq!(not_json.json()["error"]["type"], "invalid_request_error");

    let no_messages = post(served.app(), "/v1/chat/completions", json!({"model": "x"})).await;
    assert_eq!(no_messages.status, 400);
    assert_eq!(
        no_messages.json(),
        json!({"error": {"message": "messages: missing", "type": "invalid_request_error", "param": "messages", "code": "invalid_value"}})
    );
    let mut with_tools = ask("hi", false);
    with_tools["tools"] = json!([{"type": "web_search"}]);
    let refused = post(served.app(), "/v1/chat/completions", with_tools).await;
    assert_eq!(refused.status, 400);
    assert_eq!(refused.json()["error"]["param"], "tools[0].type");
    assert!(
        llm.requests().is_empty(),
        "no turn ran for a refused request"
    );

    let nowhere = get(served.app(), "/v1/nowhere").await;
    assert_eq!(nowhere.status, 404);
    assert_eq!(
        nowhere.json()["error"]["message"],
        "no such route /v1/nowhere"
    );
}

/// Issue 23: each route's body is a type; a field missing or of the wrong
/// type is a 400 in OpenAI's shape whose `param` names it.
#[tokio::test]
async fn a_body_field_missing_or_of_the_wrong_type_is_a_400_naming_it() {
    let llm = OpenAiServer::start([]);
    let served = served(&llm, &[], "").await;
    let id = create(&served).await;
    let renamed = format!("/v1/conversations/{id}");
    let messages = format!("/v1/conversations/{id}/messages");
    let hi = json!([{"role": "user", "content": "hi"}]);
    let cases = [
        (
            "POST",
            "/v1/chat/completions",
            json!({"messages": hi, "stream": "yes"}).to_string(),
            "stream",
            "stream: invalid type: string \"yes\", expected a boolean",
        ),
        (
            "POST",
            "/v1/chat/completions",
            json!({"messages": 3}).to_string(),
            "messages",
            "messages: invalid type: number, expected a sequence",
        ),
        (
            "POST",
            "/v1/chat/completions",
            json!({"model": 3, "messages": hi}).to_string(),
            "model",
            "model: invalid type: number, expected a string",
        ),
        (
            "POST",
            "/v1/chat/completions",
            json!({"model": "gpt-4o"}).to_string(),
            "messages",
            "messages: missing",
        ),
        (
            "POST",
            "/v1/chat/completions",
            " \n".to_owned(),
            "messages",
            "messages: missing",
        ),
        (
            "POST",
            "/v1/chat/completions",
            json!({"messages": [{"role": "user", "content": "hi"}, {"content": "hi"}]}).to_string(),
            "messages[1].role",
            "messages[1].role: missing",
        ),
        (
            "POST",
            "/v1/chat/completions",
            json!({"messages": [{"role": "user", "content": {"text": "hi"}}]}).to_string(),
            "messages[0].content",
            "messages[0].content: expected a string or an array of text parts",
        ),
        (
            "POST",
            "/v1/tools/weather/call",
            json!(["Oslo"]).to_string(),
            "body",
            "body: expected a JSON object, got an array",
        ),
        (
            "PATCH",
            &renamed,
            json!({"title": 3}).to_string(),
            "title",
            "title: invalid type: number, expected a string",
        ),
        (
            "PATCH",
            &renamed,
            "{}".to_owned(),
            "title",
            "title: missing",
        ),
        (
            "POST",
            &messages,
            json!({"content": "hi", "stream": "yes"}).to_string(),
            "stream",
            "stream: invalid type: string \"yes\", expected a boolean",
        ),
        (
            "POST",
            &messages,
            json!({"content": ["hi"]}).to_string(),
            "content",
            "content: invalid type: sequence, expected a string",
        ),
        (
            "POST",
            &messages,
            json!({"stream": false}).to_string(),
            "content",
            "content: missing",
        ),
    ];
    for (method, uri, body, param, message) in cases {
        let reply = send(served.app(), method, uri, Some(body.clone()), None).await;
        assert_eq!(reply.status, 400, "{method} {uri} {body}: {}", reply.body);
        assert_eq!(
            reply.json(),
            json!({"error": {"message": message, "type": "invalid_request_error", "param": param, "code": "invalid_value"}}),
            "{method} {uri} {body}"
        );
    }
    assert!(llm.requests().is_empty(), "no turn ran");
    let conversation = get(served.app(), &renamed).await.json();
    assert_eq!(conversation["messages"], json!([]), "no message was stored");
}

/// OpenAI's clients send fields Riverse does not use; they are accepted
/// and ignored, as are `null`s where a field has a default.
#[tokio::test]
async fn openai_fields_riverse_does_not_use_are_accepted() {
    let llm = OpenAiServer::start([ev_text("Hello.")]);
    let served = served(&llm, &[], "").await;
    let body = json!({
        "model": "gpt-4o",
        "messages": [{"role": "user", "content": "hi", "name": "ann"}],
        "stream": null,
        "temperature": 0.2,
        "top_p": 1,
        "n": 1,
        "max_tokens": 50,
        "user": "user-1",
        "seed": 7,
        "response_format": {"type": "text"},
        "tools": [],
        "tool_choice": "none",
    });
    let reply = post(served.app(), "/v1/chat/completions", body).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.json()["model"], "gpt-4o");
    assert_eq!(reply.json()["choices"][0]["message"]["content"], "Hello.");
}

#[tokio::test]
async fn with_a_token_every_v1_route_needs_it_but_the_page_does_not() {
    let llm = OpenAiServer::start([ev_text("hello")]);
    let served = served(&llm, &[], "serve: {token: s3cret-token}").await;
    for token in [None, Some("wrong"), Some("s3cret-token-and-more")] {
        let reply = send(served.app(), "GET", "/v1/models", None, token).await;
        assert_eq!(reply.status, 401, "token {token:?}");
        assert_eq!(reply.json()["error"]["code"], "invalid_api_key");
        assert!(
            !reply.body.contains("s3cret"),
            "the token leaked: {}",
            reply.body
        );
    }
    let reply = send(
        served.app(),
        "POST",
        "/v1/chat/completions",
        Some(ask("hi", false).to_string()),
        Some("s3cret-token"),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let page = send(served.app(), "GET", "/", None, None).await;
    assert_eq!(page.status, 200);
    assert!(page.body.contains("<html lang=\"en\">"));
}

#[tokio::test]
async fn the_page_follows_the_language_setting() {
    let llm = OpenAiServer::start([]);
    let served = served(&llm, &[], "language: ja").await;
    let page = get(served.app(), "/").await;
    assert_eq!(page.headers["content-type"], "text/html; charset=utf-8");
    assert!(page.body.contains("<html lang=\"ja\">"));
}

/// One request with its own headers through the router: the status and the
/// `Access-Control-Allow-Origin` it came back with.
async fn from_origin(
    app: axum::Router,
    method: &str,
    origin: &str,
    headers: &[(&str, &str)],
) -> (u16, Option<String>) {
    use tower::ServiceExt;
    let mut request = axum::http::Request::builder()
        .method(method)
        .uri("/v1/models")
        .header("host", "127.0.0.1:8420")
        .header("origin", origin);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = app
        .oneshot(request.body(axum::body::Body::empty()).unwrap())
        .await
        .unwrap();
    let allowed = response
        .headers()
        .get("access-control-allow-origin")
        .map(|value| value.to_str().unwrap().to_owned());
    (response.status().as_u16(), allowed)
}

#[tokio::test]
async fn only_listed_origins_may_call_from_a_browser() {
    let llm = OpenAiServer::start([]);
    let served = served(
        &llm,
        &[],
        "serve: {token: s3cret, cors_origins: [\"https://chat.example.com\"]}",
    )
    .await;
    let listed = "https://chat.example.com";
    let preflight = from_origin(
        served.app(),
        "OPTIONS",
        listed,
        &[
            ("access-control-request-method", "GET"),
            ("access-control-request-headers", "authorization"),
        ],
    )
    .await;
    assert_eq!(preflight, (200, Some(listed.to_owned())));
    let call = from_origin(
        served.app(),
        "GET",
        listed,
        &[("authorization", "Bearer s3cret")],
    )
    .await;
    assert_eq!(call, (200, Some(listed.to_owned())));
    let other = from_origin(
        served.app(),
        "GET",
        "https://evil.example",
        &[("authorization", "Bearer s3cret")],
    )
    .await;
    assert_eq!(
        other,
        (403, None),
        "a page of another origin, even with the token"
    );

    let plain = served_at(&llm.url(), &[], "").await;
    let none = from_origin(plain.app(), "GET", listed, &[]).await;
    assert_eq!(
        none,
        (403, None),
        "no origin but the server's own unless listed"
    );
    let own = from_origin(plain.app(), "GET", "http://127.0.0.1:8420", &[]).await;
    assert_eq!(own, (200, None), "the server's own page needs no CORS");
}
