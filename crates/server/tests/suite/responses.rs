//! `/v1/responses`: OpenAI's Responses API over the agent. Riverse's calls
//! as `mcp_call` items, the client's function tools handed back as
//! `function_call` items and gone on from by `previous_response_id` (stored,
//! shared through the database) or by the client sending every item again.

use pretty_assertions::assert_eq;
use riverse_test_support::openai::{
    OpenAiServer, Request, ev_status, ev_text, ev_tool_call, ev_tool_calls,
};
use riverse_test_support::postgres::fresh_postgres_url;
use serde_json::{Value, json};

use super::clients::{Listening, python};
use super::support::{Backend, Reply, get, post, send, served, served_on};

/// The client's tool, in the Responses API's flat shape.
fn packing_list() -> Value {
    json!({
        "type": "function",
        "name": "packing_list",
        "description": "Lists what to pack for a trip",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "Where to"}},
            "required": ["city"]
        },
        "strict": true
    })
}

/// A request for `input` offering the client's tool, with `extra` fields.
fn asking(input: Value, extra: Value) -> Value {
    let mut body = json!({"model": "gpt-4.1", "input": input, "tools": [packing_list()]});
    for (key, value) in extra.as_object().cloned().unwrap_or_default() {
        body[key] = value;
    }
    body
}

/// A 200's body.
fn ok(reply: &Reply) -> Value {
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.json()
}

/// The one request the model was sent since the last look.
fn taken(llm: &OpenAiServer) -> Request {
    let mut requests = llm.take_requests();
    assert_eq!(requests.len(), 1, "{requests:#?}");
    requests.remove(0)
}

/// The events of a streamed response; each `event:` line names its data's
/// type, and the sequence numbers count from 0.
fn events(reply: &Reply) -> Vec<Value> {
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.headers["content-type"], "text/event-stream");
    let events: Vec<Value> = reply
        .body
        .split("\n\n")
        .filter(|frame| !frame.is_empty())
        .map(|frame| {
            let (name, data) = frame.split_once('\n').unwrap();
            let event: Value = serde_json::from_str(data.strip_prefix("data: ").unwrap()).unwrap();
            assert_eq!(name.strip_prefix("event: "), event["type"].as_str());
            event
        })
        .collect();
    for (number, event) in events.iter().enumerate() {
        assert_eq!(event["sequence_number"], number, "{event}");
    }
    events
}

/// The events' types, a run of text deltas told once (how the text is cut
/// is the LLM's).
fn kinds(events: &[Value]) -> Vec<&str> {
    let mut kinds: Vec<&str> = Vec::new();
    for event in events {
        let kind = event["type"].as_str().unwrap();
        if kind != "response.output_text.delta" || kinds.last() != Some(&kind) {
            kinds.push(kind);
        }
    }
    kinds
}

/// The response that ends a stream.
fn completed(events: &[Value]) -> Value {
    let last = events.last().unwrap();
    assert_eq!(last["type"], "response.completed", "{last}");
    last["response"].clone()
}

/// The items without their random ids, and the calls' without durations.
fn shapes(output: &Value) -> Vec<Value> {
    output
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            let mut item = item.clone();
            let id = item.as_object_mut().unwrap().remove("id").unwrap();
            let prefix = match item["type"].as_str().unwrap() {
                "message" => "msg_",
                "mcp_call" => "mcp_",
                _ => "fc_",
            };
            assert!(id.as_str().unwrap().starts_with(prefix), "{id}");
            item
        })
        .collect()
}

fn message(text: &str) -> Value {
    json!({"type": "message", "status": "completed", "role": "assistant",
           "content": [{"type": "output_text", "text": text, "annotations": []}]})
}

fn weather_call(call_id: &str, city: &str, output: &str) -> Value {
    json!({"type": "mcp_call", "call_id": call_id, "server_label": "riverse", "name": "weather",
           "arguments": json!({"city": city}).to_string(), "output": output, "error": null,
           "status": "completed"})
}

