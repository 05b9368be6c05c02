//! Typed input and output from the command line and over `riverse mcp`, to
//! the official MCP Python SDK's client: a tool's own JSON Schemas listed
//! whole, its structured result beside its text, and calls that do not fit
//! failing with the JSON path at fault.

use pretty_assertions::assert_eq;
use riverse_test_support::Project;
use serde_json::{Value, json};

use super::command::riverse;
use super::mcp::{call, drive};

fn project() -> Project {
    let project = Project::new();
    project.fixture("order_pizza.py");
    project
}

const BAD_ARGUMENTS: &str = "tool \"order_pizza\": the arguments do not fit its input_schema: \
    at /deliver_to/city: want string, but got number; \
    at /size: value must be one of 'small', 'large'";

const BAD_RECEIPT: &str = "tool \"order_pizza\": its structured result does not fit its \
    output_schema: at /total: want number, but got string";

#[test]
fn an_sdk_client_of_riverse_mcp_reads_the_schemas_and_the_structured_content() {
    let project = project();
    let seen = drive(
        &project,
        "auto",
        json!([
            {"list": true},
            call("order_pizza", json!({"size": "large", "deliver_to": {"city": "Oslo"}})),
            call("order_pizza", json!({"size": "huge", "deliver_to": {"city": 1}})),
            call("order_pizza", json!({"size": "small", "quantity": 120})),
        ]),
    );
    let listed = &seen[0]["tools"][0];
    let input = &listed["inputSchema"];
    assert_eq!(
        input["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(input["$defs"]["address"]["required"], json!(["city"]));
    assert_eq!(input["additionalProperties"], false);
    assert_eq!(
        listed["outputSchema"]["required"],
        json!(["size", "quantity", "total"])
    );
    // The SDK checks the structured content against the output schema it
    // listed: what it read is what fits.
    assert_eq!(
        seen[1],
        json!({
            "isError": false, "text": "1 large to Oslo: 14.00 EUR",
            "structured": {"size": "large", "quantity": 1, "total": 14.0, "city": "Oslo"}
        })
    );
    assert_eq!(
        seen[2],
        json!({"isError": true, "text": BAD_ARGUMENTS, "failure": "bad_parameters"})
    );
    assert_eq!(
        seen[3],
        json!({"isError": true, "text": BAD_RECEIPT, "failure": "tool_error"})
    );
}

#[test]
fn riverse_call_reads_text_as_the_schemas_types_and_prints_the_structured_result() {
    let project = project();
    let called = riverse(
        &project,
        &["call", "order_pizza", "size=small", "quantity=2", "--json"],
    );
    called.exits(0);
    let result: Value = serde_json::from_str(&called.stdout).unwrap();
    assert_eq!(result["data"], "2 small to collect: 19.00 EUR");
    assert_eq!(
        result["structured"],
        json!({"size": "small", "quantity": 2, "total": 19.0, "city": null})
    );

    let refused = riverse(&project, &["call", "order_pizza", "size=medium"]);
    refused.exits(1);
    assert_eq!(
        refused.stderr.trim_end(),
        "riverse: tool \"order_pizza\": the arguments do not fit its input_schema: \
         at /size: value must be one of 'small', 'large'"
    );

    let listed = riverse(&project, &["tools", "--json"]);
    listed.exits(0);
    let tools: Value = serde_json::from_str(&listed.stdout).unwrap();
    let order = &tools["tools"][0];
    assert_eq!(
        order["input_schema"]["properties"]["size"]["enum"],
        json!(["small", "large"])
    );
    assert_eq!(
        order["output_schema"]["properties"]["total"],
        json!({"type": "number"})
    );
}
