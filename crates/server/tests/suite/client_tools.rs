//! A `/v1/chat/completions` request's own tools: shown to the model beside
//! Riverse's, their calls handed back as OpenAI hands them back, the turn
//! going on from the client's results.

use pretty_assertions::assert_eq;
use riverse_test_support::openai::{OpenAiServer, Request, ev_text, ev_tool_call, ev_tool_calls};
use serde_json::{Value, json};

use super::clients::{Listening, python};
use riverse_store::Liveness;

use super::support::{Backend, post, serve_project, served, served_on};

/// The client's tool, as LangChain or the OpenAI Agents SDK would offer it.
fn packing_list() -> Value {
    json!({"type": "function", "function": {
        "name": "packing_list",
        "description": "Lists what to pack for a trip",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "Where to"},
                "days": {"type": "integer"},
                "extras": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["city"]
        }
    }})
}

fn asking(messages: Value, extra: Value) -> Value {
    let mut body = json!({"model": "gpt-4o", "messages": messages, "tools": [packing_list()]});
    for (key, value) in extra.as_object().cloned().unwrap_or_default() {
        body[key] = value;
    }
    body
}

/// The one request the model was sent since the last look.
fn taken(llm: &OpenAiServer) -> Request {
    let mut requests = llm.take_requests();
    assert_eq!(requests.len(), 1, "{requests:#?}");
    requests.remove(0)
}

fn user(text: &str) -> Value {
    json!([{"role": "user", "content": text}])
}

