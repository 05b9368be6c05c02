//! Typed input and output from a real tool file: its JSON Schemas reach the
//! host whole, and its structured result rides beside the text, in the
//! discovery the host reads and from a standalone MCP server.

use pretty_assertions::assert_eq;
use riverse_python::WorkerPool;
use serde_json::{Value, json};

use super::support::{options, project, standalone};

fn forecast_input() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"unit": {"enum": ["celsius", "fahrenheit"]}},
        "properties": {"city": {"type": "string"}, "unit": {"$ref": "#/$defs/unit"}},
        "required": ["city"],
        "additionalProperties": false
    })
}

fn forecast_output() -> Value {
    json!({
        "type": "object",
        "properties": {"city": {"type": "string"}, "degrees": {"type": "number"}},
        "required": ["city", "degrees"]
    })
}

#[tokio::test]
async fn discovery_reports_a_tools_schemas_whole_and_none_for_a_plain_tool() {
    let project = project(&["structured_forecast.py"]);
    let pool = WorkerPool::new(options(&project)).unwrap();
    let discovery = pool.discover().await.unwrap();
    let manifests: Vec<&Value> = discovery
        .files
        .iter()
        .flat_map(|report| &report.classes)
        .map(|class| class.manifest.as_ref().unwrap())
        .collect();
    assert_eq!(manifests.len(), 2, "{discovery:?}");
    let (echo, forecast) = (manifests[0], manifests[1]);
    assert_eq!(echo.get("input_schema"), None);
    assert_eq!(echo.get("output_schema"), None);
    assert_eq!(forecast["input_schema"], forecast_input());
    assert_eq!(forecast["output_schema"], forecast_output());
    assert_eq!(forecast["parameters"], json!({}));
}

#[test]
fn a_standalone_worker_lists_the_schemas_and_answers_with_structured_content() {
    let project = project(&["structured_forecast.py"]);
    let mut worker = standalone(&project);
    worker.initialize(json!({}));
    let listed = worker.request("tools/list", json!({}))["result"]["tools"].clone();
    assert_eq!(listed[1]["name"], "forecast", "{listed}");
    assert_eq!(listed[1]["inputSchema"], forecast_input());
    assert_eq!(listed[1]["outputSchema"], forecast_output());
    assert_eq!(listed[0].get("outputSchema"), None);

    let called = worker.request(
        "tools/call",
        json!({"name": "forecast", "arguments": {"city": "Oslo"}}),
    )["result"]
        .clone();
    assert_eq!(
        called,
        json!({
            "content": [{"type": "text", "text": "Oslo: 21.5°C"}],
            "isError": false,
            "structuredContent": {"city": "Oslo", "degrees": 21.5}
        })
    );
    let refused = worker.request(
        "tools/call",
        json!({"name": "forecast", "arguments": {"city": "Atlantis"}}),
    )["result"]
        .clone();
    assert_eq!(refused["isError"], true);
    assert_eq!(refused.get("structuredContent"), None);
    assert_eq!(
        refused["content"][0]["text"],
        "execute() returned a ToolResult whose structured['at'] is set, which is not JSON \
         (structured_forecast.py:28)"
    );
    assert!(worker.close().success());
}
