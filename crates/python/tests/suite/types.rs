//! `parameter_types` as Riverse's own tools write them (issue 10, part 4).

use pretty_assertions::assert_eq;
use riverse_tool::{Status, ToolResult, input_schema};
use serde_json::json;

use super::support::{
    assert_echo_answers, available, call, failed, options, project, registry, rows,
};

#[tokio::test]
async fn unions_synonyms_and_unknown_names_load_and_a_non_name_points_at_manifest() {
    let project = project(&["loose_types.py"]);
    let registry = registry(options(&project)).await;
    assert_eq!(
        rows(&registry),
        [
            available("echo", "echo.py"),
            available("loose_types", "loose_types.py"),
            failed(
                None,
                Status::Error,
                "loose_types.py",
                "BadTypeName.manifest() returned a ToolManifest whose parameter_types['n'] is <class 'int'>, \
                 expected a type name such as int, float, bool, string or a union like int|string (loose_types.py:32)"
            ),
        ]
    );
    let manifest = registry.get("loose_types").unwrap().manifest();
    assert_eq!(
        manifest.type_warnings(),
        [
            "parameter_types[\"when\"]: unknown type \"datetime\"; its values pass through unconverted"
        ]
    );
    assert_eq!(
        input_schema(manifest)["properties"],
        json!({
            "value": {"type": ["boolean", "integer", "number", "string"], "description": "a new value of any kind"},
            "count": {"type": "integer", "description": "how many"},
            "tags": {"type": "array", "description": "a list of tags"},
            "when": {"description": "a moment in time"}
        })
    );
    assert_echo_answers(&registry).await;
}

#[tokio::test]
async fn only_a_single_known_type_converts_the_value() {
    let project = project(&["loose_types.py"]);
    let registry = registry(options(&project)).await;
    assert_eq!(
        call(
            &registry,
            "loose_types",
            json!({"value": "3", "count": "4", "tags": "[\"a\", \"b\"]", "when": "noon"})
        )
        .await,
        ToolResult::ok("count=4:int, tags=['a', 'b']:list, value='3':str, when='noon':str")
    );
    assert_eq!(
        call(
            &registry,
            "loose_types",
            json!({"value": 2.5, "when": {"hour": 12}})
        )
        .await,
        ToolResult::ok("value=2.5:float, when={'hour': 12}:dict")
    );
}
