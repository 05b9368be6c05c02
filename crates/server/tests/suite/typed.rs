//! Typed input and output through the OpenAI-compatible API: the model is
//! shown a tool's own input schema whole, reads its result's text, and a
//! client sees the structured result beside it, on a completion's
//! `riverse.tool_calls` and on a response's `mcp_call` item; the chat page
//! shows it on the call's card.

use pretty_assertions::assert_eq;
use riverse_store::Liveness;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call, ev_tool_calls};
use riverse_test_support::{Project, chromium_or_skip, simple_tool};
use serde_json::{Value, json};

use super::clients::{Listening, python};
use super::support::{Backend, ask, post, serve_project, served, settings_yaml};

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

/// A tool whose structured result is long, with markup in it.
const MENU: &str = r#"
items = [f"pizza {n}" for n in range(30)]
note = "<b>hot</b><img src=x onerror=\"document.title='pwned'\">"
return ToolResult(True, "30 pizzas", structured={"note": note, "items": items})
"#;

fn menu() -> Value {
    let items: Vec<String> = (0..30).map(|n| format!("pizza {n}")).collect();
    json!({"note": "<b>hot</b><img src=x onerror=\"document.title='pwned'\">", "items": items})
}

/// Where the page test leaves its screenshots.
fn screenshots() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("page-structured")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_shows_a_calls_structured_result_on_its_card_folded_when_long() {
    if !chromium_or_skip() {
        return;
    }
    let llm = OpenAiServer::start([
        ev_tool_calls(&[("c1", "order_pizza", order()), ("c2", "menu", json!({}))]),
        ev_text("Ordered."),
    ]);
    let project = Project::new();
    project.fixture("order_pizza.py");
    project.tool("menu.py", &simple_tool("menu", MENU));
    project.settings(&settings_yaml(&llm.url(), ""));
    let served = serve_project(project, &Backend::Sqlite, Liveness::default(), |_| {}).await;
    let server = Listening::start(served.state.clone()).await;
    let seen = python(
        "page_structured.py",
        vec![
            format!("{}/", server.url),
            screenshots().display().to_string(),
        ],
    )
    .await;
    // The page reads 14.0 as JavaScript does, 14.
    let receipt = json!({"size": "large", "quantity": 1, "total": 14, "city": "Oslo"});
    let shown = |menu_open: bool| {
        json!({
            "cards": [
                {"tool": "order_pizza", "element": "pre", "open": true, "seen": true,
                 "label": "structured: ", "json": receipt, "markup": 0},
                {"tool": "menu", "element": "details", "open": menu_open, "seen": menu_open,
                 "label": "structured: ", "json": menu(), "markup": 0},
            ],
            "title": "Riverse",
        })
    };
    assert_eq!(seen["streamed"], shown(false));
    assert_eq!(seen["opened"], shown(true));
    assert_eq!(seen["reloaded"], shown(false));
    assert!(server.stop().await);
}
