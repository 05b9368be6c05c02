//! Typed input and output: a Python tool's own JSON Schemas checked by the
//! registry and served whole over MCP, where the official Python SDK's
//! client reads `outputSchema` and `structuredContent`; and an SDK server's
//! structured results read as a tool source, its text and its data both.

use std::path::Path;
use std::time::Duration;

use pretty_assertions::assert_eq;
use riverse_test_support::venv::mcp_python;
use riverse_tool::{FailureKind, Registry, ToolResult};
use serde_json::{Value, json};

use super::served::{project, serve, talk};
use super::server::python_registry;
use super::source::{params, registry, stdio};

const TIMEOUT: Duration = Duration::from_secs(120);

fn order_input_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"address": {
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": false
        }},
        "properties": {
            "size": {"enum": ["small", "large"], "description": "How big"},
            "quantity": {"type": "integer", "minimum": 1},
            "deliver_to": {"$ref": "#/$defs/address"}
        },
        "required": ["size"],
        "additionalProperties": false
    })
}

fn order_output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "size": {"type": "string"},
            "quantity": {"type": "integer"},
            "total": {"type": "number"},
            "city": {"type": ["string", "null"]}
        },
        "required": ["size", "quantity", "total"]
    })
}

async fn call(registry: &Registry, tool: &str, arguments: Value) -> ToolResult {
    registry.call(tool, params(arguments)).await.unwrap()
}

async fn order(registry: &Registry, arguments: Value) -> ToolResult {
    registry
        .call("order_pizza", params(arguments))
        .await
        .unwrap()
}

const BAD_ARGUMENTS: &str = "tool \"order_pizza\": the arguments do not fit its input_schema: \
    at /deliver_to: additionalProperties 'zip' not allowed; \
    at /deliver_to/city: want string, but got number; \
    at /size: value must be one of 'small', 'large'";

const BAD_RECEIPT: &str = "tool \"order_pizza\": its structured result does not fit its \
    output_schema: at /total: want number, but got string";

#[tokio::test]
async fn a_python_tools_arguments_and_structured_result_are_checked_against_its_schemas() {
    let project = project(&[]);
    project.fixture("order_pizza.py");
    let registry = python_registry(&project, TIMEOUT).await;
    let manifest = registry.get("order_pizza").unwrap().manifest();
    assert_eq!(manifest.input_schema, Some(order_input_schema()));
    assert_eq!(manifest.output_schema, Some(order_output_schema()));

    let delivered = order(
        &registry,
        json!({"size": "large", "quantity": 2, "deliver_to": {"city": "Oslo"}}),
    )
    .await;
    assert_eq!(
        delivered.data, "2 large to Oslo: 28.00 EUR",
        "{delivered:?}"
    );
    assert_eq!(
        delivered.structured,
        Some(json!({"size": "large", "quantity": 2, "total": 28.0, "city": "Oslo"}))
    );

    // Text, as the command line gives it, is read as the schema's integer.
    let typed_in = order(&registry, json!({"size": "small", "quantity": "3"})).await;
    assert_eq!(
        typed_in.data, "3 small to collect: 28.50 EUR",
        "{typed_in:?}"
    );

    let refused = order(
        &registry,
        json!({"size": "medium", "deliver_to": {"city": 7, "zip": "0150"}}),
    )
    .await;
    assert_eq!(refused.failure_kind(), Some(FailureKind::BadParameters));
    assert_eq!(refused.error, BAD_ARGUMENTS);

    let unfit = order(&registry, json!({"size": "small", "quantity": 100})).await;
    assert_eq!(unfit.failure_kind(), Some(FailureKind::ToolError));
    assert_eq!(unfit.error, BAD_RECEIPT);
    assert_eq!(unfit.structured, None);
}

