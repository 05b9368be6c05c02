//! Typed input and output through the OpenAI-compatible API: the model is
//! shown a tool's own input schema whole, reads its result's text, and a
//! client sees the structured result beside it, on a completion's
//! `riverse.tool_calls` and on a response's `mcp_call` item.

use pretty_assertions::assert_eq;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call};
use serde_json::{Value, json};

use super::support::{ask, post, served};

fn order() -> Value {
    json!({"size": "large", "deliver_to": {"city": "Oslo"}})
}

fn receipt() -> Value {
    json!({"size": "large", "quantity": 1, "total": 14.0, "city": "Oslo"})
}

#[tokio::test]
async fn a_completions_call_carries_its_structured_result_and_the_model_reads_the_text() {
    let llm = OpenAiServer::start([
        ev_tool_call("c1", "order_pizza", order()),
        ev_text("Ordered."),
    ]);
    let served = served(&llm, &["order_pizza.py"], "").await;
    let reply = post(
        served.app(),
        "/v1/chat/completions",
        ask("A large pizza to Oslo", false),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let call = &reply.json()["riverse"]["tool_calls"][0];
    assert_eq!(call["data"], "1 large to Oslo: 14.00 EUR");
    assert_eq!(call["structured"], receipt());

    let requests = llm.requests();
    let offered = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["function"]["name"] == "order_pizza")
        .cloned()
        .unwrap();
    let schema = &offered["function"]["parameters"];
    assert_eq!(
        schema["$defs"]["address"]["required"],
        json!(["city"]),
        "{offered}"
    );
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(
        requests[1].tool_results(),
        vec![("c1".to_owned(), "1 large to Oslo: 14.00 EUR".to_owned())]
    );
}

#[tokio::test]
async fn a_responses_mcp_call_item_carries_the_structured_result() {
    let llm = OpenAiServer::start([
        ev_tool_call("c1", "order_pizza", order()),
        ev_text("Ordered."),
    ]);
    let served = served(&llm, &["order_pizza.py"], "").await;
    let reply = post(
        served.app(),
        "/v1/responses",
        json!({"model": "riverse", "input": "A large pizza to Oslo"}),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let body = reply.json();
    let item = &body["output"][0];
    assert_eq!(item["type"], "mcp_call", "{body}");
    assert_eq!(item["output"], "1 large to Oslo: 14.00 EUR");
    assert_eq!(item["structured"], receipt());
}