/// The `(name, parameters)` of each tool the model was offered.
fn offered(request: &Request) -> Vec<(String, Value)> {
    request.body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| {
            let function = &tool["function"];
            (
                function["name"].as_str().unwrap().to_owned(),
                function["parameters"].clone(),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_text_answer_is_one_message_with_its_usage() {
    let llm = OpenAiServer::start([ev_text("Hello there.")]);
    let served = served(&llm, &[], "").await;
    let body = ok(&post(
        served.app(),
        "/v1/responses",
        json!({"model": "gpt-4.1", "input": "Hi", "instructions": "Be brief.",
               "temperature": 0.3, "max_output_tokens": 100, "reasoning": {"effort": "low"},
               "metadata": {"trip": "none"}}),
    )
    .await);
    assert!(body["id"].as_str().unwrap().starts_with("resp_"), "{body}");
    assert!(body["created_at"].as_u64().unwrap() > 1_700_000_000);
    assert_eq!(
        (&body["object"], &body["status"], &body["model"]),
        (&json!("response"), &json!("completed"), &json!("gpt-4.1"))
    );
    assert_eq!(shapes(&body["output"]), vec![message("Hello there.")]);
    assert_eq!(
        body["usage"],
        json!({"input_tokens": 10, "output_tokens": 12, "total_tokens": 22,
               "input_tokens_details": {"cached_tokens": 0},
               "output_tokens_details": {"reasoning_tokens": 0}})
    );
    assert_eq!(
        (&body["instructions"], &body["metadata"], &body["store"]),
        (&json!("Be brief."), &json!({"trip": "none"}), &json!(true))
    );
    assert_eq!(
        body["riverse"],
        json!({"tool_calls": [], "skills": [], "ignored_tools": []})
    );
    let asked = taken(&llm).roles_and_contents();
    assert_eq!(
        asked[1..].to_vec(),
        vec![
            ("system".to_owned(), "Be brief.".to_owned()),
            ("user".to_owned(), "Hi".to_owned()),
        ]
    );
}

#[tokio::test]
async fn a_streamed_answer_sends_openais_events_in_order() {
    let llm = OpenAiServer::start([ev_text("Hello there.")]);
    let served = served(&llm, &[], "").await;
    let reply = post(
        served.app(),
        "/v1/responses",
        json!({"input": "Hi", "stream": true}),
    )
    .await;
    assert!(!reply.body.contains("[DONE]"));
    let events = events(&reply);
    assert_eq!(
        kinds(&events),
        vec![
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.content_part.added",
            "response.output_text.delta",
            "response.output_text.done",
            "response.content_part.done",
            "response.output_item.done",
            "response.completed",
        ]
    );
    let created = &events[0]["response"];
    assert_eq!(
        (&created["status"], &created["output"], &created["model"]),
        (&json!("in_progress"), &json!([]), &json!("riverse"))
    );
    let added = &events[2];
    assert_eq!(
        (&added["item"]["status"], &added["item"]["content"]),
        (&json!("in_progress"), &json!([]))
    );
    assert_eq!(events[3]["part"]["text"], "");
    let deltas: String = events
        .iter()
        .filter(|event| event["type"] == "response.output_text.delta")
        .map(|event| {
            assert_eq!(
                (
                    &event["item_id"],
                    &event["output_index"],
                    &event["content_index"]
                ),
                (&added["item"]["id"], &json!(0), &json!(0))
            );
            event["delta"].as_str().unwrap()
        })
        .collect();
    assert_eq!(deltas, "Hello there.");
    let response = completed(&events);
    assert_eq!(response["id"], created["id"]);
    assert_eq!(shapes(&response["output"]), vec![message("Hello there.")]);
    assert_eq!(response["output"][0]["id"], added["item"]["id"]);
    assert_eq!(response["usage"]["total_tokens"], 22);
    // What the stream ended with is what is kept.
    let kept = ok(&get(
        served.app(),
        &format!("/v1/responses/{}", response["id"].as_str().unwrap()),
    )
    .await);
    assert_eq!(kept, response);
}

#[tokio::test]
async fn riverses_own_call_is_an_mcp_call_before_the_message_streamed_or_not() {
    let llm = OpenAiServer::start([
        ev_tool_call("c1", "weather", json!({"city": "Tokyo"})),
        ev_text("Sunny in Tokyo."),
        ev_tool_call("c2", "weather", json!({"city": "Tokyo"})),
        ev_text("Sunny in Tokyo."),
    ]);
    let served = served(&llm, &[], "").await;
    let whole = ok(&post(
        served.app(),
        "/v1/responses",
        json!({"input": "Weather in Tokyo?"}),
    )
    .await);
    let expected = vec![
        weather_call("c1", "Tokyo", "Tokyo: 21°C, sunny"),
        message("Sunny in Tokyo."),
    ];
    assert_eq!(shapes(&whole["output"]), expected);
    let call = &whole["riverse"]["tool_calls"][0];
    assert_eq!(
        (&call["tool"], &call["data"], &call["success"]),
        (
            &json!("weather"),
            &json!("Tokyo: 21°C, sunny"),
            &json!(true)
        )
    );
    let events = events(
        &post(
            served.app(),
            "/v1/responses",
            json!({"input": "Weather in Tokyo?", "stream": true}),
        )
        .await,
    );
    assert_eq!(
        kinds(&events),
        vec![
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.output_item.done",
            "response.output_item.added",
            "response.content_part.added",
            "response.output_text.delta",
            "response.output_text.done",
            "response.content_part.done",
            "response.output_item.done",
            "response.completed",
        ]
    );
    let started = &events[2]["item"];
    assert_eq!(
        (&started["type"], &started["status"], &started["output"]),
        (&json!("mcp_call"), &json!("in_progress"), &Value::Null)
    );
    assert_eq!(events[3]["item"]["id"], started["id"]);
    // The stream and the whole reply list the same items, but for the
    // model's id for its call.
    let mut streamed = shapes(&completed(&events)["output"]);
    assert_eq!(streamed[0]["call_id"], "c2");
    streamed[0]["call_id"] = json!("c1");
    assert_eq!(streamed, expected);
    let results = llm.requests()[1].tool_results();
    assert_eq!(
        results,
        vec![("c1".to_owned(), "Tokyo: 21°C, sunny".to_owned())]
    );
}

#[tokio::test]
async fn a_client_tool_call_is_handed_back_and_previous_response_id_goes_on_from_its_output() {
    let llm = OpenAiServer::start([
        ev_tool_call("m1", "packing_list", json!({"city": "Tokyo"})),
        ev_text("Pack an umbrella."),
    ]);
    let served = served(&llm, &[], "").await;
    let first = ok(&post(
        served.app(),
        "/v1/responses",
        asking(
            json!("What do I pack for Tokyo?"),
            json!({"tools": [{"type": "web_search"}, packing_list(), {"type": "local_shell"}],
                   "instructions": "Be brief."}),
        ),
    )
    .await);
    let output = shapes(&first["output"]);
    assert_eq!(output.len(), 1, "{output:?}");
    let call_id = output[0]["call_id"].as_str().unwrap().to_owned();
    assert!(call_id.starts_with("call_") && call_id != "m1", "{call_id}");
    assert_eq!(
        output[0],
        json!({"type": "function_call", "call_id": call_id, "name": "packing_list",
               "arguments": "{\"city\":\"Tokyo\"}", "status": "completed"})
    );
    assert_eq!(
        first["riverse"]["ignored_tools"],
        json!(["web_search", "local_shell"])
    );
    assert_eq!(first["tools"][1], packing_list());
    let shown = taken(&llm);
    assert!(
        shown
            .roles_and_contents()
            .contains(&("system".to_owned(), "Be brief.".to_owned()))
    );
    let tools = offered(&shown);
    assert!(tools.iter().any(|(name, _)| name == "weather"), "{tools:?}");
    assert_eq!(
        tools
            .iter()
            .find(|(name, _)| name == "packing_list")
            .unwrap()
            .1,
        packing_list()["parameters"]
    );
    assert_eq!(tools.len(), 2, "{tools:?}");
    let id = first["id"].as_str().unwrap();
    let second = ok(&post(
        served.app(),
        "/v1/responses",
        asking(
            json!([{"type": "function_call_output", "call_id": call_id, "output": "umbrella, shoes"}]),
            json!({"previous_response_id": id}),
        ),
    )
    .await);
    assert_eq!(
        shapes(&second["output"]),
        vec![message("Pack an umbrella.")]
    );
    assert_eq!(second["previous_response_id"], id);
    let asked = taken(&llm);
    // The instructions were the first response's only, as OpenAI has them.
    assert!(
        !asked
            .roles_and_contents()
            .contains(&("system".to_owned(), "Be brief.".to_owned()))
    );
    assert_eq!(
        asked.tool_results(),
        vec![(call_id.clone(), "umbrella, shoes".to_owned())]
    );
    assert!(
        asked
            .roles_and_contents()
            .contains(&("user".to_owned(), "What do I pack for Tokyo?".to_owned())),
        "{:?}",
        asked.roles_and_contents()
    );
    // GET gives each back as it was returned; DELETE forgets one.
    let second_id = second["id"].as_str().unwrap();
    let kept = ok(&get(served.app(), &format!("/v1/responses/{second_id}")).await);
    assert_eq!(kept, second);
    let path = format!("/v1/responses/{id}");
    assert_eq!(ok(&get(served.app(), &path).await), first);
    let deleted = ok(&send(served.app(), "DELETE", &path, None, None).await);
    assert_eq!(
        deleted,
        json!({"id": id, "object": "response", "deleted": true})
    );
    assert_eq!(get(served.app(), &path).await.status, 404);
    assert_eq!(
        send(served.app(), "DELETE", &path, None, None).await.status,
        404
    );
}

#[tokio::test]
async fn without_store_the_client_sends_every_item_again() {
    let llm = OpenAiServer::start([
        ev_tool_call("m1", "packing_list", json!({"city": "Tokyo"})),
        ev_text("Pack an umbrella."),
    ]);
    let served = served(&llm, &[], "").await;
    let user = json!({"role": "user", "content": [{"type": "input_text", "text": "What do I pack for Tokyo?"}]});
    let first = ok(&post(
        served.app(),
        "/v1/responses",
        asking(json!([user]), json!({"store": false})),
    )
    .await);
    assert_eq!(first["store"], false);
    let id = first["id"].as_str().unwrap();
    assert_eq!(
        get(served.app(), &format!("/v1/responses/{id}"))
            .await
            .status,
        404
    );
    let call = first["output"][0].clone();
    let call_id = call["call_id"].as_str().unwrap().to_owned();
    llm.take_requests();
    let second = ok(&post(
        served.app(),
        "/v1/responses",
        asking(
            json!([user, call, {"type": "function_call_output", "call_id": call_id,
                                "output": [{"type": "input_text", "text": "umbrella"}]}]),
            json!({"store": false}),
        ),
    )
    .await);
    assert_eq!(
        shapes(&second["output"]),
        vec![message("Pack an umbrella.")]
    );
    let asked = taken(&llm);
    assert_eq!(asked.tool_results(), vec![(call_id, "umbrella".to_owned())]);
    assert_eq!(
        asked.roles_and_contents()[1],
        ("user".to_owned(), "What do I pack for Tokyo?".to_owned())
    );
}

#[tokio::test]
async fn a_round_of_both_kinds_of_call_gives_both_results_to_the_next() {
    let llm = OpenAiServer::start([
        ev_tool_calls(&[
            ("w1", "weather", json!({"city": "Tokyo"})),
            ("p1", "packing_list", json!({"city": "Tokyo"})),
        ])
        .with_text("Checking."),
        ev_text("Sunny: pack sunglasses and shoes."),
    ]);
    let served = served(&llm, &[], "").await;
    let events = events(
        &post(
            served.app(),
            "/v1/responses",
            asking(json!("Pack for Tokyo?"), json!({"stream": true})),
        )
        .await,
    );
    assert_eq!(
        kinds(&events),
        vec![
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.content_part.added",
            "response.output_text.delta",
            "response.output_text.done",
            "response.content_part.done",
            "response.output_item.done",
            "response.output_item.added",
            "response.output_item.done",
            "response.output_item.added",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.done",
            "response.output_item.done",
            "response.completed",
        ]
    );
    let handed = events
        .iter()
        .position(|event| event["type"] == "response.function_call_arguments.delta")
        .unwrap();
    assert_eq!(events[handed - 1]["item"]["arguments"], "");
    assert_eq!(events[handed]["delta"], "{\"city\":\"Tokyo\"}");
    let first = completed(&events);
    let output = shapes(&first["output"]);
    assert_eq!(output.len(), 3, "{output:?}");
    assert_eq!(output[0], message("Checking."));
    assert_eq!(output[1], weather_call("w1", "Tokyo", "Tokyo: 21°C, sunny"));
    assert_eq!(output[2]["name"], "packing_list");
    let call_id = output[2]["call_id"].as_str().unwrap().to_owned();
    llm.take_requests();
    let second = ok(&post(
        served.app(),
        "/v1/responses",
        asking(
            json!([{"type": "function_call_output", "call_id": call_id, "output": "shoes"}]),
            json!({"previous_response_id": first["id"]}),
        ),
    )
    .await);
    assert_eq!(
        shapes(&second["output"]),
        vec![message("Sunny: pack sunglasses and shoes.")]
    );
    let asked = taken(&llm);
    assert_eq!(
        asked.tool_results(),
        vec![
            ("w1".to_owned(), "Tokyo: 21°C, sunny".to_owned()),
            (call_id, "shoes".to_owned()),
        ]
    );
    assert_eq!(asked.messages()[2]["content"], "Checking.");
}

#[tokio::test]
async fn a_call_that_needs_an_approval_is_refused_saying_why() {
    let llm = OpenAiServer::start([
        ev_tool_call("c1", "weather", json!({"city": "Tokyo"})),
        ev_text("I may not look."),
    ]);
    let served = served(&llm, &[], "tools: {weather: {approval: ask}}").await;
    let body = ok(&post(
        served.app(),
        "/v1/responses",
        json!({"input": "Weather in Tokyo?"}),
    )
    .await);
    let call = &body["output"][0];
    assert_eq!(
        (&call["type"], &call["status"], &call["output"]),
        (&json!("mcp_call"), &json!("failed"), &Value::Null)
    );
    let error = call["error"].as_str().unwrap();
    assert!(
        error.contains("/v1/responses has nobody to ask for an approval"),
        "{error}"
    );
}

#[tokio::test]
async fn a_turn_failing_before_its_first_event_fails_the_request_and_after_it_the_stream() {
    let llm = OpenAiServer::start([
        ev_status(500, "the model fell over"),
        ev_tool_call("c1", "weather", json!({"city": "Tokyo"})),
        ev_status(500, "the model fell over"),
    ]);
    let served = served(&llm, &[], "").await;
    let body = json!({"input": "Weather in Tokyo?", "stream": true});
    let refused = post(served.app(), "/v1/responses", body.clone()).await;
    assert_eq!(refused.status, 502, "{}", refused.body);
    assert_eq!(refused.json()["error"]["code"], "llm_unavailable");
    let events = events(&post(served.app(), "/v1/responses", body).await);
    let last = events.last().unwrap();
    assert_eq!(last["type"], "response.failed");
    let response = &last["response"];
    assert_eq!(
        (&response["status"], &response["error"]["code"]),
        (&json!("failed"), &json!("llm_unavailable"))
    );
    assert_eq!(
        shapes(&response["output"]),
        vec![weather_call("c1", "Tokyo", "Tokyo: 21°C, sunny")]
    );
    let id = response["id"].as_str().unwrap();
    let kept = ok(&get(served.app(), &format!("/v1/responses/{id}")).await);
    assert_eq!(&kept, response);
}

#[tokio::test]
async fn an_unknown_previous_response_is_a_404_in_openais_shape() {
    let llm = OpenAiServer::start([]);
    let served = served(&llm, &[], "").await;
    let reply = post(
        served.app(),
        "/v1/responses",
        json!({"input": "hi", "previous_response_id": "resp_none"}),
    )
    .await;
    assert_eq!(reply.status, 404, "{}", reply.body);
    let error = &reply.json()["error"];
    assert_eq!(
        (&error["code"], &error["param"], &error["type"]),
        (
            &json!("previous_response_not_found"),
            &json!("previous_response_id"),
            &json!("invalid_request_error")
        )
    );
    let unknown = get(served.app(), "/v1/responses/resp_none").await;
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.json()["error"]["code"], "not_found");
}

#[tokio::test]
async fn malformed_input_is_a_400_naming_the_field() {
    let llm = OpenAiServer::start([]);
    let served = served(&llm, &[], "").await;
    let user = json!({"role": "user", "content": "hi"});
    let cases = [
        (json!({}), "input"),
        (
            json!({"input": [{"type": "computer_call", "id": "cu_1"}]}),
            "input[0].type",
        ),
        (
            json!({"input": [{"role": "user", "content": [{"type": "input_image", "image_url": "x"}]}]}),
            "input[0].content[0].type",
        ),
        (
            json!({"input": [user, {"type": "function_call_output", "call_id": "call_9", "output": "r"}]}),
            "input[1].call_id",
        ),
        (
            json!({"input": [user, {"type": "function_call", "call_id": "call_1", "name": "f",
                                    "arguments": "{}"}]}),
            "input[1]",
        ),
        (
            json!({"input": [user, {"role": "assistant", "content": "hello"}]}),
            "input[1]",
        ),
        (
            json!({"input": "hi", "tools": [{"type": "function", "name": "weather"}]}),
            "tools[0].name",
        ),
        (
            json!({"input": "hi", "tools": [packing_list(), packing_list()]}),
            "tools[1].name",
        ),
        (
            json!({"input": "hi", "tool_choice": {"type": "function", "name": "nothing"}}),
            "tool_choice.name",
        ),
    ];
    for (body, param) in cases {
        let reply = post(served.app(), "/v1/responses", body.clone()).await;
        assert_eq!(reply.status, 400, "{body}: {}", reply.body);
        let error = &reply.json()["error"];
        assert_eq!(error["param"], param, "{body}: {error}");
        assert_eq!(error["type"], "invalid_request_error");
    }
    let clash = post(
        served.app(),
        "/v1/responses",
        json!({"input": "hi", "tools": [{"type": "function", "name": "weather"}]}),
    )
    .await;
    let message = clash.json()["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(message.contains("one of Riverse's own tools"), "{message}");
}

#[tokio::test]
async fn a_response_kept_by_one_server_is_gone_on_from_by_another_on_the_same_postgres() {
    let Some(url) = fresh_postgres_url().await else {
        return;
    };
    let llm = OpenAiServer::start([
        ev_tool_call("m1", "packing_list", json!({"city": "Tokyo"})),
        ev_text("Pack an umbrella."),
    ]);
    let first = served_on(&Backend::Postgres(url.clone()), &llm.url(), &[], "").await;
    let second = served_on(&Backend::Postgres(url), &llm.url(), &[], "").await;
    let asked = ok(&post(
        first.app(),
        "/v1/responses",
        asking(json!("What do I pack for Tokyo?"), json!({})),
    )
    .await);
    let call_id = asked["output"][0]["call_id"].as_str().unwrap().to_owned();
    llm.take_requests();
    let answered = ok(&post(
        second.app(),
        "/v1/responses",
        asking(
            json!([{"type": "function_call_output", "call_id": call_id, "output": "umbrella"}]),
            json!({"previous_response_id": asked["id"]}),
        ),
    )
    .await);
    assert_eq!(
        shapes(&answered["output"]),
        vec![message("Pack an umbrella.")]
    );
    let request = taken(&llm);
    assert_eq!(
        request.tool_results(),
        vec![(call_id, "umbrella".to_owned())]
    );
    assert_eq!(
        request.roles_and_contents()[1],
        ("user".to_owned(), "What do I pack for Tokyo?".to_owned())
    );
    let id = answered["id"].as_str().unwrap();
    assert_eq!(
        ok(&get(first.app(), &format!("/v1/responses/{id}")).await),
        answered
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_package_makes_a_function_tool_round_trip_streamed_and_not() {
    let llm = OpenAiServer::start([
        ev_tool_call("m1", "packing_list", json!({"city": "Tokyo"})),
        ev_text("Pack an umbrella."),
        ev_tool_call("m2", "packing_list", json!({"city": "Paris"})),
        ev_text("Pack a scarf."),
    ]);
    let served = served(&llm, &[], "").await;
    let server = Listening::start(served.state.clone()).await;
    let seen = python("responses_client.py", vec![format!("{}/v1", server.url)]).await;
    assert_eq!(
        seen,
        json!({
            "call": ["packing_list", {"city": "Tokyo"}, "completed"],
            "text": "Pack an umbrella.",
            "counted": true,
            "retrieved": "Pack an umbrella.",
            "kinds": ["response.created", "response.in_progress", "response.output_item.added",
                      "response.function_call_arguments.delta",
                      "response.function_call_arguments.done", "response.output_item.done",
                      "response.completed"],
            "streamed_call": ["packing_list", {"city": "Paris"}],
            "deltas": "Pack a scarf.",
            "streamed_text": "Pack a scarf.",
        })
    );
    let last = llm.requests().pop().unwrap();
    assert_eq!(last.tool_results()[0].1, "scarf");
    assert!(server.stop().await);
}