#[tokio::test]
async fn a_client_tool_call_is_handed_back_and_the_turn_goes_on_from_its_result() {
    let llm = OpenAiServer::start([
        ev_tool_call("m1", "packing_list", json!({"city": "Tokyo", "days": 3})),
        ev_text("Pack an umbrella."),
    ]);
    let served = served(&llm, &[], "").await;
    let reply = post(
        served.app(),
        "/v1/chat/completions",
        asking(user("What do I pack for Tokyo?"), json!({})),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let body = reply.json();
    let choice = &body["choices"][0];
    assert_eq!(choice["finish_reason"], "tool_calls");
    assert_eq!(choice["message"]["content"], Value::Null);
    let call = &choice["message"]["tool_calls"][0];
    assert_eq!(
        (call["type"].clone(), call["function"].clone()),
        (
            json!("function"),
            json!({"name": "packing_list", "arguments": "{\"city\":\"Tokyo\",\"days\":3}"})
        )
    );
    let call_id = call["id"].as_str().unwrap().to_owned();
    assert!(call_id.starts_with("call_") && call_id != "m1", "{call_id}");
    assert_eq!(body["riverse"]["tool_calls"], json!([]));
    assert!(
        body["usage"]["total_tokens"].as_u64().unwrap() > 0,
        "{body}"
    );
    // The model saw Riverse's tool and the client's, the client's schema whole.
    let first = taken(&llm);
    assert_eq!(first.tool_names(), vec!["weather", "packing_list"]);
    assert_eq!(
        first.body["tools"][1]["function"]["parameters"],
        packing_list()["function"]["parameters"]
    );

    let mut messages = user("What do I pack for Tokyo?");
    let messages_list = messages.as_array_mut().unwrap();
    messages_list.push(choice["message"].clone());
    messages_list
        .push(json!({"role": "tool", "tool_call_id": call_id, "content": "umbrella, shoes"}));
    let reply = post(
        served.app(),
        "/v1/chat/completions",
        asking(messages, json!({})),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let body = reply.json();
    assert_eq!(body["choices"][0]["finish_reason"], "stop");
    assert_eq!(
        body["choices"][0]["message"]["content"],
        "Pack an umbrella."
    );
    let second = taken(&llm);
    assert_eq!(
        second.tool_results(),
        vec![(call_id, "umbrella, shoes".to_owned())]
    );
    assert_eq!(second.messages()[1]["content"], "What do I pack for Tokyo?");
}

#[tokio::test]
async fn a_mixed_round_runs_riverses_tool_and_hands_back_the_clients() {
    let llm = OpenAiServer::start([
        ev_tool_calls(&[
            ("m1", "weather", json!({"city": "Tokyo"})),
            ("m2", "packing_list", json!({"city": "Tokyo"})),
        ]),
        ev_text("Sunny: pack light."),
    ]);
    let served = served(&llm, &[], "").await;
    let question = user("Weather and packing for Tokyo?");
    let reply = post(
        served.app(),
        "/v1/chat/completions",
        asking(question.clone(), json!({})),
    )
    .await;
    let body = reply.json();
    assert_eq!(body["choices"][0]["finish_reason"], "tool_calls", "{body}");
    let server_calls = &body["riverse"]["tool_calls"];
    assert_eq!(server_calls[0]["tool"], "weather");
    assert_eq!(server_calls[0]["data"], "Tokyo: 21°C, sunny");
    let handed = &body["choices"][0]["message"]["tool_calls"];
    assert_eq!(handed.as_array().unwrap().len(), 1, "{body}");
    assert_eq!(handed[0]["function"]["name"], "packing_list");
    let call_id = handed[0]["id"].as_str().unwrap().to_owned();

    let mut messages = question;
    let list = messages.as_array_mut().unwrap();
    list.push(body["choices"][0]["message"].clone());
    list.push(json!({"role": "tool", "tool_call_id": call_id, "content": "t-shirts"}));
    let reply = post(
        served.app(),
        "/v1/chat/completions",
        asking(messages, json!({})),
    )
    .await;
    assert_eq!(
        reply.json()["choices"][0]["message"]["content"],
        "Sunny: pack light."
    );
    // The model reads its own call's result, which the client never saw,
    // beside the client's.
    let requests = llm.requests();
    assert_eq!(
        requests[1].tool_results(),
        vec![
            ("m1".to_owned(), "Tokyo: 21°C, sunny".to_owned()),
            (call_id, "t-shirts".to_owned())
        ]
    );
}

#[tokio::test]
async fn a_streamed_client_call_comes_as_tool_call_deltas_then_the_usage_chunk() {
    let llm = OpenAiServer::start([ev_tool_call("m1", "packing_list", json!({"city": "Oslo"}))]);
    let served = served(&llm, &[], "").await;
    let reply = post(
        served.app(),
        "/v1/chat/completions",
        asking(
            user("Packing for Oslo?"),
            json!({"stream": true, "stream_options": {"include_usage": true}}),
        ),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let chunks = reply.chunks();
    let calls: Vec<&Value> = chunks
        .iter()
        .filter(|chunk| !chunk["choices"][0]["delta"]["tool_calls"].is_null())
        .collect();
    assert_eq!(calls.len(), 1, "{chunks:#?}");
    let call = &calls[0]["choices"][0]["delta"]["tool_calls"][0];
    assert_eq!(call["index"], 0);
    assert_eq!(call["function"]["name"], "packing_list");
    assert_eq!(call["function"]["arguments"], "{\"city\":\"Oslo\"}");
    let finish: Vec<&Value> = chunks
        .iter()
        .filter_map(|chunk| chunk["choices"][0]["finish_reason"].as_str().map(|_| chunk))
        .collect();
    assert_eq!(finish.len(), 1);
    assert_eq!(finish[0]["choices"][0]["finish_reason"], "tool_calls");
    let last = chunks.last().unwrap();
    assert_eq!(last["choices"], json!([]));
    assert!(
        last["usage"]["total_tokens"].as_u64().unwrap() > 0,
        "{last}"
    );
    assert!(finish[0].get("usage").is_none(), "{}", finish[0]);
}

#[tokio::test]
async fn the_choice_of_tools_reaches_the_model() {
    let llm = OpenAiServer::start([ev_text("Hello."), ev_text("Hello."), ev_text("Hello.")]);
    let served = served(&llm, &[], "").await;
    let send = |extra: Value| {
        let app = served.app();
        async move {
            let reply = post(app, "/v1/chat/completions", asking(user("hi"), extra)).await;
            assert_eq!(reply.status, 200, "{}", reply.body);
        }
    };
    send(json!({"tool_choice": "none"})).await;
    let request = taken(&llm);
    assert!(request.body.get("tools").is_none(), "{}", request.body);
    send(json!({"tool_choice": "required", "parallel_tool_calls": false})).await;
    let request = taken(&llm);
    assert_eq!(request.body["tool_choice"], "required");
    assert_eq!(request.body["parallel_tool_calls"], false);
    send(json!({"tool_choice": {"type": "function", "function": {"name": "packing_list"}}})).await;
    assert_eq!(
        taken(&llm).body["tool_choice"],
        json!({"type": "function", "function": {"name": "packing_list"}})
    );
}

#[tokio::test]
async fn legacy_functions_get_a_function_call() {
    let llm = OpenAiServer::start([ev_tool_call("m1", "packing_list", json!({"city": "Rome"}))]);
    let served = served(&llm, &[], "").await;
    let body = json!({
        "messages": user("Packing for Rome?"),
        "functions": [packing_list()["function"].clone()],
    });
    let reply = post(served.app(), "/v1/chat/completions", body).await;
    let body = reply.json();
    assert_eq!(
        body["choices"][0]["finish_reason"], "function_call",
        "{body}"
    );
    assert_eq!(
        body["choices"][0]["message"]["function_call"],
        json!({"name": "packing_list", "arguments": "{\"city\":\"Rome\"}"})
    );
}

#[tokio::test]
async fn a_bad_client_tool_is_a_400_that_names_it() {
    let llm = OpenAiServer::start([]);
    let served = served(&llm, &[], "").await;
    let cases = [
        (
            json!({"messages": user("hi"), "tools": [{"type": "function", "function": {"name": "weather"}}]}),
            "tools[0].function.name",
            "\"weather\" is the name of one of Riverse's own tools",
        ),
        (
            json!({"messages": user("hi"), "tools": [packing_list(), packing_list()]}),
            "tools[1].function.name",
            "\"packing_list\" is offered twice",
        ),
        (
            json!({"messages": user("hi"), "tools": [{"type": "function", "function": {"name": "two words"}}]}),
            "tools[0].function.name",
            "is not a function name",
        ),
        (
            json!({"messages": user("hi"), "tools": [packing_list()],
                   "tool_choice": {"type": "function", "function": {"name": "nope"}}}),
            "tool_choice.function.name",
            "\"nope\" is neither one of the request's tools nor Riverse's",
        ),
    ];
    for (body, param, message) in cases {
        let reply = post(served.app(), "/v1/chat/completions", body).await;
        assert_eq!(reply.status, 400, "{}", reply.body);
        let error = &reply.json()["error"];
        assert_eq!(error["param"], param, "{error}");
        assert!(
            error["message"].as_str().unwrap().contains(message),
            "{error}"
        );
    }
    assert!(llm.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_package_runs_its_own_tool_beside_riverses() {
    let llm = OpenAiServer::start([
        ev_tool_calls(&[
            ("m1", "weather", json!({"city": "Tokyo"})),
            ("m2", "packing_list", json!({"city": "Tokyo"})),
        ]),
        ev_text("Sunny; take the umbrella anyway."),
        ev_tool_call("m3", "packing_list", json!({"city": "Oslo"})),
        ev_text("Take the umbrella."),
    ]);
    let served = served(&llm, &[], "").await;
    let server = Listening::start(served.state.clone()).await;
    let seen = python("openai_client_tools.py", vec![format!("{}/v1", server.url)]).await;
    assert_eq!(
        seen,
        json!({
            "whole": {
                "finish_reason": "tool_calls",
                "calls": [["packing_list", {"city": "Tokyo"}]],
                "server_calls": ["weather"],
                "answer": "Sunny; take the umbrella anyway.",
                "usage": true,
            },
            "streamed": {
                "finish_reason": "tool_calls",
                "calls": [["packing_list", {"city": "Oslo"}]],
                "usage": true,
                "answer": "Take the umbrella.",
            },
        })
    );
    let requests = llm.requests();
    assert_eq!(
        requests[1].tool_results()[1].1,
        "umbrella for Tokyo",
        "{:?}",
        requests[1].tool_results()
    );
    assert!(server.stop().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_embedded_default_routes_a_client_tool_and_answers_from_its_result() {
    let project = riverse_test_support::Project::new();
    project.fixture("weather.py");
    project.settings("");
    let served = serve_project(project, &Backend::Sqlite, Liveness::default(), |_| {}).await;
    let question = user("What should I pack for a trip to Tokyo?");
    let reply = post(
        served.app(),
        "/v1/chat/completions",
        asking(
            question.clone(),
            json!({"tool_choice": {"type": "function", "function": {"name": "packing_list"}}}),
        ),
    )
    .await;
    let body = reply.json();
    let message = &body["choices"][0]["message"];
    assert_eq!(body["choices"][0]["finish_reason"], "tool_calls", "{body}");
    let call = &message["tool_calls"][0];
    assert_eq!(call["function"]["name"], "packing_list");
    let arguments: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments["city"], "Tokyo", "{arguments}");
    assert!(
        body["usage"]["prompt_tokens"].as_u64().unwrap() > 0,
        "{body}"
    );

    let mut messages = question;
    let list = messages.as_array_mut().unwrap();
    list.push(message.clone());
    list.push(json!({"role": "tool", "tool_call_id": call["id"], "content": "an umbrella and light shirts"}));
    let reply = post(
        served.app(),
        "/v1/chat/completions",
        asking(messages, json!({})),
    )
    .await;
    let body = reply.json();
    let answer = body["choices"][0]["message"]["content"].as_str().unwrap();
    assert!(answer.contains("an umbrella and light shirts"), "{body}");
}

#[tokio::test]
async fn another_replica_goes_on_from_a_mixed_round_with_both_results() {
    let Some(url) = riverse_test_support::postgres::fresh_postgres_url().await else {
        return;
    };
    let llm = OpenAiServer::start([
        ev_tool_calls(&[
            ("m1", "weather", json!({"city": "Tokyo"})),
            ("m2", "packing_list", json!({"city": "Tokyo"})),
        ]),
        ev_text("Sunny: pack light."),
    ]);
    let backend = Backend::Postgres(url);
    let first = served_on(&backend, &llm.url(), &[], "").await;
    let second = served_on(&backend, &llm.url(), &[], "").await;
    let question = user("Weather and packing for Tokyo?");
    let reply = post(
        first.app(),
        "/v1/chat/completions",
        asking(question.clone(), json!({})),
    )
    .await;
    let message = reply.json()["choices"][0]["message"].clone();
    let call_id = message["tool_calls"][0]["id"].as_str().unwrap().to_owned();
    let mut messages = question;
    let list = messages.as_array_mut().unwrap();
    list.push(message);
    list.push(json!({"role": "tool", "tool_call_id": call_id, "content": "t-shirts"}));
    let reply = post(
        second.app(),
        "/v1/chat/completions",
        asking(messages, json!({})),
    )
    .await;
    assert_eq!(
        reply.json()["choices"][0]["message"]["content"],
        "Sunny: pack light."
    );
    assert_eq!(
        llm.requests()[1].tool_results(),
        vec![
            ("m1".to_owned(), "Tokyo: 21°C, sunny".to_owned()),
            (call_id, "t-shirts".to_owned())
        ]
    );
}
