//! Calls: what a tool's exceptions, wrong results and huge results become,
//! and that the pool keeps serving afterwards.

use pretty_assertions::assert_eq;
use riverse_tool::{FailureKind, RegistryOptions, ToolResult};
use serde_json::json;

use super::support::{assert_echo_answers, call, options, project, registry, registry_with};

#[tokio::test]
async fn an_exception_in_execute_names_the_exception_and_the_line_raising_it() {
    let project = project(&["execute_raises.py"]);
    let registry = registry(options(&project)).await;
    let result = call(&registry, "execute_raises", json!({})).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::ToolError));
    insta::assert_snapshot!(result.error, @"execute() raised ZeroDivisionError: division by zero (execute_raises.py:7)");
    assert_echo_answers(&registry).await;
}

#[tokio::test]
async fn a_result_of_the_wrong_type_is_a_failure_saying_what_was_returned() {
    let project = project(&["wrong_return_types.py"]);
    let registry = registry(options(&project)).await;
    let mut errors = Vec::new();
    for tool in ["returns_dict", "returns_none", "returns_int_data"] {
        let result = call(&registry, tool, json!({})).await;
        assert_eq!(
            result.failure_kind(),
            Some(FailureKind::ToolError),
            "{tool}"
        );
        errors.push(format!("{tool}: {}", result.error));
    }
    insta::assert_snapshot!(errors.join("\n"), @r#"
    returns_dict: execute() returned dict, expected ToolResult (wrong_return_types.py:11)
    wrap it as text: return ToolResult(True, json.dumps(...))
    returns_none: execute() returned None, expected ToolResult (wrong_return_types.py:19)
    end execute() with return ToolResult(True, text), or ToolResult(False, "", error) when it failed
    returns_int_data: execute() returned a ToolResult whose data is int, expected str (wrong_return_types.py:27)
    pass it as text: ToolResult(True, str(...))
    "#);
    assert_echo_answers(&registry).await;
}

/// Issue 49: the commonest mistakes name the `return` that made them and
/// what to write instead.
#[tokio::test]
async fn a_mistaken_result_names_the_line_of_its_return_and_the_fix() {
    let project = project(&["result_mistakes.py"]);
    let registry = registry(options(&project)).await;
    let mut errors = Vec::new();
    for tool in [
        "data_is_dict",
        "returns_text",
        "data_is_float",
        "data_is_bytes",
    ] {
        let result = call(&registry, tool, json!({})).await;
        assert_eq!(
            result.failure_kind(),
            Some(FailureKind::ToolError),
            "{tool}"
        );
        errors.push(result.error);
    }
    insta::assert_snapshot!(errors.join("\n"), @r#"
    execute() returned a ToolResult whose data is dict, expected str (result_mistakes.py:13)
    pass it as text: ToolResult(True, json.dumps(...))
    execute() returned str, expected ToolResult (result_mistakes.py:23)
    wrap the text: return ToolResult(True, text)
    execute() returned a ToolResult whose data is float, expected str (result_mistakes.py:31)
    pass it as text: ToolResult(True, str(...))
    execute() returned a ToolResult whose data is bytes, expected str (result_mistakes.py:39)
    pass it as text: ToolResult(True, str(..., "utf-8"))
    "#);
    assert_echo_answers(&registry).await;
}

/// Issue 49: bs4's `NavigableString` and other str subclasses are text,
/// taken as the characters they hold (not what their `__str__` makes).
#[tokio::test]
async fn a_str_subclass_is_accepted_as_data_and_error() {
    let project = project(&["str_subclass_data.py"]);
    let registry = registry(options(&project)).await;
    assert_eq!(
        call(&registry, "headline", json!({})).await,
        ToolResult::ok("Rain in Tokyo")
    );
}

#[tokio::test]
async fn a_20_mb_result_is_cut_at_a_character_boundary_with_a_marker() {
    let project = project(&["huge_result.py"]);
    let registry = registry(options(&project)).await;
    let result = call(&registry, "huge_result", json!({})).await;
    // 65,536 bytes would split a three-byte character: the cut keeps 21,845 of them.
    let expected = format!(
        "{}\n[output truncated: showing the first 65535 of 21000000 bytes]",
        "あ".repeat(21_845)
    );
    assert!(result.success, "{}", result.error);
    assert!(
        result.data == expected,
        "got {} bytes ending {:?}",
        result.data.len(),
        result.data.chars().rev().take(70).collect::<String>()
    );
    assert_echo_answers(&registry).await;
}

#[tokio::test]
async fn the_output_cap_follows_max_output_bytes() {
    let project = project(&["japanese.py"]);
    let registry_options = RegistryOptions {
        limits: riverse_tool::CallLimits {
            max_output_bytes: 20,
            ..riverse_tool::CallLimits::default()
        },
        ..RegistryOptions::default()
    };
    let registry = registry_with(options(&project), registry_options).await;
    // "こんにちは、田中さん！🌸" is 37 bytes; 20 falls inside "田", after 18.
    assert_eq!(
        call(&registry, "aisatsu", json!({"namae": "田中"})).await,
        ToolResult::ok("こんにちは、\n[output truncated: showing the first 18 of 37 bytes]")
    );
}

#[tokio::test]
async fn japanese_results_and_errors_arrive_intact() {
    let project = project(&["japanese.py"]);
    let registry = registry(options(&project)).await;
    assert_eq!(
        call(&registry, "aisatsu", json!({"namae": "田中"})).await,
        ToolResult::ok("こんにちは、田中さん！🌸")
    );
    assert_eq!(
        call(&registry, "aisatsu", json!({})).await,
        ToolResult::tool_error("名前がありません")
    );
}

#[tokio::test]
async fn parameters_reach_python_as_their_declared_types() {
    let project = project(&["typed.py"]);
    let registry = registry(options(&project)).await;
    let result = call(
        &registry,
        "typed",
        json!({"count": "3", "ratio": "2.5", "flag": "true", "label": "7", "extra": [1]}),
    )
    .await;
    assert!(result.success, "{}", result.error);
    let report: serde_json::Value = serde_json::from_str(&result.data).unwrap();
    assert_eq!(
        report,
        json!({
            "count": ["int", 3],
            "extra": ["list", [1]],
            "flag": ["bool", true],
            "label": ["str", "7"],
            "ratio": ["float", 2.5],
        })
    );
}

#[tokio::test]
async fn a_value_that_cannot_be_coerced_fails_before_the_tool_runs() {
    let project = project(&["typed.py"]);
    let registry = registry(options(&project)).await;
    let result = call(&registry, "typed", json!({"count": "three"})).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::BadParameters));
}
