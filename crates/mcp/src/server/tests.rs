//! The JSON of `tools/list` entries and `tools/call` results as MCP clients
//! read it: a client of the 2026-07-28 protocol, that is; rmcp leaves out
//! `resultType: "complete"` for older ones.

use riverse_tool::{Content, FailureKind, ToolManifest, ToolResult};
use serde::Serialize;
use serde_json::json;

use super::{call_result, mcp_tool};

fn pretty(value: &impl Serialize) -> String {
    serde_json::to_string_pretty(value).unwrap()
}

/// A manifest as a Python tool's worker sends it.
fn manifest(fields: serde_json::Value) -> ToolManifest {
    serde_json::from_value(fields).unwrap()
}

#[test]
fn a_listed_tool_has_its_parameters_as_a_schema_and_its_examples_in_the_description() {
    let weather = manifest(json!({
        "name": "weather",
        "description": "Get the current weather of a city",
        "parameters": {"city": "City name, e.g. Tokyo", "days": "How many days ahead"},
        "parameter_types": {"days": "integer"},
        "examples": ["What's the weather in Tokyo?"],
    }));
    insta::assert_snapshot!(pretty(&mcp_tool(&weather)), @r#"
    {
      "name": "weather",
      "description": "Get the current weather of a city\n\nExamples:\n- What's the weather in Tokyo?",
      "inputSchema": {
        "type": "object",
        "properties": {
          "city": {
            "type": "string",
            "description": "City name, e.g. Tokyo"
          },
          "days": {
            "type": "integer",
            "description": "How many days ahead"
          }
        }
      }
    }
    "#);
}

#[test]
fn a_listed_tool_has_its_annotations_under_mcps_names_and_none_without() {
    let annotated = manifest(json!({
        "name": "lookup",
        "description": "Looks a word up",
        "annotations": {"title": "Look up", "readOnlyHint": true, "openWorldHint": false},
    }));
    let listed = json!(mcp_tool(&annotated));
    assert_eq!(
        listed["annotations"],
        json!({"title": "Look up", "readOnlyHint": true, "openWorldHint": false})
    );
    let plain = manifest(json!({"name": "lookup", "description": "Looks a word up"}));
    assert_eq!(json!(mcp_tool(&plain)).get("annotations"), None);
}

#[test]
fn a_listed_tool_with_schemas_of_its_own_has_them_whole_with_an_output_schema() {
    let forecast = manifest(json!({
        "name": "forecast",
        "description": "Tomorrow's forecast",
        "input_schema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"city": {"$ref": "#/$defs/city"}},
            "required": ["city"],
            "additionalProperties": false,
            "$defs": {"city": {"type": "string", "minLength": 1}},
        },
        "output_schema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"celsius": {"type": "number"}, "sky": {"enum": ["clear", "cloudy"]}},
            "required": ["celsius"],
            "additionalProperties": false,
        },
    }));
    insta::assert_snapshot!(pretty(&mcp_tool(&forecast)), @r##"
    {
      "name": "forecast",
      "description": "Tomorrow's forecast",
      "inputSchema": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
          "city": {
            "$ref": "#/$defs/city"
          }
        },
        "required": [
          "city"
        ],
        "additionalProperties": false,
        "$defs": {
          "city": {
            "type": "string",
            "minLength": 1
          }
        }
      },
      "outputSchema": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
          "celsius": {
            "type": "number"
          },
          "sky": {
            "enum": [
              "clear",
              "cloudy"
            ]
          }
        },
        "required": [
          "celsius"
        ],
        "additionalProperties": false
      }
    }
    "##);
}

#[test]
fn a_success_is_its_data_as_text() {
    insta::assert_snapshot!(pretty(&call_result(ToolResult::ok("Oslo: 4°C, cloudy"))), @r#"
    {
      "resultType": "complete",
      "content": [
        {
          "type": "text",
          "text": "Oslo: 4°C, cloudy"
        }
      ],
      "isError": false
    }
    "#);
}

#[test]
fn a_success_with_content_has_its_blocks_after_the_text() {
    let mut result = ToolResult::ok("drawn");
    result.content = vec![
        Content::image(b"png", "image/png"),
        Content::Resource {
            uri: "file:///project/notes.txt".into(),
            text: Some("hello".into()),
            blob: None,
            mime_type: Some("text/plain".into()),
        },
        Content::Resource {
            uri: "https://example.com/reports/q3.pdf".into(),
            text: None,
            blob: None,
            mime_type: Some("application/pdf".into()),
        },
    ];
    insta::assert_snapshot!(pretty(&call_result(result)), @r#"
    {
      "resultType": "complete",
      "content": [
        {
          "type": "text",
          "text": "drawn"
        },
        {
          "type": "image",
          "data": "cG5n",
          "mimeType": "image/png"
        },
        {
          "type": "resource",
          "resource": {
            "uri": "file:///project/notes.txt",
            "mimeType": "text/plain",
            "text": "hello"
          }
        },
        {
          "type": "resource_link",
          "uri": "https://example.com/reports/q3.pdf",
          "name": "q3.pdf",
          "mimeType": "application/pdf"
        }
      ],
      "isError": false
    }
    "#);
}

#[test]
fn a_failure_is_an_error_with_its_kind_in_meta() {
    let timeout = ToolResult::failed(FailureKind::Timeout, "weather timed out after 5s");
    insta::assert_snapshot!(pretty(&call_result(timeout)), @r#"
    {
      "resultType": "complete",
      "content": [
        {
          "type": "text",
          "text": "weather timed out after 5s"
        }
      ],
      "isError": true,
      "_meta": {
        "riverse/failure": "timeout"
      }
    }
    "#);
    let silent = ToolResult::failed(FailureKind::ToolError, "");
    insta::assert_snapshot!(pretty(&call_result(silent)), @r#"
    {
      "resultType": "complete",
      "content": [
        {
          "type": "text",
          "text": "the tool failed without saying why"
        }
      ],
      "isError": true,
      "_meta": {
        "riverse/failure": "tool_error"
      }
    }
    "#);
}

#[test]
fn a_structured_result_is_structured_content_beside_its_json_as_text() {
    let mut result = ToolResult::ok("");
    result.structured = Some(json!({"celsius": 4.5, "sky": "cloudy"}));
    // What the registry does to every result before a front end reads it.
    result.text_from_structured();
    insta::assert_snapshot!(pretty(&call_result(result)), @r#"
    {
      "resultType": "complete",
      "content": [
        {
          "type": "text",
          "text": "{\"celsius\":4.5,\"sky\":\"cloudy\"}"
        }
      ],
      "structuredContent": {
        "celsius": 4.5,
        "sky": "cloudy"
      },
      "isError": false
    }
    "#);
}