#[tokio::test]
async fn an_sdk_client_reads_the_schemas_whole_and_the_structured_content() {
    let project = project(&["test_simple_text.py"]);
    project.fixture("order_pizza.py");
    let url = serve(&project, None).await;
    let seen = talk(
        &project,
        &url,
        json!({"list": true, "calls": [
            {"tool": "order_pizza", "arguments": {"size": "small", "deliver_to": {"city": "Bergen"}}},
            {"tool": "order_pizza", "arguments": {"size": "medium", "deliver_to": {"city": 7, "zip": "0150"}}},
            {"tool": "order_pizza", "arguments": {"size": "large", "quantity": 100}},
            {"tool": "test_simple_text"}
        ]}),
    )
    .await;
    let tools = seen["tools"].as_array().unwrap();
    let listed = tools
        .iter()
        .find(|tool| tool["name"] == "order_pizza")
        .unwrap();
    assert_eq!(listed["inputSchema"], order_input_schema());
    assert_eq!(listed["outputSchema"], order_output_schema());
    let plain = tools
        .iter()
        .find(|tool| tool["name"] == "test_simple_text")
        .unwrap();
    assert_eq!(plain.get("outputSchema"), None);

    // The SDK checks structured content against the listed output schema
    // itself: a call it read is one whose content fits.
    let calls = &seen["calls"];
    assert_eq!(
        calls[0],
        json!({
            "isError": false, "text": "1 small to Bergen: 9.50 EUR", "content": [],
            "structured": {"size": "small", "quantity": 1, "total": 9.5, "city": "Bergen"},
            "progress": []
        })
    );
    assert_eq!(
        (&calls[1]["isError"], &calls[1]["text"]),
        (&json!(true), &json!(BAD_ARGUMENTS))
    );
    assert_eq!(
        (&calls[2]["isError"], &calls[2]["text"]),
        (&json!(true), &json!(BAD_RECEIPT))
    );
    assert_eq!(calls[2].get("structured"), None);
    assert_eq!(calls[3].get("structured"), None);
}

#[tokio::test]
async fn a_servers_structured_content_is_kept_and_read_beside_its_text() {
    let project = project(&[]);
    let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/typed_server.py");
    let python = mcp_python().display().to_string();
    let spec = stdio("typed", &python, &[server.to_str().unwrap()]);
    // The test registry's output cap is 1000 bytes.
    let registry = registry(&project, vec![spec], TIMEOUT, &[]).await;
    let forecast = registry.get("mcp_typed_forecast").unwrap().manifest();
    let schema = forecast.output_schema.as_ref().unwrap();
    assert_eq!(schema["required"], json!(["city", "degrees"]));
    assert_eq!(
        forecast.input_schema.as_ref().unwrap()["title"],
        "forecastArguments"
    );

    let said = call(&registry, "mcp_typed_forecast", json!({"city": "Oslo"})).await;
    assert_eq!(
        said.data,
        "Mild in Oslo tomorrow, 21.5 degrees\n\n\
         Structured content: {\"city\":\"Oslo\",\"degrees\":21.5,\"notes\":\"\"}"
    );
    assert_eq!(
        said.structured,
        Some(json!({"city": "Oslo", "degrees": 21.5, "notes": ""}))
    );

    // Data the server wrote as its text too is read once.
    let read = call(&registry, "mcp_typed_reading", json!({"city": "Oslo"})).await;
    assert_eq!(
        read.data,
        "{\n  \"city\": \"Oslo\",\n  \"degrees\": 18.0,\n  \"notes\": \"\"\n}"
    );

    // Past the cap, both are cut, each with its marker; the data is whole.
    let long = call(
        &registry,
        "mcp_typed_forecast",
        json!({"city": "Oslo", "notes_length": 2000}),
    )
    .await;
    assert!(long.data.len() <= 1000, "{}", long.data.len());
    let (text, structured) = long.data.split_once("\n\nStructured content: ").unwrap();
    assert_eq!(text, "Mild in Oslo tomorrow, 21.5 degrees");
    assert!(
        structured.starts_with("{\"city\":\"Oslo\",\"degrees\":21.5,\"notes\":\"nnn")
            && structured.ends_with(" of 2041 bytes]"),
        "{structured}"
    );
    let notes = &long.structured.as_ref().unwrap()["notes"];
    assert_eq!(notes.as_str().unwrap().len(), 2000);
}
